// Against a running `agent gateway run` (real runtime, scripted model, real gateway lifecycle): a
// state change inside the filter starts an agent run whose answer arrives at the fake Home Assistant
// as persistent_notification.create; other events start nothing; a burst starts one run; a dropped
// connection is restored; a token revoked later fails the adapter without a retry loop; a bad token at
// start makes `gateway run` exit 2 with one line; no filter is a warning; the token never reaches the log.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { startAgent, type RunningAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeHomeAssistant, type FakeHomeAssistant } from './fake-home-assistant.ts'
import { until } from './harness.ts'
import { scriptedModelEnv } from '../../helpers/model-env.ts'

interface Running {
  agent: RunningAgent
  model: ScriptedModelServer
  /** The last user message of each model call. */
  prompts(): string[]
}

async function gatewayRun(t: TestContext, ha: FakeHomeAssistant, extra: Record<string, unknown>, env: Record<string, string> = {}): Promise<RunningAgent & { model: ScriptedModelServer; prompts(): string[] }> {
  const home = tempDir(t)
  const model = await startScriptedModel({ respond: (body) => ({ text: `Noted: ${String(body.messages.at(-1)?.content ?? '').slice(0, 80)}` }) })
  t.after(() => model.close())
  writeFileSync(
    join(home, 'config.yaml'),
    YAML.stringify({
      _config_version: 10,
      platforms: { homeassistant: { enabled: true, extra } },
      gateway: { reconnect: { initial_ms: 200, max_ms: 1000 } },
    }),
  )
  const agent = startAgent(['gateway', 'run'], {
    home,
    logLevel: 'debug',
    env: {
      HASS_URL: ha.url,
      HASS_TOKEN: ha.token,
      HOMEASSISTANT_GROUP_ALLOWED_USERS: 'homeassistant',
      ...scriptedModelEnv(model),
      ...env,
    },
  })
  t.after(() => agent.stop('SIGKILL'))
  const prompts = () =>
    model.requests
      .filter((r) => r.path.endsWith('/chat/completions'))
      .map((r) => (r.body?.messages ?? []).filter((m: any) => m.role === 'user').at(-1)?.content)
      .map((c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c)))
  return Object.assign(agent, { model, prompts })
}

const notifications = (ha: FakeHomeAssistant) => ha.serviceCalls.filter((c) => c.domain === 'persistent_notification' && c.service === 'create').map((c) => c.service_data as { title: string; message: string })

test('gateway run: filtered events run the agent, answers become notifications, reconnects, a revoked token fails once', async (t) => {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  ha.setState('light.kitchen', 'off', { friendly_name: 'Kitchen' })
  ha.setState('switch.fan', 'off')
  ha.setState('binary_sensor.front_door', 'off', { friendly_name: 'Front door', device_class: 'door' })
  const token = ha.token
  const gw = await gatewayRun(t, ha, { watch_domains: ['light'], watch_entities: ['binary_sensor.front_door'] })
  await gw.waitFor(/gateway running \(adapters: [^)]*homeassistant/, 30_000)
  await until(() => ha.subscriptions() === 1, 5_000, 'the subscription')

  await t.test('an event outside the filter starts nothing', async () => {
    ha.change('switch.fan', 'on')
    await sleep(500)
    assert.equal(gw.prompts().length, 0)
  })

  await t.test('a passing event runs the agent; its answer arrives as persistent_notification.create', async () => {
    ha.change('light.kitchen', 'on', { friendly_name: 'Kitchen', brightness: 200 })
    await until(() => notifications(ha).length === 1, 20_000, () => `the notification; stderr: ${gw.stderr().slice(-3000)}`)
    assert.match(gw.prompts()[0]!, /\[Home Assistant\] Kitchen \(light\.kitchen\) changed from off to on\. Attributes: brightness=200\./)
    assert.equal(notifications(ha)[0]!.title, 'Agent')
    assert.match(notifications(ha)[0]!.message, /^Noted: .*Kitchen/)
  })

  await t.test('a burst of one entity starts one run (default cooldown 30 s)', async () => {
    const before = gw.prompts().length
    for (const state of ['on', 'off', 'on', 'off', 'on']) ha.change('binary_sensor.front_door', state)
    await until(() => notifications(ha).length === 2, 20_000, 'the door notification')
    await sleep(1_000)
    assert.equal(gw.prompts().length, before + 1)
    assert.match(gw.prompts().at(-1)!, /Front door \(binary_sensor\.front_door\) changed from off to on/)
  })

  await t.test('a dropped connection is restored and events keep coming', async () => {
    ha.dropConnections()
    await gw.waitFor(/connection to Home Assistant lost; reconnecting/, 5_000)
    await until(() => ha.connections() === 1 && ha.subscriptions() === 1, 10_000, 'a new subscription')
    ha.change('light.hall', 'off')
    ha.change('light.hall', 'on', { friendly_name: 'Hall' })
    await until(() => notifications(ha).length === 3, 20_000, () => `the hall notification; stderr: ${gw.stderr().slice(-4000)}`)
    assert.match(gw.prompts().at(-1)!, /Hall \(light\.hall\) changed from off to on/)
  })

  await t.test('a token revoked while running: the adapter fails once, no retry loop', async () => {
    ha.rotateToken('rotated-token-abcdef123456')
    ha.dropConnections()
    await gw.waitFor(/adapter "homeassistant" cannot start: Home Assistant at \S+ rejected HASS_TOKEN \(auth_invalid: Invalid access token or password\)/, 15_000)
    const attempts = ha.authAttempts
    await sleep(2_000)
    assert.equal(ha.authAttempts, attempts, 'no more attempts')
  })

  await t.test('SIGINT stops cleanly; the token is nowhere in the output', async () => {
    assert.equal(await gw.stop('SIGINT'), 0)
    const output = gw.stderr() + gw.stdout()
    assert.match(output, /\[smart-home\]|homeassistant/)
    assert.ok(!output.includes(token), 'the token does not appear')
  })
})

test('gateway run: a bad token exits 2 with one line, after one attempt, without the token', async (t) => {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  const wrong = 'definitely-wrong-token-123456'
  const gw = await gatewayRun(t, ha, { watch_all: true }, { HASS_TOKEN: wrong })
  const code = await new Promise<number | null>((resolve) => (gw.child.exitCode !== null ? resolve(gw.child.exitCode) : gw.child.on('close', resolve)))
  assert.equal(code, 2, gw.stderr())
  const lines = gw.stderr().split('\n').filter((l) => l.startsWith('agent: '))
  assert.deepEqual(lines, [`agent: adapter "homeassistant" cannot start: Home Assistant at ${ha.url} rejected HASS_TOKEN (auth_invalid: Invalid access token or password)`])
  assert.equal(ha.authAttempts, 1)
  assert.ok(!(gw.stderr() + gw.stdout()).includes(wrong))
})

test('gateway run: no filter is a warning at connect time and nothing runs', async (t) => {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  ha.setState('light.kitchen', 'off')
  const gw = await gatewayRun(t, ha, {})
  await gw.waitFor(/warn: \[homeassistant\] no event filter configured \(platforms\.homeassistant\.extra\.watch_domains, watch_entities or watch_all\): every state change is dropped/, 30_000)
  await gw.waitFor(/gateway running/, 10_000)
  assert.equal(ha.subscriptions(), 0)
  ha.change('light.kitchen', 'on')
  await sleep(500)
  assert.equal(gw.prompts().length, 0)
  assert.equal(await gw.stop('SIGINT'), 0)
})
