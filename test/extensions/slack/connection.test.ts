// The slack adapter's connection, with the official SDK clients against the loopback fake:
// conformance (with the no-message-lost cases), refused tokens fail as configuration with one line and
// no token, an unreachable Slack is retryable, a refresh request and a dropped socket are reconnected
// (the next message answered), Socket Mode turned off and a connection that stays down are handed to
// the gateway, and stopping while connecting ends the attempt.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentError, type ConfigError } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel } from '../../../sdk/testing/index.ts'
import { BOT_USER, CHANNELS, dmChannel, startFakeSlack, USERS } from './fake-slack.ts'
import { APP_TOKEN, BOT_TOKEN, CORE, harness } from './harness.ts'

const isConfigError = (error: unknown): error is ConfigError => AgentError.isInstance(error) && error.code === 'E_CONFIG'
/** The gateway without the real runtime: the conformance suite brings its own. */
const GATEWAY_ONLY = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'slash-commands', 'slack']

test('slack adapter conformance, no message lost across reconnects and restarts', async (t) => {
  const fake = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN })
  t.after(() => fake.close())
  const env = { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN, SLACK_API_BASE_URL: fake.apiBase, WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  await adapterConformance(t, {
    adapter: 'slack',
    enabled: () => createTestKernel({ builtins: CORE, env }),
    disabled: () => createTestKernel({ builtins: CORE, env: { ...env, SLACK_ENABLED: 'true' }, config: { platforms: { slack: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) =>
        createTestKernel({ home, builtins: GATEWAY_ONLY, extensions, env: { ...env, SLACK_ALLOWED_USERS: USERS.alice }, config: { gateway: { reconnect: { initial_ms: 50, max_ms: 200 }, human_delay: { min_ms: 0, max_ms: 5 } } } }),
      say: (text) => void fake.message({ from: 'alice', text }),
      said: () => fake.texts(dmChannel('alice')),
      drop: () => fake.drop(),
      // Slack retries an event it could not deliver, which the fake does at the next connection.
      keepsHistory: true,
      waitMs: 15_000,
    },
  })
  assert.ok(fake.connections() >= 4, 'the restarts connected again')
})

test('enabled by platforms.slack.enabled, SLACK_ENABLED or both tokens; not by one token', async () => {
  const kernels = await Promise.all([
    createTestKernel({ builtins: CORE, env: { SLACK_BOT_TOKEN: BOT_TOKEN, SLACK_APP_TOKEN: APP_TOKEN } }),
    createTestKernel({ builtins: CORE, env: { SLACK_BOT_TOKEN: BOT_TOKEN } }),
    createTestKernel({ builtins: CORE }),
    createTestKernel({ builtins: CORE, env: { SLACK_ENABLED: 'yes' } }),
  ])
  try {
    const enabled = kernels.map((k) => k.kernel.registries.adapters.get('slack')!.enabled(k.kernel.settings))
    assert.deepEqual(enabled, [true, false, false, true])
  } finally {
    await Promise.all(kernels.map((k) => k.close()))
  }
})

test('a refused token is a ConfigError: one line, no token, no socket, no retry', async (t) => {
  await t.test('bot token (auth.test)', async (st) => {
    const wrong = 'xoxb-9999-9999-the-wrong-bot-token-000000'
    const h = await harness(st, { env: { SLACK_BOT_TOKEN: wrong } })
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(isConfigError(error), `not a ConfigError: ${error}`)
    assert.equal(error.message, 'Slack refused SLACK_BOT_TOKEN (invalid_auth): reinstall the app to the workspace (OAuth & Permissions) and copy the Bot User OAuth Token')
    assert.ok(!h.log.lines.join('\n').includes(wrong))
    assert.deepEqual(h.fake.requests.map((r) => `${r.method} ${r.outcome}`), ['auth.test invalid_auth'])
    assert.equal(h.fake.connections(), 0)
  })
  await t.test('app token (apps.connections.open)', async (st) => {
    const wrong = 'xapp-1-A0TESTAPP-the-wrong-app-token-0000'
    const h = await harness(st, { env: { SLACK_APP_TOKEN: wrong } })
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(isConfigError(error), `not a ConfigError: ${error}`)
    assert.match(error.message, /^Slack refused SLACK_APP_TOKEN \(invalid_auth\): create an app-level token with the connections:write scope/)
    assert.ok(!error.message.includes(wrong))
    assert.deepEqual(h.fake.requests.map((r) => `${r.method} ${r.outcome}`), ['auth.test ok', 'apps.connections.open invalid_auth'])
    assert.equal(h.fake.connections(), 0)
  })
  await t.test('tokens of the wrong kind are refused before any request', async (st) => {
    const h = await harness(st, { env: { SLACK_BOT_TOKEN: APP_TOKEN } })
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(isConfigError(error))
    assert.match(error.message, /^SLACK_BOT_TOKEN must start with "xoxb-"/)
    assert.ok(!error.message.includes(APP_TOKEN))
    assert.equal(h.fake.requests.length, 0)
  })
})

test('Slack unreachable or failing is retryable (not a ConfigError), without a token in the message', async (t) => {
  await t.test('connection refused', async (st) => {
    const fake = await startFakeSlack({ botToken: BOT_TOKEN, appToken: APP_TOKEN })
    const apiBase = fake.apiBase
    await fake.close()
    const h = await harness(st, { env: { SLACK_API_BASE_URL: apiBase } })
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(AgentError.isInstance(error) && error.code === 'E_NETWORK', String(error))
    assert.match(error.message, /^cannot connect to Slack \(127\.0\.0\.1:\d+\): .*ECONNREFUSED/)
    assert.ok(!error.message.includes(BOT_TOKEN))
  })
  await t.test('503 from apps.connections.open', async (st) => {
    const h = await harness(st)
    h.fake.refuseOpens(10)
    const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
    assert.ok(AgentError.isInstance(error) && error.code === 'E_NETWORK', String(error))
    assert.match(error.message, /HTTP 503/)
  })
})

test('a refresh request and a dropped socket: reconnected with a new URL, the next message answered', async (t) => {
  const h = await harness(t)
  await h.start()
  h.fake.message({ from: 'alice', text: 'before' })
  await h.posted(dmChannel('alice'))
  h.fake.disconnect('refresh_requested')
  assert.ok(await h.fake.until(() => h.fake.connections() === 2 && h.fake.isConnected(), 10_000), `no reconnect; log:\n${h.log.lines.join('\n')}`)
  h.fake.message({ from: 'alice', text: 'after the refresh' })
  await h.posted(dmChannel('alice'), 2)
  h.fake.drop()
  h.fake.message({ from: 'alice', channel: 'general', text: `<@${BOT_USER}> while away` })
  assert.deepEqual(await h.posted(CHANNELS.general), ['answer to: while away'])
  assert.equal(h.fake.connections(), 3)
  assert.equal(h.lost.length, 0)
  const opens = h.fake.requests.filter((r) => r.method === 'apps.connections.open')
  assert.equal(opens.length, 3, 'a new URL for every connection')
  assert.ok(h.log.lines.includes('info: Slack asked for a new Socket Mode connection (refresh_requested)'), h.log.lines.join('\n'))
  assert.ok(h.log.lines.filter((l) => l === 'info: the Slack Socket Mode connection is back').length === 2)
})

test('handed to the gateway: Socket Mode turned off (configuration), or down longer than the watchdog', async (t) => {
  await t.test('link_disabled', async (st) => {
    const h = await harness(st)
    await h.start()
    h.fake.disconnect('link_disabled')
    assert.ok(await h.fake.until(() => h.lost.length === 1, 10_000), `no connectionLost; log:\n${h.log.lines.join('\n')}`)
    assert.ok(isConfigError(h.lost[0]!.error))
    assert.match(h.log.lines.join('\n'), /error: Slack connection stopped: Slack turned Socket Mode off for this app/)
  })
  await t.test('watchdog', async (st) => {
    const h = await harness(st, { extra: { reconnect_watchdog_seconds: 1 } })
    await h.start()
    h.fake.refuseOpens(100)
    h.fake.drop()
    assert.ok(await h.fake.until(() => h.lost.length === 1, 10_000), `no connectionLost; log:\n${h.log.lines.join('\n')}`)
    assert.equal(h.lost[0]!.adapter, 'slack')
    assert.match(String((h.lost[0]!.error as Error).message), /did not come back within 1 s/)
    assert.ok(!isConfigError(h.lost[0]!.error))
    await h.adapter.stop()
    const opens = h.fake.requests.length
    await sleep(1500)
    assert.equal(h.fake.requests.length, opens, 'stopped: no reconnect loop left behind')
  })
})

test('stop while connecting ends the attempt; stop is idempotent', async (t) => {
  const h = await harness(t, { extra: { connect_timeout_seconds: 30 } })
  h.fake.refuseOpens(1)
  const controller = new AbortController()
  const starting = h.adapter.start({ ...h.context(), signal: controller.signal }).then(() => undefined, (e) => e)
  await sleep(100)
  controller.abort()
  const error = await starting
  assert.ok(AgentError.isInstance(error) && ['E_INTERRUPTED', 'E_NETWORK'].includes(error.code), String(error))
  await h.adapter.stop()
  await h.adapter.stop()
  const requests = h.fake.requests.length
  await sleep(1000)
  assert.equal(h.fake.requests.length, requests)
  assert.equal(h.fake.isConnected(), false)
})
