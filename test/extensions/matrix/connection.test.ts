// Signing in and staying connected, in-process: a refused token is one fatal line (no retry, no
// token), an unreachable homeserver is retryable, password login keeps its token in memory and reuses
// one device, /sync failures are retried by the SDK and logged once per state change, a token revoked
// later reports the connection lost, and the SDK's own logging never reaches the console.

import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { test } from 'node:test'
import { AgentError, ConfigError, GATEWAY_SERVICE, type GatewayService } from '../../../sdk/index.ts'
import { BOT_ID, startFakeHomeserver } from './fake-homeserver.ts'
import { ALICE, harness, until } from './harness.ts'

const isConfigError = (error: unknown): error is ConfigError => AgentError.isInstance(error) && error.code === 'E_CONFIG'

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

test('a refused access token fails start with one ConfigError line, one attempt, the token nowhere', async (t) => {
  const token = 'syt_wrong_token_abcdef0123456789'
  const h = await harness(t, { env: { MATRIX_ACCESS_TOKEN: token } })
  const error = await h.start().then(
    () => assert.fail('start succeeded'),
    (e: unknown) => e,
  )
  assert.ok(isConfigError(error), String(error))
  assert.equal(error.message, `the Matrix homeserver (${new URL(h.hs.url).host}) refused MATRIX_ACCESS_TOKEN (HTTP 401 M_UNKNOWN_TOKEN: Invalid access token passed.)`)
  assert.ok(!error.message.includes('\n'))
  assert.equal(h.hs.requests.filter((r) => r.path.endsWith('/account/whoami')).length, 1)
  assert.equal(h.hs.syncs().length, 0, 'no sync loop was started')
  assert.ok(!h.lines.join('\n').includes(token), 'the token is not in any log line')
})

test('configuration errors: no homeserver, a bad URL, no credentials, a bad user id', async (t) => {
  const cases: Array<[Record<string, string | undefined>, RegExp]> = [
    [{ MATRIX_HOMESERVER: undefined }, /needs MATRIX_HOMESERVER/],
    [{ MATRIX_HOMESERVER: 'matrix.example.org' }, /MATRIX_HOMESERVER is not a URL/],
    [{ MATRIX_HOMESERVER: 'ftp://matrix.example.org' }, /must be an http\(s\) URL/],
    [{ MATRIX_ACCESS_TOKEN: undefined }, /needs MATRIX_ACCESS_TOKEN, or MATRIX_USER_ID and MATRIX_PASSWORD/],
    [{ MATRIX_ACCESS_TOKEN: undefined, MATRIX_USER_ID: 'agent', MATRIX_PASSWORD: 'x' }, /MATRIX_USER_ID is not a Matrix user id/],
  ]
  for (const [env, pattern] of cases) {
    await t.test(pattern.source, async (st) => {
      const h = await harness(st, { env })
      await assert.rejects(h.start(), (error: unknown) => isConfigError(error) && pattern.test(error.message))
    })
  }
})

test('a homeserver that is down is a retryable failure (not a ConfigError)', async (t) => {
  const port = await freePort()
  const h = await harness(t, { env: { MATRIX_HOMESERVER: `http://127.0.0.1:${port}` } })
  const error = await h.start().then(
    () => assert.fail('start succeeded'),
    (e: unknown) => e,
  )
  assert.ok(AgentError.isInstance(error) && !isConfigError(error), String(error))
  assert.match((error as Error).message, new RegExp(`^cannot reach the Matrix homeserver \\(127\\.0\\.0\\.1:${port}\\): fetch failed`))
})

test('a URL that is not a Matrix homeserver is a ConfigError', async (t) => {
  const h = await harness(t)
  const url = `${h.hs.url}/not-matrix`
  const h2 = await harness(t, { hs: h.hs, env: { MATRIX_HOMESERVER: url } })
  await assert.rejects(h2.start(), (error: unknown) => isConfigError(error) && /does not serve the Matrix client API \(HTTP 404 M_UNRECOGNIZED/.test(error.message))
})

test('password login: one device per agent home, the token kept in memory and reused on restart, nothing logged', async (t) => {
  const password = 'correct horse battery staple'
  const hs = await startFakeHomeserver({ password })
  t.after(() => hs.close())
  const h = await harness(t, { hs, env: { MATRIX_ACCESS_TOKEN: undefined, MATRIX_USER_ID: BOT_ID, MATRIX_PASSWORD: password }, config: { logging: {} } })
  const room = hs.createRoom({ members: [ALICE] })
  await h.start()
  assert.equal(hs.logins.length, 1)
  const login = hs.logins[0]!
  assert.deepEqual(login.identifier, { type: 'm.id.user', user: BOT_ID })
  assert.match(login.device_id, /^AGENT[0-9A-F]{10}$/)
  assert.equal(login.initial_device_display_name, 'agent gateway')
  hs.message(room, ALICE, 'hello after login')
  await until(() => hs.sentTo(room).length === 1, 10_000, 'the answer')
  // A reconnect (stop, start) reuses the login's token: no second login, no second device.
  await h.adapter.stop()
  await h.adapter.start(h.context())
  assert.equal(hs.logins.length, 1)
  // The remembered token stops working: a fresh login on the same device id.
  hs.revokeTokens()
  await until(() => h.lines.some((l) => l.includes('no longer accepts the session')), 10_000, () => `the lost session; ${h.lines.join('\n')}`)
  await h.adapter.stop()
  await h.adapter.start(h.context())
  assert.equal(hs.logins.length, 2)
  assert.equal(hs.logins[1]!.device_id, login.device_id)
  const output = h.lines.join('\n')
  assert.ok(!output.includes(password))
  assert.ok(!/syt_login_/.test(output), 'no login token in the log')
})

test('a wrong password is a ConfigError naming the variables, without the password', async (t) => {
  const hs = await startFakeHomeserver({ password: 'right' })
  t.after(() => hs.close())
  const h = await harness(t, { hs, env: { MATRIX_ACCESS_TOKEN: undefined, MATRIX_USER_ID: BOT_ID, MATRIX_PASSWORD: 'wrong-password-123' } })
  const error = await h.start().then(
    () => assert.fail('start succeeded'),
    (e: unknown) => e,
  )
  assert.ok(isConfigError(error))
  assert.equal(error.message, `the Matrix homeserver (${new URL(hs.url).host}) refused MATRIX_USER_ID/MATRIX_PASSWORD (HTTP 403 M_FORBIDDEN: Invalid username or password)`)
  assert.equal(hs.logins.length, 1)
})

test('/sync failing with 500s, then back: the SDK retries, each state change is one log line, the next message is answered', async (t) => {
  const h = await harness(t)
  const room = h.hs.createRoom({ members: [ALICE] })
  await h.start()
  h.hs.failSyncs(2, 500)
  // Wake the held long-poll so the next /sync requests hit the failures.
  h.hs.message(room, ALICE, 'first')
  // The SDK waits 2-7 s (random) before each retry: two failures can take 15 s.
  await until(() => h.hs.sentTo(room).length === 1, 30_000, 'the first answer')
  await until(() => h.lines.some((l) => l.includes('Matrix sync recovered')), 30_000, () => `recovery; ${h.lines.join('\n')}`)
  const failing = h.hs.syncs().filter((s) => s.status === 500)
  assert.equal(failing.length, 2)
  h.hs.message(room, ALICE, 'are you back?')
  await until(() => h.hs.sentTo(room).length === 2, 10_000, 'the answer after recovery')
  assert.equal(h.hs.sentTo(room)[1]!.content.body, '**Answer** to: are you back?')
  const states = h.lines.filter((l) => /Matrix sync|reachable again/.test(l))
  assert.equal(states[0], 'warn: Matrix sync interrupted (HTTP 500 M_UNKNOWN: Internal server error); the SDK retries')
  assert.equal(states.at(-1), 'info: Matrix sync recovered')
  assert.ok(states.length <= 4, states.join('\n'))
})

test('a token revoked while running: the gateway is told the connection is lost (and the restart then fails for good)', async (t) => {
  const h = await harness(t)
  const lost: unknown[] = []
  const gateway = h.k.kernel.services.require<GatewayService>(GATEWAY_SERVICE)
  const context = h.context()
  const services = { ...context.services, get: <T,>(name: string): T | undefined => (name === GATEWAY_SERVICE ? ({ ...gateway, connectionLost: (_: string, e: unknown) => lost.push(e) } as unknown as T) : context.services.get<T>(name)) }
  t.after(() => h.adapter.stop())
  await h.adapter.start({ ...context, services })
  h.hs.revokeTokens()
  await until(() => lost.length === 1, 15_000, () => `connectionLost; ${h.lines.join('\n')}`)
  assert.ok(isConfigError(lost[0]), String(lost[0]))
  assert.ok(h.lines.some((l) => l.startsWith('error: the Matrix homeserver no longer accepts the session (HTTP 401 M_UNKNOWN_TOKEN')))
  await h.adapter.stop()
  await assert.rejects(h.adapter.start(context), (error: unknown) => isConfigError(error) && /refused MATRIX_ACCESS_TOKEN/.test(error.message))
})

test('the SDK logs to the adapter\'s debug log only, one line each, never to the console', async (t) => {
  const h = await harness(t)
  const written: string[] = []
  const methods = ['log', 'debug', 'info', 'warn', 'error', 'trace'] as const
  const saved = methods.map((m) => console[m])
  for (const m of methods) console[m] = (...args: unknown[]) => void written.push(args.map(String).join(' '))
  try {
    const room = h.hs.createRoom({ members: [ALICE] })
    await h.start()
    h.hs.message(room, ALICE, 'hello')
    await until(() => h.hs.sentTo(room).length === 1, 10_000, 'the answer')
    await h.adapter.stop()
  } finally {
    methods.forEach((m, i) => (console[m] = saved[i] as never))
  }
  assert.deepEqual(written, [])
  const sdk = h.lines.filter((l) => l.startsWith('debug: sdk: '))
  assert.ok(sdk.length > 0, 'the SDK\'s lines reached the debug log')
  assert.ok(sdk.every((l) => !l.includes('\n')))
  assert.ok(!h.lines.join('\n').includes(h.hs.token), 'no access token in any line')
})
