// The real `homeassistant` adapter against a loopback fake Home Assistant, dispatching into a real
// gateway (authorisation, per-chat queue, delivery back through the adapter): filters, the no-filter
// warning, cooldown, auth_invalid as a configuration error without retries, reconnects after a drop
// and after a silent connection, the queue bound, notifications outside a running gateway.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { AgentError, DELIVERY_SERVICE, defineExtension, GATEWAY_AUTH_SERVICE, type DeliveryService, type GatewayAuthService } from '../../../sdk/index.ts'
import { adapterConformance } from '../../../sdk/testing/index.ts'
import { startFakeHomeAssistant } from './fake-home-assistant.ts'
import { CORE, harness, until } from './harness.ts'

const notifications = (h: { ha: { serviceCalls: Array<{ domain: string; service: string; service_data?: Record<string, unknown> }> } }) =>
  h.ha.serviceCalls.filter((c) => c.domain === 'persistent_notification' && c.service === 'create').map((c) => c.service_data!)

test('adapter conformance', async (t) => {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  await adapterConformance(t, {
    adapter: 'homeassistant',
    enabled: async (st) => (await harness(st, { ha, extra: { watch_all: true } })).k,
    disabled: async (st) => (await harness(st, { ha, enabled: false })).k,
  })
  await until(() => ha.connections() === 0, 5_000, 'every connection closed by stop()')
})

test('watch_domains and watch_entities let their events through; others, attribute-only and new entities are dropped; the answer becomes a notification', async (t) => {
  const h = await harness(t, { extra: { watch_domains: ['light'], watch_entities: ['binary_sensor.front_door'], ignore_entities: ['light.porch'] } })
  for (const [id, state] of [['light.kitchen', 'off'], ['light.porch', 'off'], ['switch.fan', 'off'], ['binary_sensor.front_door', 'off'], ['binary_sensor.back_door', 'off'], ['sensor.temp', '20']] as const) h.ha.setState(id, state, { friendly_name: id.split('.')[1] })
  await h.start()
  assert.equal(h.ha.subscriptions(), 1)
  assert.ok(h.lines.some((l) => /^info: watching light\.\*, binary_sensor\.front_door \(ignoring light\.porch\); cooldown 30 s/.test(l)), h.lines.join('\n'))

  h.ha.change('switch.fan', 'on')
  h.ha.change('binary_sensor.back_door', 'on')
  h.ha.change('sensor.temp', '21')
  h.ha.change('light.porch', 'on')
  h.ha.change('light.kitchen', 'off', { friendly_name: 'kitchen', brightness: 0 }) // attribute-only
  h.ha.change('light.garage', 'on') // a new entity: no old state
  h.ha.change('light.kitchen', 'on', { friendly_name: 'Kitchen', brightness: 180 })
  h.ha.change('binary_sensor.front_door', 'on', { friendly_name: 'Front door', device_class: 'door' })
  await until(() => notifications(h).length === 2, 5_000, 'two notifications')
  await sleep(200)
  assert.deepEqual(h.inputs(), [
    '[Home Assistant] Kitchen (light.kitchen) changed from off to on. Attributes: brightness=180.',
    '[Home Assistant] Front door (binary_sensor.front_door) changed from off to on. Attributes: device_class=door.',
  ])
  assert.deepEqual(h.runs.map((r) => r.source), [{ platform: 'homeassistant', userId: 'homeassistant', chatId: 'ha_events' }, { platform: 'homeassistant', userId: 'homeassistant', chatId: 'ha_events' }])
  assert.deepEqual(h.runs.map((r) => r.sessionId), [undefined, 's1'], 'one session for the event chat')
  assert.deepEqual(notifications(h), [
    { title: 'Agent', message: `answer 1: ${h.inputs()[0]}` },
    { title: 'Agent', message: `answer 2: ${h.inputs()[1]}` },
  ])
})

test('watch_all lets every entity through except ignore_entities', async (t) => {
  const h = await harness(t, { extra: { watch_all: true, ignore_entities: ['sensor.noisy'], notification_title: 'Home agent' } })
  h.ha.setState('sensor.noisy', '1')
  h.ha.setState('vacuum.robo', 'docked')
  h.ha.setState('lock.front', 'locked')
  await h.start()
  h.ha.change('sensor.noisy', '2')
  h.ha.change('vacuum.robo', 'cleaning')
  h.ha.change('lock.front', 'unlocked')
  await until(() => notifications(h).length === 2, 5_000, 'two notifications')
  await sleep(200)
  assert.deepEqual(h.inputs(), ['[Home Assistant] vacuum.robo changed from docked to cleaning.', '[Home Assistant] lock.front changed from locked to unlocked.'])
  assert.equal(notifications(h)[0]!.title, 'Home agent')
})

test('no filter: a warning at connect time, no subscription, nothing dispatched', async (t) => {
  const h = await harness(t, { extra: {} })
  h.ha.setState('light.kitchen', 'off')
  await h.start()
  assert.ok(h.lines.some((l) => l.startsWith('warn: no event filter configured (platforms.homeassistant.extra.watch_domains, watch_entities or watch_all)')), h.lines.join('\n'))
  assert.equal(h.ha.connections(), 1, 'connected (notifications still work)')
  assert.equal(h.ha.subscriptions(), 0)
  assert.equal(h.ha.change('light.kitchen', 'on'), 0)
  await sleep(300)
  assert.equal(h.runs.length, 0)
})

test('cooldown: a burst of one entity starts one run at once and one folded run at the window end', async (t) => {
  const h = await harness(t, { extra: { watch_domains: ['sensor', 'binary_sensor'], cooldown_seconds: 0.4 } })
  h.ha.setState('sensor.temp', '20', { unit_of_measurement: '°C' })
  h.ha.setState('binary_sensor.motion', 'off')
  await h.start()
  for (const value of ['21', '22', '23', '24', '25']) h.ha.change('sensor.temp', value)
  for (const value of ['on', 'off', 'on']) h.ha.change('binary_sensor.motion', value)
  await until(() => h.runs.length >= 2, 5_000, 'the first runs')
  assert.deepEqual(h.inputs().sort(), ['[Home Assistant] binary_sensor.motion changed from off to on.', '[Home Assistant] sensor.temp changed from 20 °C to 21 °C.'])
  await until(() => h.runs.length >= 3, 5_000, 'the folded run')
  await sleep(600)
  assert.equal(h.runs.length, 3, `runs: ${JSON.stringify(h.inputs())}`)
  assert.equal(h.inputs()[2], '[Home Assistant] sensor.temp changed from 21 °C to 25 °C. (4 changes within 0.4 s; the latest state is shown.)')
  assert.ok(h.lines.some((l) => /binary_sensor\.motion: 2 changes returned to the reported state/.test(l)), 'the motion sensor flapped back: nothing more sent')
})

test('a bad token: auth_invalid is a one-line configuration error, tried once, without the token', async (t) => {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  const wrong = 'wrong-token-0123456789abcdef'
  const h = await harness(t, { ha, token: wrong, extra: { watch_all: true } })
  const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
  assert.ok(AgentError.isInstance(error) && error.code === 'E_CONFIG', `a ConfigError (fatal for the gateway), got ${error}`)
  assert.equal(error.message, `Home Assistant at ${ha.url} rejected HASS_TOKEN (auth_invalid: Invalid access token or password)`)
  await sleep(1_500)
  assert.equal(ha.authAttempts, 1, 'no retry loop')
  assert.equal(ha.connections(), 0)
  const everything = [error.message, String(error.stack), ...h.lines].join('\n')
  assert.ok(!everything.includes(wrong) && !everything.includes(ha.token))
})

test('an unreachable Home Assistant is a retryable error naming the address', async (t) => {
  const ha = await startFakeHomeAssistant()
  const url = ha.url
  await ha.close()
  const h = await harness(t, { env: { HASS_URL: url, HASS_TOKEN: 'tok-123456789' }, extra: { watch_all: true } })
  const error = await h.adapter.start(h.context()).then(() => undefined, (e) => e)
  assert.ok(AgentError.isInstance(error) && error.code !== 'E_CONFIG', `retryable, got ${error}`)
  assert.match(error.message, new RegExp(`^cannot connect to Home Assistant at ${url.replace('http', 'ws')}/api/websocket: .*ECONNREFUSED`))
})

test('a dropped connection reconnects, resubscribes and keeps receiving', async (t) => {
  const h = await harness(t, { extra: { watch_domains: ['light'] } })
  h.ha.setState('light.kitchen', 'off')
  await h.start()
  h.ha.dropConnections()
  await until(() => h.lines.some((l) => l === 'warn: connection to Home Assistant lost; reconnecting'), 5_000, 'the lost-connection warning')
  await until(() => h.ha.connections() === 1 && h.ha.subscriptions() === 1, 10_000, 'a new subscription')
  assert.ok(h.lines.some((l) => l.startsWith('info: reconnected to Home Assistant')))
  h.ha.change('light.kitchen', 'on')
  await until(() => notifications(h).length === 1, 5_000, 'the notification after the reconnect')
  assert.equal(h.inputs()[0], '[Home Assistant] light.kitchen changed from off to on.')
})

test('a silent connection (no pong) is dropped and replaced', async (t) => {
  const h = await harness(t, { extra: { watch_domains: ['light'], ping_interval_seconds: 0.2 } })
  h.ha.setState('light.kitchen', 'off')
  await h.start()
  h.ha.silencePings(true)
  await until(() => h.lines.some((l) => l.startsWith('warn: no pong from Home Assistant')), 5_000, 'the watchdog')
  h.ha.silencePings(false)
  await until(() => h.ha.connections() === 1 && h.ha.subscriptions() === 1 && h.lines.some((l) => l.startsWith('info: reconnected')), 10_000, 'a new subscription')
  h.ha.change('light.kitchen', 'on')
  await until(() => h.runs.length === 1, 5_000, 'the run after the reconnect')
})

test('a token revoked while running ends the reconnect loop and is reported to the gateway', async (t) => {
  const h = await harness(t, { extra: { watch_all: true } })
  await h.start()
  h.ha.rotateToken('a-new-token-nobody-has')
  h.ha.dropConnections()
  await until(() => h.lines.some((l) => l.includes('rejected HASS_TOKEN while reconnecting')), 10_000, 'the auth error')
  const attempts = h.ha.authAttempts
  await sleep(1_500)
  assert.equal(h.ha.authAttempts, attempts, 'the library stopped reconnecting')
})

test('events the gateway denies are dropped with one warning that names the fix', async (t) => {
  const denyAll = defineExtension({
    name: 'deny-all-auth',
    setup(api) {
      api.services.provide<Partial<GatewayAuthService>>(GATEWAY_AUTH_SERVICE, { authorize: async () => ({ allowed: false, reason: 'test', action: 'ignore' }) })
    },
  })
  const h = await harness(t, { builtins: CORE.filter((b) => b !== 'gateway-auth'), extensions: [denyAll], extra: { watch_all: true, cooldown_seconds: 0 } })
  h.ha.setState('light.a', 'off')
  await h.start()
  h.ha.change('light.a', 'on')
  h.ha.change('light.a', 'off')
  await until(() => h.lines.some((l) => l.startsWith('warn: the gateway denied Home Assistant events')), 5_000, 'the warning')
  await sleep(200)
  assert.equal(h.lines.filter((l) => l.includes('denied Home Assistant events')).length, 1)
  assert.equal(h.runs.length, 0)
})

test('events waiting for the agent are bounded (max_queued_events); the rest are dropped with a warning', async (t) => {
  const h = await harness(t, { runtimeDelayMs: 400, extra: { watch_all: true, cooldown_seconds: 0, max_queued_events: 2 } })
  for (let i = 0; i < 5; i++) h.ha.setState(`light.l${i}`, 'off')
  await h.start()
  for (let i = 0; i < 5; i++) h.ha.change(`light.l${i}`, 'on')
  await until(() => h.lines.some((l) => /^warn: 2 Home Assistant events are waiting for the agent; dropped 1 more/.test(l)), 5_000, 'the warning')
  await until(() => notifications(h).length === 2, 5_000, 'two answers')
  await sleep(300)
  assert.equal(h.runs.length, 2)
})

test('send() and delivery to homeassistant work outside a running gateway; refusals are one-line errors', async (t) => {
  const h = await harness(t, { extra: { notification_title: 'Cron' } })
  await h.adapter.send!('ha_events', 'Daily report: all quiet.')
  assert.deepEqual(notifications(h), [{ title: 'Cron', message: 'Daily report: all quiet.' }])
  const delivery = h.k.kernel.services.get<DeliveryService>(DELIVERY_SERVICE)!
  const receipt = await delivery.send(delivery.parse('homeassistant:ha_events'), 'Second report')
  assert.equal(receipt.description, 'homeassistant:ha_events')
  assert.equal(notifications(h).at(-1)!.message, 'Second report')
  // A bare platform target needs neither a chat id nor a home channel: the adapter's default chat.
  const bare = await delivery.send(delivery.parse('homeassistant'), 'Third report')
  assert.equal(bare.description, 'homeassistant:ha_events')
  assert.equal(notifications(h).at(-1)!.message, 'Third report')
  assert.equal(h.ha.connections(), 1, 'one on-demand connection, reused')

  h.ha.failService('persistent_notification', 'create', { code: 'home_assistant_error', message: 'Notifications are off' })
  await assert.rejects(h.adapter.send!('ha_events', 'x'), (e: any) => e.message === 'Home Assistant refused persistent_notification.create: Notifications are off (home_assistant_error)')
})

test('tools: ha_get_state reads entities and domains; ha_call_service calls services and refuses dangerous ones', async (t) => {
  const h = await harness(t)
  h.ha.setState('light.kitchen', 'on', { friendly_name: 'Kitchen', brightness: 120 })
  h.ha.setState('light.hall', 'off', { friendly_name: 'Hall' })
  h.ha.setState('sensor.temp', '21', { unit_of_measurement: '°C' })
  const tool = (name: string) => h.k.kernel.registries.tools.get(name)!
  const run = (name: string, input: unknown) => tool(name).execute({ input, callId: 'c1', signal: new AbortController().signal, session: { id: 's', cwd: h.k.home } })
  assert.equal(tool('ha_get_state').toolset, 'homeassistant')
  assert.equal(tool('ha_get_state').available!(h.k.kernel.settings), true)

  assert.deepEqual(await run('ha_get_state', {}), { domains: { light: 2, sensor: 1 } })
  assert.deepEqual(await run('ha_get_state', { domain: 'light' }), { domain: 'light', count: 2, entities: [{ entity_id: 'light.kitchen', state: 'on', name: 'Kitchen' }, { entity_id: 'light.hall', state: 'off', name: 'Hall' }] })
  const kitchen = (await run('ha_get_state', { entity_id: 'light.kitchen' })) as any
  assert.equal(kitchen.state, 'on')
  assert.equal(kitchen.attributes.brightness, 120)
  await assert.rejects(run('ha_get_state', { entity_id: 'light.nowhere' }), /no entity "light\.nowhere"/)

  assert.deepEqual(await run('ha_call_service', { domain: 'light', service: 'turn_on', entity_id: 'light.hall', data: { brightness_pct: 40 } }), { ok: true, called: 'light.turn_on', entity_id: ['light.hall'] })
  assert.deepEqual(h.ha.serviceCalls.at(-1), { domain: 'light', service: 'turn_on', service_data: { brightness_pct: 40 }, target: { entity_id: ['light.hall'] }, return_response: undefined })
  const calls = h.ha.serviceCalls.length
  await assert.rejects(run('ha_call_service', { domain: 'shell_command', service: 'wipe' }), (e: any) => e.code === 'E_BLOCKED')
  await assert.rejects(run('ha_call_service', { domain: 'homeassistant', service: 'restart' }), (e: any) => e.code === 'E_BLOCKED')
  await assert.rejects(run('ha_call_service', { domain: 'light', service: 'turn_on', entity_id: 'kitchen; rm' }), (e: any) => e.code === 'E_USAGE')
  await assert.rejects(run('ha_call_service', { domain: 'Light', service: 'turn_on' }), (e: any) => e.code === 'E_USAGE')
  assert.equal(h.ha.serviceCalls.length, calls, 'refused calls never reach Home Assistant')
})

test('tools are unavailable without HASS_TOKEN', async (t) => {
  const h = await harness(t, { env: { HASS_TOKEN: undefined } })
  assert.match(String(h.k.kernel.registries.tools.get('ha_call_service')!.available!(h.k.kernel.settings)), /HASS_TOKEN/)
})
