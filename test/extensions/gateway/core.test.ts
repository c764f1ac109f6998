// The gateway core with the fake adapter and a recording runtime stand-in: default deny and DM pairing
// (approved from the CLI in another process), allowlists on stable ids, group lists, one session per
// chat with a queue, slash commands answered while a turn runs, reset policy, adapter backoff.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { ConfigError, defineExtension, GATEWAY_AUTH_SERVICE, type GatewayAuthService } from '../../../sdk/index.ts'
import { createTestKernel, fakeAdapter, recordingRuntime } from '../../../sdk/testing/index.ts'
import { AdapterLifecycle, backoffDelay } from '../../../extensions/gateway/lifecycle.ts'
import { resetPolicy, resetReason } from '../../../extensions/gateway/routing.ts'
import { runAgent } from '../../helpers/agent-process.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db']


const ping = defineExtension({
  name: 'ping-command',
  setup(api) {
    api.commands.register({ name: 'ping', category: 'Test', description: 'answers pong', scope: 'gateway', slash: (ctx) => ctx.reply(`pong (busy: ${(ctx.chat as any)?.busy?.()})`) })
  },
})

async function gateway(t: any, env: Record<string, string> = {}, delayMs = 0) {
  const fake = fakeAdapter({ name: 'fake' })
  const runtime = recordingRuntime({ delayMs })
  const k = await createTestKernel({ builtins: CORE, extensions: [fake.definition, runtime.definition, ping], env })
  t.after(() => k.close())
  return { k, fake, runs: runtime.runs }
}

test('default deny: a stranger gets one pairing code, approved from the CLI', async (t) => {
  const { k, fake, runs } = await gateway(t)
  const first = await fake.inbound({ userId: 'u-stranger', userName: 'Mallory', chatId: 'c1' }, 'hello')
  assert.equal(first.status, 'pairing')
  await first.done
  const code = /Pairing code: ([A-Z2-9]{8})/.exec(fake.sent.at(-1)!.text)?.[1]
  assert.ok(code, fake.sent.at(-1)!.text)
  assert.doesNotMatch(code, /[01OI]/)
  const again = await fake.inbound({ userId: 'u-stranger', chatId: 'c1' }, 'hello again')
  assert.equal(again.status, 'denied', 'one code per user per 10 minutes')
  assert.equal(runs.length, 0)

  const auth = k.kernel.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)!
  assert.equal((await auth.pending()).length, 1)
  const wrong = await runAgent(['gateway', 'pair', 'approve', 'AAAAAAAA'], { home: k.home })
  assert.equal(wrong.code, 2)
  const approved = await runAgent(['gateway', 'pair', 'approve', code.toLowerCase(), '--json'], { home: k.home })
  assert.equal(approved.code, 0, approved.stderr)
  assert.deepEqual({ ...JSON.parse(approved.stdout), approved_at: 0 }, { platform: 'fake', user_id: 'u-stranger', user_name: 'Mallory', approved_at: 0 }, 'snake_case like every --json')

  const third = await fake.inbound({ userId: 'u-stranger', chatId: 'c1' }, 'now?', 'm3')
  assert.equal(third.status, 'queued')
  await third.done
  assert.equal(fake.sent.at(-1)!.text, 'echo: now?')
  const listed = await runAgent(['gateway', 'pair', 'list', '--json'], { home: k.home })
  assert.equal(JSON.parse(listed.stdout).approved.length, 1)
  assert.equal((await runAgent(['gateway', 'pair', 'revoke', 'fake', 'u-stranger'], { home: k.home })).code, 0)
  assert.equal((await fake.inbound({ userId: 'u-stranger', chatId: 'c1' }, 'still?')).status, 'denied')
})

test('allowlists decide on stable ids, never display names; groups need a group list', async (t) => {
  const { fake, runs } = await gateway(t, { FAKE_ALLOWED_USERS: 'u1, +1 555 123 4567' })
  assert.equal((await fake.inbound({ userId: 'u2', userName: 'u1', chatId: 'c2' }, 'hi')).status, 'denied', 'an allowlist configured: strangers are ignored')
  assert.equal((await fake.inbound({ userId: '+15551234567', chatId: 'c3' }, 'phone')).status, 'queued')
  assert.equal((await fake.inbound({ userId: 'u1', chatId: 'g1', chatType: 'group' }, 'in a group')).status, 'denied')
  const ok = await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'hi')
  assert.equal(ok.status, 'queued')
  await ok.done
  assert.ok(runs.some((r) => r.input === 'hi'))
  assert.ok(!runs.some((r) => r.input === 'in a group'))
})

test('sources authenticated by their own channel bypass the allowlists: webhooks (signature) and Home Assistant (token)', async (t) => {
  const { k } = await gateway(t)
  const auth = k.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  assert.equal((await auth.authorize({ platform: 'webhook', userId: 'github', chatId: 'route' })).allowed, true)
  assert.equal((await auth.authorize({ platform: 'homeassistant', userId: 'homeassistant', chatId: 'ha_events', chatType: 'channel' })).allowed, true)
  assert.equal((await auth.authorize({ platform: 'fake', userId: 'homeassistant', chatId: 'ha_events', chatType: 'channel' })).allowed, false, 'the name of the user proves nothing')
})

test('one session per chat, messages queued, slash commands answered while a turn runs', async (t) => {
  const { fake, runs } = await gateway(t, { FAKE_ALLOWED_USERS: 'u1,u2', FAKE_GROUP_ALLOWED_USERS: '*' }, 200)
  const a = await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'one')
  const b = await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'two')
  const command = await fake.inbound({ userId: 'u1', chatId: 'c1' }, '/ping')
  assert.equal(command.status, 'command')
  await command.done
  assert.equal(fake.sent.at(-1)!.text, 'pong (busy: true)', 'answered before the running turn ended')
  const other = await fake.inbound({ userId: 'u2', chatId: 'c2' }, 'elsewhere')
  await Promise.all([a.done, b.done, other.done])
  const one = runs.find((r) => r.input === 'one')!
  const two = runs.find((r) => r.input === 'two')!
  const elsewhere = runs.find((r) => r.input === 'elsewhere')!
  assert.equal(one.sessionId, undefined)
  assert.equal(two.sessionId, 's1', 'the second message continues the chat session')
  assert.notEqual(elsewhere.sessionId, 's1')
  assert.deepEqual(fake.sent.filter((s) => s.chatId === 'c1').map((s) => s.text), ['pong (busy: true)', 'echo: one', 'echo: two'])
  const dup = await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'same id', 'mid-1')
  assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'same id', 'mid-1')).status, 'ignored')
  await dup.done
})

test('session reset policy: idle 24 h and daily at_hour (0 is valid, null is the default)', () => {
  const policy = resetPolicy({})
  assert.deepEqual(policy, { mode: 'both', atHour: 4, idleMinutes: 1440 })
  assert.equal(resetPolicy({ at_hour: null }).atHour, 4)
  assert.equal(resetPolicy({ at_hour: 0 }).atHour, 0)
  const day = (h: number, m = 0) => new Date(2026, 0, 10, h, m).getTime()
  assert.equal(resetReason(policy, day(5), day(6)), undefined)
  assert.equal(resetReason(policy, day(3), day(5)), 'daily')
  assert.equal(resetReason(resetPolicy({ at_hour: 0 }), day(3), day(5)), undefined)
  assert.equal(resetReason(resetPolicy({ at_hour: 0, mode: 'daily' }), new Date(2026, 0, 9, 23).getTime(), day(0, 30)), 'daily')
  assert.equal(resetReason(resetPolicy({ mode: 'idle' }), day(5) - 25 * 3600_000, day(5)), 'idle')
  assert.equal(resetReason(resetPolicy({ mode: 'none' }), 0, day(5)), undefined)
})

test('adapters reconnect with exponential backoff; configuration errors are fatal', async (t) => {
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, { initialMs: 30_000, maxMs: 300_000 })), [30_000, 60_000, 120_000, 240_000, 300_000, 300_000])
  const flaky = fakeAdapter({ name: 'flaky', failStarts: 2 })
  const broken = fakeAdapter({ name: 'broken', fatal: new ConfigError('missing secret') })
  const k = await createTestKernel({ builtins: CORE, extensions: [flaky.definition, broken.definition] })
  t.after(() => k.close())
  const silent = { debug() {}, info() {}, warn() {}, error() {} }
  const lifecycle = new AdapterLifecycle({
    list: () => k.kernel.registries.adapters.list(),
    settings: k.kernel.settings,
    services: { ...k.kernel.services, provide: () => undefined },
    log: silent,
    adapterLog: () => silent,
    backoff: { initialMs: 20, maxMs: 40 },
  })
  t.after(() => lifecycle.stopAll())
  const fatal = await lifecycle.startAll()
  assert.deepEqual(fatal.map((f) => f.name), ['broken'])
  const end = Date.now() + 5_000
  while (!lifecycle.running().includes('flaky') && Date.now() < end) await sleep(10)
  assert.deepEqual(lifecycle.running(), ['flaky'])
  assert.equal(flaky.starts, 3)
  assert.equal(broken.starts, 1, 'not retried')
  lifecycle.connectionLost('flaky', new Error('socket closed'))
  while (flaky.starts < 4 && Date.now() < end) await sleep(10)
  while (!lifecycle.running().includes('flaky') && Date.now() < end) await sleep(10)
  assert.equal(flaky.starts, 4)
})

test('a failed turn tells the chat what failed, not where: no endpoint, address or path', async (t) => {
  const fake = fakeAdapter({ name: 'fake' })
  const failure = 'openai-compat: cannot reach http://10.0.0.7:8000/v1: connect ECONNREFUSED 10.0.0.7:8000 (getaddrinfo ENOTFOUND llm.corp.example; see /srv/agent/logs/x.log)'
  const runtime = recordingRuntime({ answer: () => { throw new Error(failure) } })
  const k = await createTestKernel({ builtins: CORE, extensions: [fake.definition, runtime.definition], env: { FAKE_ALLOWED_USERS: 'u1' } })
  t.after(() => k.close())
  await (await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'hello')).done
  const said = fake.sent.at(-1)!.text
  assert.match(said, /^Sorry, that failed: openai-compat: cannot reach <url> connect ECONNREFUSED <address> \(getaddrinfo ENOTFOUND <host>; see <path>\)$/)
  assert.doesNotMatch(said, /10\.0\.0\.7|llm\.corp|\/srv/)
})

test('publicErrorText keeps what went wrong: words, times, versions, relative paths', async () => {
  const { publicErrorText } = await import('../../../sdk/index.ts')
  for (const text of ['rate limited, try again at 12:30 (429)', 'config.yaml: model.provider is not set', 'src/a.ts and v1.2.3', 'max_tokens 4096']) assert.equal(publicErrorText(text), text)
  assert.equal(publicErrorText('[::1]:8080 and localhost:11434'), '<address> and <address>')
})
