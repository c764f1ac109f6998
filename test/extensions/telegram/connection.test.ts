// The Telegram adapter's connection: the conformance suite; a rejected token is a configuration error
// (no retry); long polling stops cleanly (the poll in flight ends, the lock is released); 409 Conflict
// is retried with backoff and recovers, or is reported once as fatal; a second poller on one token
// in one agent home is refused by the lock (a stale lock is taken over); 429 retry_after is waited
// out on getUpdates and on sends; a network outage is retried; the update offset is the resume point;
// the conformance suite's no-message-lost cases (outages, restarts) pass.

import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { AgentError, ConfigError, GATEWAY_SERVICE, type GatewayService } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { createTelegramAdapter, resumeOffset } from '../../../extensions/telegram/adapter.ts'
import { lockToken } from '../../../extensions/telegram/lock.ts'
import { untilValue } from '../../helpers/until.ts'
import { CONFLICT, TOKEN_REJECTED } from '../../../extensions/telegram/poller.ts'
import { BOT, startFakeTelegram, TOKEN, USERS } from './fake-telegram.ts'
import { harness } from './harness.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'telegram']

test('telegram adapter conformance', async (t) => {
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  const env = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE_URL: fake.apiBase, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  const config = (enabled?: boolean) => ({ platforms: { telegram: { ...(enabled === false ? { enabled } : {}), extra: { poll_timeout_seconds: 2 } } } })
  await adapterConformance(t, {
    adapter: 'telegram',
    enabled: () => createTestKernel({ builtins: CORE, env, config: config() }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: config(false) }),
  })
})

test('telegram: no message lost across reconnects and restarts', async (t) => {
  const fake = await startFakeTelegram()
  t.after(() => fake.close())
  const env = { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_BASE_URL: fake.apiBase, WEBHOOK_PORT: '0', API_SERVER_PORT: '0', TELEGRAM_ALLOWED_USERS: String(USERS.alice.id) }
  const config = { gateway: { reconnect: { initial_ms: 50, max_ms: 200 } }, platforms: { telegram: { extra: { poll_timeout_seconds: 5, batch_window_ms: 0, command_menu: false } } } }
  await adapterConformance(t, {
    adapter: 'telegram',
    enabled: () => createTestKernel({ builtins: CORE, env, config }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { telegram: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) => createTestKernel({ home, builtins: CORE, extensions, env, config }),
      say: (text) => void fake.message({ from: 'alice', text }),
      said: () => fake.posted(USERS.alice.id),
      drop: () => fake.outage(1500),
      keepsHistory: true,
    },
  })
})

test('enabled by a token, TELEGRAM_ENABLED or the config; a malformed token or URL is a configuration error', async (t) => {
  const k = await createTestKernel({ builtins: CORE, env: { TELEGRAM_BOT_TOKEN: undefined, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' } })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('telegram')!
  assert.equal(adapter.enabled(k.kernel.settings), false)
  const h = await harness(t, { token: 'not-a-token' })
  const error = await h.adapter.start(h.context()).then(() => assert.fail('started'), (e) => e)
  assert.ok(ConfigError.isInstance(error))
  assert.match(error.message, /TELEGRAM_BOT_TOKEN does not look like a Bot API token/)
  const bad = await harness(t, { env: { TELEGRAM_API_BASE_URL: 'ftp://example.test' } })
  await assert.rejects(bad.adapter.start(bad.context()), /TELEGRAM_API_BASE_URL must be an http\(s\) URL/)
  const mention = await harness(t, { env: { TELEGRAM_REQUIRE_MENTION: 'sometimes' } })
  await assert.rejects(mention.adapter.start(mention.context()), /TELEGRAM_REQUIRE_MENTION must be true or false/)
  const free = await harness(t, { env: { TELEGRAM_FREE_RESPONSE_CHATS: 'general' } })
  await assert.rejects(free.adapter.start(free.context()), /"general" is not a chat id/)
})

test('a rejected token: a configuration error without the token, nothing left locked', async (t) => {
  const fake = await startFakeTelegram({ token: '7000000001:AAOtherTokenTelegramKnows_000000000000' })
  t.after(() => fake.close())
  const h = await harness(t, { fake })
  const error = await h.adapter.start(h.context()).then(() => assert.fail('started'), (e) => e)
  assert.ok(ConfigError.isInstance(error))
  assert.equal(error.message, TOKEN_REJECTED)
  assert.deepEqual(fake.requests.map((r) => `${r.method} ${r.status}`), ['getMe 401'])
  assert.deepEqual(readdirSync(join(h.k.home, 'locks')), [])
})

test('stop ends the long poll at once and releases the lock; start again works', async (t) => {
  const h = await harness(t, { extra: { poll_timeout_seconds: 50 } })
  await h.start()
  assert.ok(await h.fake.until(() => h.fake.polling() === 1, 5000))
  assert.equal(readdirSync(join(h.k.home, 'locks')).length, 1)
  await h.adapter.stop()
  assert.ok(await h.fake.until(() => h.fake.polling() === 0, 2000), 'the poll in flight was aborted')
  assert.deepEqual(readdirSync(join(h.k.home, 'locks')), [])
  await h.adapter.start(h.context())
  h.fake.message({ from: 'alice', text: 'back again' })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: back again'])
})

test('409 Conflict is retried with backoff and polling recovers', async (t) => {
  const h = await harness(t)
  h.fake.fail('getUpdates', 2, { code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' })
  await h.start()
  h.fake.message({ from: 'alice', text: 'after the conflict' })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: after the conflict'])
  assert.equal(h.log.lines.filter((l) => l.startsWith('warn: Telegram answered 409 Conflict')).length, 2)
  assert.ok(h.log.lines.includes('info: Telegram polling works again'))
  assert.deepEqual(h.lost, [])
})

test('a conflict that stays is reported once as fatal, with what to do, across restarts', async (t) => {
  const h = await harness(t, { extra: { conflict_retries: 2 } })
  const adapter = createTelegramAdapter({ config: { extra: { command_menu: false, poll_timeout_seconds: 5, batch_window_ms: 0, conflict_retries: 2 } }, settings: h.k.kernel.settings, log: h.log, commands: () => [], retryBaseMs: 20 })
  h.fake.fail('getUpdates', 10, { code: 409, description: 'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running' })
  await adapter.start(h.context())
  t.after(() => adapter.stop())
  assert.ok(await h.fake.until(() => h.lost.length === 1, 5000))
  assert.ok(ConfigError.isInstance(h.lost[0]!.error))
  assert.equal((h.lost[0]!.error as Error).message, CONFLICT)
  assert.equal(h.log.lines.filter((l) => l.startsWith('error: Telegram polling stopped:')).length, 1)
  assert.equal(h.fake.requests.filter((r) => r.method === 'getUpdates').length, 3, 'two retries, then stopped')

  // The gateway restarts the adapter; the conflict stays: not reported again, its 409s at debug only.
  await adapter.stop()
  await adapter.start(h.context())
  assert.ok(await h.fake.until(() => h.lost.length === 2, 5000))
  assert.equal(h.log.lines.filter((l) => l.startsWith('error: Telegram polling stopped:')).length, 1)
  assert.equal(h.log.lines.filter((l) => l.startsWith('warn: Telegram answered 409')).length, 2)
  assert.equal(h.log.lines.filter((l) => l.startsWith('debug: Telegram answered 409')).length, 2)
})

test('a second gateway on the same bot and agent home is refused by the lock; a stale lock is taken over', async (t) => {
  const first = await harness(t)
  await first.start()
  const second = await harness(t, { fake: first.fake, home: first.k.home })
  const error = await second.adapter.start(second.context()).then(() => assert.fail('started'), (e) => e)
  assert.ok(ConfigError.isInstance(error))
  assert.equal(error.message, 'this Telegram bot is already polled by another adapter in this process')
  assert.ok(!error.message.includes(TOKEN))

  // A lock left by a process that is gone is taken over (and a look-alike token locks separately).
  const home = first.k.home
  const held = lockToken(home, '7000000002:AAAnotherBotTokenEntirely_0000000000')
  held.release()
  mkdirSync(join(home, 'locks'), { recursive: true })
  const [name] = readdirSync(join(home, 'locks'))
  await first.adapter.stop()
  // Another process (alive: our parent) holds it: refused, naming that process.
  writeFileSync(join(home, 'locks', name!), `${process.ppid}\n`)
  const other = await second.adapter.start(second.context()).then(() => assert.fail('started'), (e) => e)
  assert.equal(other.message, `another agent gateway (pid ${process.ppid}) already runs this Telegram bot from this agent home: stop it (agent gateway stop), or give this one its own bot from BotFather`)
  // Its process is gone: taken over.
  writeFileSync(join(home, 'locks', name!), '999999999\n')
  await second.adapter.start(second.context())
  t.after(() => second.adapter.stop())
  first.fake.message({ from: 'alice', text: 'to the second gateway' })
  assert.deepEqual(await second.posted(USERS.alice.id), ['answer to: to the second gateway'])
  await second.adapter.stop()
  assert.ok(!existsSync(join(home, 'locks', name!)))
})

test('429 retry_after is honoured on getUpdates and on sends', async (t) => {
  const h = await harness(t)
  h.fake.fail('getUpdates', 1, { code: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 })
  h.fake.fail('sendMessage', 1, { code: 429, description: 'Too Many Requests: retry after 1', retryAfter: 1 })
  await h.start()
  h.fake.message({ from: 'alice', text: 'slowly please' })
  assert.deepEqual(await h.posted(USERS.alice.id), ['answer to: slowly please'])
  const polls = h.fake.requests.filter((r) => r.method === 'getUpdates')
  assert.equal(polls[0]!.status, 429)
  assert.ok(h.log.lines.includes('info: Telegram rate limit on getUpdates: retrying in 1 s as asked'))
  assert.ok(h.log.lines.includes('info: Telegram rate limit on sendMessage: retrying in 1 s as asked'))
  assert.deepEqual(h.fake.requests.filter((r) => r.method === 'sendMessage').map((r) => r.status), [429, 200])
})

test('a network outage is retried until Telegram is back', async (t) => {
  const h = await harness(t)
  const adapter = createTelegramAdapter({ config: { extra: { command_menu: false, poll_timeout_seconds: 5, batch_window_ms: 0, conflict_retries: 5 } }, settings: h.k.kernel.settings, log: h.log, commands: () => [], retryBaseMs: 50 })
  h.fake.fail('getUpdates', 3, { code: 502, description: 'Bad Gateway' })
  await adapter.start(h.context())
  t.after(() => adapter.stop())
  h.fake.message({ from: 'alice', text: 'through the outage' })
  assert.ok(await h.fake.until(() => h.fake.posted(USERS.alice.id).length === 1, 10_000), h.log.lines.join('\n'))
  assert.equal(h.log.lines.filter((l) => l.startsWith('warn: getUpdates failed (502: Bad Gateway)')).length, 1, 'reported once per outage')
  assert.ok(AgentError)
})

test('the update offset is kept as the resume point of this bot; a restart polls from it', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', text: 'one' })
  await h.posted(USERS.alice.id)
  const resume = h.k.kernel.services.require<GatewayService>(GATEWAY_SERVICE).resumePoint('telegram')
  const cursor = await untilValue('the resume point', () => resume.get(), 5000)
  const offset = resumeOffset(cursor, BOT.id)
  assert.equal(cursor, `${BOT.id}:${offset}`)
  assert.equal(resumeOffset(cursor, BOT.id + 1), undefined, 'another bot does not use it')
  assert.equal(resumeOffset('not a cursor', BOT.id), undefined)
  await h.adapter.stop()
  const before = h.fake.requests.length
  await h.adapter.start(h.context())
  assert.ok(await h.fake.until(() => h.fake.requests.slice(before).some((r) => r.method === 'getUpdates'), 5000))
  assert.deepEqual(h.fake.requests.slice(before).find((r) => r.method === 'getUpdates')!.body.offset, offset)
})
