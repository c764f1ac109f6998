// The discord adapter's connection, with the real discord.js client against the loopback fake:
// conformance, a bad token (REST 401, gateway 4004) and a refused intent (4014) fail as configuration
// with one line and no token, an unreachable Discord is retryable, a resumable close code resumes the
// session (missed messages replayed and answered), a connection that stays down is handed to the
// gateway, and a revoked token while running stops the connection.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentError, type ConfigError } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { BOT_ID, CHANNELS, dmChannel, startFakeDiscord } from './fake-discord.ts'
import { CORE, harness, TOKEN } from './harness.ts'

const isConfigError = (error: unknown): error is ConfigError => AgentError.isInstance(error) && error.code === 'E_CONFIG'

test('discord adapter conformance', async (t) => {
  const fake = await startFakeDiscord({ token: TOKEN })
  t.after(() => fake.close())
  const env = { DISCORD_BOT_TOKEN: TOKEN, DISCORD_API_BASE_URL: fake.apiBase, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  await adapterConformance(t, {
    adapter: 'discord',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env: { ...env, DISCORD_ENABLED: 'true' }, config: { platforms: { discord: { enabled: false } } } }),
  })
  assert.ok(fake.identifies().length >= 2, 'the restart logged in again')
})

test('enabled by platforms.discord.enabled, DISCORD_ENABLED or a token; not without', async () => {
  const on = await createTestKernel({ builtins: CORE, env: { DISCORD_BOT_TOKEN: TOKEN } })
  const off = await createTestKernel({ builtins: CORE })
  const switched = await createTestKernel({ builtins: CORE, env: { DISCORD_ENABLED: 'yes' } })
  try {
    const enabled = (k: typeof on) => k.kernel.registries.adapters.get('discord')!.enabled(k.kernel.settings)
    assert.equal(enabled(on), true)
    assert.equal(enabled(off), false)
    assert.equal(enabled(switched), true)
  } finally {
    await Promise.all([on.close(), off.close(), switched.close()])
  }
})

test('a token Discord rejects (REST 401) is a ConfigError: one line, no token, no websocket, no retry', async (t) => {
  const wrong = 'MTIzNDU2Nzg5MDEyMzQ1Njc4.GdFake.the-wrong-token-zyxwvutsrqponm'
  const h = await harness(t, { token: wrong })
  const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
  assert.ok(isConfigError(error), `not a ConfigError: ${error}`)
  assert.match(error.message, /^Discord rejected DISCORD_BOT_TOKEN \(HTTP 401 Unauthorized\): reset the token/)
  assert.doesNotMatch(error.message, /\n/)
  assert.ok(!error.message.includes(wrong) && !h.log.lines.join('\n').includes(wrong))
  assert.deepEqual(h.fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`), ['GET /gateway/bot 401'])
  assert.equal(h.fake.upgradeAttempts(), 0)
  await sleep(800)
  assert.equal(h.fake.requests.length, 1, 'no retry')
})

test('a token refused by the gateway (close 4004) and a refused Message Content intent (4014) are ConfigErrors', async (t) => {
  for (const [code, pattern] of [[4004, /^Discord rejected DISCORD_BOT_TOKEN \(gateway close 4004/], [4014, /Message Content Intent/]] as const) {
    await t.test(String(code), async (st) => {
      const h = await harness(st)
      h.fake.failIdentify(code)
      const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
      assert.ok(isConfigError(error), `not a ConfigError: ${error}`)
      assert.match(error.message, pattern)
      assert.ok(!error.message.includes(TOKEN))
      await sleep(1000)
      assert.equal(h.fake.upgradeAttempts(), 1, 'discord.js does not reconnect after an unrecoverable close')
    })
  }
})

test('Discord unreachable or failing is retryable (not a ConfigError), without the token in the message', async (t) => {
  await t.test('connection refused', async (st) => {
    const fake = await startFakeDiscord({ token: TOKEN })
    const apiBase = fake.apiBase
    await fake.close()
    const h = await harness(st, { env: { DISCORD_API_BASE_URL: apiBase } })
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(AgentError.isInstance(error) && error.code === 'E_NETWORK', String(error))
    assert.match(error.message, /^cannot connect to Discord \(127\.0\.0\.1:\d+\): .*ECONNREFUSED/)
  })
  await t.test('5xx from GET /gateway/bot', async (st) => {
    const h = await harness(st)
    h.fake.failGatewayBot(10, 502)
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(AgentError.isInstance(error) && error.code === 'E_NETWORK', String(error))
    assert.match(error.message, /HTTP 502/)
  })
  await t.test('never ready in time', async (st) => {
    const h = await harness(st, { extra: { connect_timeout_seconds: 1 } })
    h.fake.holdIdentify(true)
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(AgentError.isInstance(error) && error.code === 'E_NETWORK', String(error))
    assert.equal(error.message, 'Discord did not become ready within 1 s')
    await sleep(300) // a handshake already on its way when the client was destroyed may still arrive
    const attempts = h.fake.upgradeAttempts()
    await sleep(1500)
    assert.equal(h.fake.upgradeAttempts(), attempts, 'the client was destroyed: no reconnect loop left behind')
  })
})

test('a resumable close: discord.js resumes the session, a message sent meanwhile is replayed and answered', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', content: 'before' })
  await h.posted(dmChannel('alice'))
  h.fake.closeSocket(4000, 'Unknown error')
  h.fake.message({ from: 'alice', content: 'while away' })
  assert.ok(await h.fake.until(() => h.fake.resumes().length === 1, 10_000), 'no RESUME')
  const resume = h.fake.resumes()[0]!
  assert.equal(resume.d.token, TOKEN)
  assert.equal(typeof resume.d.session_id, 'string')
  assert.equal(h.fake.identifies().length, 1, 'resumed, not identified again')
  assert.deepEqual(await h.posted(dmChannel('alice'), 2), ['answer to: before', 'answer to: while away'])
  h.fake.message({ from: 'alice', channel: 'general', content: `<@${BOT_ID}> and after`, mentions: ['bot'] })
  assert.deepEqual(await h.posted(CHANNELS.general), ['answer to: and after'])
  assert.equal(h.lost.length, 0)
  assert.ok(h.log.lines.some((l) => /^info: the Discord gateway connection resumed \(\d+ missed events replayed\)/.test(l)), h.log.lines.join('\n'))
})

test('a session Discord no longer knows: the resume is refused, the client identifies again and answers', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.invalidateSession()
  h.fake.closeSocket(4000, 'Unknown error')
  assert.ok(await h.fake.until(() => h.fake.identifies().length === 2, 10_000), `no new IDENTIFY; log:\n${h.log.lines.join('\n')}`)
  assert.equal(h.fake.resumes().length, 1, 'a resume was tried first')
  await sleep(200)
  h.fake.message({ from: 'alice', content: 'new session?' })
  assert.deepEqual(await h.posted(dmChannel('alice')), ['answer to: new session?'])
  assert.equal(h.lost.length, 0)
})

test('a connection that stays down is handed to the gateway (watchdog); a revoked token while running too', async (t) => {
  await t.test('watchdog', async (st) => {
    const h = await harness(st, { extra: { reconnect_watchdog_seconds: 1 } })
    await h.start()
    h.fake.refuseUpgrades(1000)
    h.fake.drop()
    assert.ok(await h.fake.until(() => h.lost.length === 1, 10_000), `no connectionLost; log:\n${h.log.lines.join('\n')}`)
    assert.equal(h.lost[0]!.adapter, 'discord')
    assert.match(String((h.lost[0]!.error as Error).message), /did not come back within 1 s/)
    assert.ok(!isConfigError(h.lost[0]!.error))
    await h.adapter.stop()
    await sleep(300) // a handshake already on its way when the client was destroyed may still arrive
    const attempts = h.fake.upgradeAttempts()
    await sleep(1500)
    assert.equal(h.fake.upgradeAttempts(), attempts, 'stopped: no reconnect loop left behind')
  })
  await t.test('close 4004 while running', async (st) => {
    const h = await harness(st)
    await h.start()
    h.fake.setToken('a-new-token-after-reset-000000000000')
    h.fake.closeSocket(4004, 'Authentication failed.')
    assert.ok(await h.fake.until(() => h.lost.length === 1, 10_000), `no connectionLost; log:\n${h.log.lines.join('\n')}`)
    assert.ok(isConfigError(h.lost[0]!.error))
    assert.match(h.log.lines.join('\n'), /error: Discord connection stopped: Discord rejected DISCORD_BOT_TOKEN \(gateway close 4004/)
  })
})

test('stop while connecting ends the attempt; stop is idempotent', async (t) => {
  const h = await harness(t)
  h.fake.holdIdentify(true)
  const controller = new AbortController()
  const starting = h.adapter.start({ ...h.context(), signal: controller.signal }).then(() => undefined, (e) => e)
  await sleep(300)
  controller.abort()
  const error = await starting
  assert.ok(AgentError.isInstance(error) && error.code === 'E_INTERRUPTED', String(error))
  await h.adapter.stop()
  await h.adapter.stop()
  await sleep(300)
  const attempts = h.fake.upgradeAttempts()
  await sleep(1500)
  assert.equal(h.fake.upgradeAttempts(), attempts)
})
