// The dingtalk adapter in a real kernel (gateway, gateway-auth, delivery, state-db) with a recording
// runtime, the real dingtalk-stream SDK and a loopback fake of DingTalk: conformance, acks, the
// duplicate window, pairing, proactive sends through the robot OpenAPI, untrusted reply addresses,
// retryable and fatal connection failures, and the reconnect backoff.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentError, ConfigError, DELIVERY_SERVICE, type DeliveryService, type GatewayAdapter, type RunRequest } from '../../../sdk/index.ts'
import { adapterConformance, adapterContext, createTestKernel, recordingLog, recordingRuntime } from '../../../sdk/testing/index.ts'
import { ROBOT_CODE, robotMessage, startFakeDingTalk, type FakeDingTalk } from './fake-dingtalk.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'workplace-chat']
const CLIENT_ID = 'dingappkey00000001'
const SECRET = 'dt-client-secret-0123456789abcdef'

interface Setup {
  fake: FakeDingTalk
  credentials: { clientId: string; clientSecret: string }
  runs: RunRequest[]
  adapter: GatewayAdapter
  log: ReturnType<typeof recordingLog>
  delivery: DeliveryService
  start(): Promise<void>
}

async function setup(t: TestContext, env: Record<string, string> = {}, options: { fake?: FakeDingTalk; extra?: Record<string, unknown> } = {}): Promise<Setup> {
  const credentials = { clientId: CLIENT_ID, clientSecret: SECRET }
  const fake = options.fake ?? (await startFakeDingTalk(credentials))
  if (!options.fake) t.after(() => fake.close())
  const runtime = recordingRuntime()
  const k = await createTestKernel({
    builtins: CORE,
    extensions: [runtime.definition],
    env: { DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: SECRET, DINGTALK_GATEWAY_URL: fake.gatewayUrl, DINGTALK_API_BASE_URL: fake.origin, ...env },
    config: { platforms: { dingtalk: { extra: { reconnect_initial_ms: 50, reconnect_max_ms: 400, ...options.extra } } } },
  })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('dingtalk') as GatewayAdapter
  assert.ok(adapter, 'the dingtalk adapter is registered')
  const log = recordingLog()
  t.after(() => adapter.stop())
  return {
    fake,
    credentials,
    runs: runtime.runs,
    adapter,
    log,
    delivery: k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE),
    start: () => adapter.start(adapterContext(k, { log })),
  }
}

/** What the gateway treats as fatal (AgentError.isInstance alone is true for every AgentError). */
const isConfigError = (error: unknown): error is ConfigError => AgentError.isInstance(error) && error.code === 'E_CONFIG'

const acked = (fake: FakeDingTalk, frameId: string) => fake.frames.some((f) => f.code === 200 && f.headers?.messageId === frameId && JSON.parse(f.data).response?.success === true)

test('adapter conformance', async (t) => {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: SECRET })
  t.after(() => fake.close())
  const env = { DINGTALK_CLIENT_ID: CLIENT_ID, DINGTALK_CLIENT_SECRET: SECRET, DINGTALK_GATEWAY_URL: fake.gatewayUrl, DINGTALK_API_BASE_URL: fake.origin }
  await adapterConformance(t, {
    adapter: 'dingtalk',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { dingtalk: { enabled: false } } } }),
  })
  assert.ok(fake.opens.length >= 2 && fake.opens.every((o) => o.status === 200), 'start and restart each opened a stream connection')
})

test('enabled by the credentials, platforms.dingtalk.enabled or DINGTALK_ENABLED', async () => {
  const cases: Array<[Record<string, string>, Record<string, unknown> | undefined, boolean]> = [
    [{}, undefined, false],
    [{ DINGTALK_CLIENT_ID: 'a' }, undefined, false],
    [{ DINGTALK_CLIENT_ID: 'a', DINGTALK_CLIENT_SECRET: 'b' }, undefined, true],
    [{ DINGTALK_CLIENT_ID: 'a', DINGTALK_CLIENT_SECRET: 'b' }, { enabled: false }, false],
    [{}, { enabled: true }, true],
    [{ DINGTALK_ENABLED: 'true' }, undefined, true],
  ]
  for (const [env, platform, expected] of cases) {
    const k = await createTestKernel({ builtins: CORE, env: { DINGTALK_CLIENT_ID: undefined, DINGTALK_CLIENT_SECRET: undefined, DINGTALK_ENABLED: undefined, ...env }, ...(platform ? { config: { platforms: { dingtalk: platform } } } : {}) })
    try {
      assert.equal(k.kernel.registries.adapters.get('dingtalk')!.enabled(k.kernel.settings), expected, JSON.stringify({ env, platform }))
    } finally {
      await k.close()
    }
  }
})

test('enabled without credentials: start fails with a one-line configuration error', async (t) => {
  const s = await setup(t, { DINGTALK_CLIENT_SECRET: '' })
  await assert.rejects(s.start(), (error: unknown) => isConfigError(error) && /needs DINGTALK_CLIENT_ID and DINGTALK_CLIENT_SECRET/.test(error.message))
})

test('every callback is acknowledged; a redelivered message (same msgId) runs once', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  const message = robotMessage(s.fake, { text: 'only once please', session: 'dup' })
  const first = s.fake.push(message)
  const second = s.fake.push(message)
  assert.ok(await s.fake.until(() => acked(s.fake, first) && acked(s.fake, second), 5000), 'both callbacks acked')
  assert.ok(await s.fake.until(() => s.fake.replies.length >= 1, 5000))
  await sleep(300)
  assert.equal(s.runs.length, 1)
  assert.equal(s.fake.replies.length, 1)
  assert.ok(s.log.lines.some((l) => /dropped a duplicate of DingTalk message/.test(l)), s.log.lines.join('\n'))
  // SYSTEM pings are answered by the SDK with the same headers.
  const ping = s.fake.ping()
  assert.ok(await s.fake.until(() => s.fake.frames.some((f) => f.code === 200 && f.headers?.messageId === ping && f.headers?.topic === 'ping'), 3000))
})

test('malformed frames and callbacks are acknowledged or skipped; the stream stays up', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  s.fake.raw('this is not JSON')
  const broken = s.fake.push('{"msgId": ')
  const noText = s.fake.push({ msgId: 'm-empty', msgtype: 'text', conversationType: '1', conversationId: 'cid1', senderStaffId: 'staff-alice' })
  s.fake.push(robotMessage(s.fake, { text: 'still fine?', session: 'fine' }))
  assert.ok(await s.fake.until(() => s.fake.replies.some((r) => r.session === 'fine'), 5000), s.log.lines.join('\n'))
  assert.ok(acked(s.fake, broken) && acked(s.fake, noText), 'every callback is acked, even unusable ones')
  assert.ok(s.log.lines.some((l) => /ignored a malformed DingTalk stream frame/.test(l)), s.log.lines.join('\n'))
  assert.ok(s.log.lines.some((l) => /ignored a DingTalk callback whose data is not JSON/.test(l)), s.log.lines.join('\n'))
  assert.ok(s.log.lines.some((l) => /ignored a DingTalk message: empty text/.test(l)), s.log.lines.join('\n'))
  assert.equal(s.runs.length, 1)
  assert.equal(s.fake.connections(), 1)
})

test('no allowlist: an unknown direct sender gets a pairing code at the reply address, and no run', async (t) => {
  const s = await setup(t)
  await s.start()
  s.fake.push(robotMessage(s.fake, { text: 'let me in', staffId: 'staff-mallory', session: 'mallory' }))
  assert.ok(await s.fake.until(() => s.fake.replies.length === 1, 5000))
  const reply = s.fake.replies[0]!
  assert.equal(reply.session, 'mallory')
  assert.equal(reply.body.msgtype, 'markdown')
  assert.match(reply.body.markdown.text, /Pairing code: [A-Z2-9]{8}/)
  assert.equal(s.runs.length, 0)
})

test('expired reply addresses: answers go through the robot OpenAPI (group, staff id, explicit targets, home channel)', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice', DINGTALK_GROUP_ALLOWED_USERS: 'staff-alice', DINGTALK_HOME_CHANNEL: 'group:cidHome==' })
  await s.start()
  const soon = Date.now() + 30_000
  s.fake.push(robotMessage(s.fake, { group: true, text: ' group question', expiresAt: soon }))
  s.fake.push(robotMessage(s.fake, { text: 'direct question', expiresAt: soon }))
  assert.ok(await s.fake.until(() => s.fake.api.filter((r) => r.path.startsWith('/v1.0/robot/')).length === 2, 5000), JSON.stringify(s.fake.api))
  assert.equal(s.fake.replies.length, 0, 'a reply address about to expire is not used')
  const group = s.fake.api.find((r) => r.path === '/v1.0/robot/groupMessages/send')!
  assert.equal(group.headers['x-acs-dingtalk-access-token'], 'fake-access-token-0123456789')
  assert.deepEqual({ ...group.body, msgParam: JSON.parse(group.body.msgParam) }, { robotCode: ROBOT_CODE, openConversationId: 'cidGroup0000000000000000==', msgKey: 'sampleMarkdown', msgParam: { title: 'echo: group question', text: 'echo: group question' } })
  const direct = s.fake.api.find((r) => r.path === '/v1.0/robot/oToMessages/batchSend')!
  assert.deepEqual(direct.body.userIds, ['staff-alice'])
  assert.equal(JSON.parse(direct.body.msgParam).text, 'echo: direct question')

  const receipt = await s.delivery.send({ kind: 'chat', platform: 'dingtalk', chatId: 'user:staff-carol' }, '**Report** ready')
  assert.equal(receipt.parts, 1)
  assert.deepEqual(s.fake.api.at(-1)!.body.userIds, ['staff-carol'])
  await s.delivery.send({ kind: 'chat', platform: 'dingtalk' }, 'to the home channel')
  assert.equal(s.fake.api.at(-1)!.body.openConversationId, 'cidHome==')
  assert.equal(s.fake.api.filter((r) => r.path === '/v1.0/oauth2/accessToken').length, 1, 'the access token is cached')

  // An external user (no staff id) whose reply address expired cannot be reached: a clear one-line error.
  const external = robotMessage(s.fake, { text: 'hi', staffId: 'ext-user', conversationId: 'cidExternal==', expiresAt: soon })
  delete external.senderStaffId
  s.fake.push(external)
  await sleep(300)
  await assert.rejects(s.delivery.send({ kind: 'chat', platform: 'dingtalk', chatId: 'cidExternal==' }, 'hello'), /reply address has expired and the sender has no staff id \(proactive sends need a recent message in that chat\)/)
})

test('delivery from a process where the adapter is not running uses the OpenAPI too', async (t) => {
  const s = await setup(t)
  await s.delivery.send({ kind: 'chat', platform: 'dingtalk', chatId: 'group:cidCron==' }, '# Nightly\nall green')
  const send = s.fake.api.find((r) => r.path === '/v1.0/robot/groupMessages/send')!
  assert.equal(send.body.robotCode, CLIENT_ID, 'robotCode defaults to the client id')
  assert.deepEqual(JSON.parse(send.body.msgParam), { title: 'Nightly', text: '# Nightly\nall green' })
  assert.deepEqual(s.fake.api[0]!.body, { appKey: CLIENT_ID, appSecret: SECRET })
})

test('a reply address on a foreign host is never posted to', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  const message = robotMessage(s.fake, { text: 'where do answers go?' })
  message.sessionWebhook = 'https://attacker.example/robot/sendBySession?session=x'
  s.fake.push(message)
  assert.ok(await s.fake.until(() => s.fake.api.some((r) => r.path === '/v1.0/robot/oToMessages/batchSend'), 5000))
  assert.ok(s.log.lines.some((l) => /ignored the reply address .*not a DingTalk host/.test(l)))
  assert.equal(s.fake.replies.length, 0)
})

test('a DingTalk outage at start is retryable (the gateway retries), not fatal, and starts no loop of its own', async (t) => {
  const s = await setup(t)
  s.fake.failOpens(1, 503)
  await assert.rejects(s.start(), (error: unknown) => AgentError.isInstance(error) && error.code !== 'E_CONFIG' && /HTTP 503/.test(error.message))
  await sleep(400)
  assert.equal(s.fake.opens.length, 1, 'no retry of its own: the gateway lifecycle owns start retries')
  await s.start()
  assert.equal(s.fake.connections(), 1)
})

test('bad credentials at start: ConfigError naming the variables, without the secret', async (t) => {
  const fake = await startFakeDingTalk({ clientId: CLIENT_ID, clientSecret: 'the-real-secret-value' })
  t.after(() => fake.close())
  const s = await setup(t, {}, { fake })
  await assert.rejects(s.start(), (error: unknown) => {
    assert.ok(isConfigError(error))
    assert.equal((error as Error).message, 'DingTalk refused DINGTALK_CLIENT_ID/DINGTALK_CLIENT_SECRET (HTTP 401 authFailed): check the app\'s client id and client secret')
    return true
  })
  await sleep(300)
  assert.equal(fake.opens.length, 1)
})

test('lost connections reconnect with growing, jittered delays; a message afterwards is answered', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  s.fake.failOpens(3, 503)
  s.fake.drop()
  // The fake counts the socket at the upgrade; the client logs "reconnected" after its own open event.
  assert.ok(await s.fake.until(() => s.fake.connections() === 2 && s.log.lines.some((l) => /reconnected after/.test(l)), 8000), s.log.lines.join('\n'))
  const delays = s.log.lines.flatMap((l) => {
    const m = /reconnecting in ([\d.]+) s \(attempt (\d+)\)/.exec(l)
    return m ? [{ seconds: Number(m[1]), attempt: Number(m[2]) }] : []
  })
  assert.deepEqual(delays.map((d) => d.attempt), [1, 2, 3, 4])
  // initial 50 ms, doubling, capped at 400 ms; each delay within [base/2, base].
  const bases = [0.05, 0.1, 0.2, 0.4]
  delays.forEach((d, i) => assert.ok(d.seconds >= bases[i]! / 2 - 0.05 && d.seconds <= bases[i]! + 0.05, `attempt ${d.attempt}: ${d.seconds} s`))
  assert.ok(s.log.lines.some((l) => /HTTP 503/.test(l)), 'the failed attempts are logged with their reason')
  assert.ok(s.log.lines.some((l) => /reconnected after 4 attempt/.test(l)))
  s.fake.push(robotMessage(s.fake, { text: 'still there?', session: 'after' }))
  assert.ok(await s.fake.until(() => s.fake.replies.some((r) => r.session === 'after'), 5000))
  assert.equal(s.fake.replies.find((r) => r.session === 'after')!.body.markdown.text, 'echo: still there?')
})

test('a refused websocket handshake while reconnecting is retried', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  s.fake.failUpgrades(2)
  s.fake.drop()
  assert.ok(await s.fake.until(() => s.fake.connections() === 2, 8000), s.log.lines.join('\n'))
  assert.equal(s.fake.opens.length, 4, 'the first open, then one per reconnect attempt')
  assert.ok(s.log.lines.some((l) => /the DingTalk stream websocket failed: Unexpected server response: 401\); reconnecting in [\d.]+ s \(attempt 2\)/.test(l)), s.log.lines.join('\n'))
  s.fake.push(robotMessage(s.fake, { text: 'back?', session: 'back' }))
  assert.ok(await s.fake.until(() => s.fake.replies.some((r) => r.session === 'back'), 5000))
})

test('credentials revoked while reconnecting: the stream stops (no retry loop) and the secret is never logged', async (t) => {
  const s = await setup(t, { DINGTALK_ALLOWED_USERS: 'staff-alice' })
  await s.start()
  const before = s.fake.opens.length
  // The secret is rotated on the platform side (the fake reads its credentials per request), then the connection drops.
  s.credentials.clientSecret = 'rotated-secret-value'
  s.fake.drop()
  assert.ok(await s.fake.until(() => s.log.lines.some((l) => /DingTalk stream stopped: DingTalk refused/.test(l)), 5000), s.log.lines.join('\n'))
  await sleep(500)
  assert.deepEqual(s.fake.opens.slice(before).map((o) => o.status), [401], 'one refused attempt, then no more')
  assert.ok(!s.log.lines.join('\n').includes(SECRET))
})
