// No Home Assistant event lost (home-assistant-js-websocket against the loopback fake, the adapter
// under the real gateway lifecycle): the conformance cases with dropped connections (the library
// reconnects; a change missed meanwhile is read back from the states), and coalesced frames (several
// messages in one JSON array frame) handled message by message.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ExtensionDefinition } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel, recordingRuntime, runGateway } from '../../../sdk/testing/index.ts'
import { until } from '../../helpers/until.ts'
import { tempDir } from '../../helpers/temp.ts'
import { startFakeHomeAssistant, type FakeHomeAssistant } from './fake-home-assistant.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'smart-home']
const PROBE = 'sensor.probe'

function kernelFor(ha: FakeHomeAssistant, home: string, extensions: ExtensionDefinition[]) {
  return createTestKernel({
    home,
    builtins: CORE,
    extensions,
    env: { HASS_URL: ha.url, HASS_TOKEN: ha.token, HOMEASSISTANT_GROUP_ALLOWED_USERS: 'homeassistant', WEBHOOK_PORT: '0', API_SERVER_PORT: '0' },
    config: {
      platforms: { homeassistant: { enabled: true, extra: { ping_interval_seconds: 0, cooldown_seconds: 0, watch_domains: ['sensor'] } } },
      gateway: { reconnect: { initial_ms: 100, max_ms: 500 } },
    },
    kernel: { logLevel: 'info', logSink: { write() {} } },
  })
}

async function fakeHa(t: TestContext): Promise<FakeHomeAssistant> {
  const ha = await startFakeHomeAssistant()
  t.after(() => ha.close())
  ha.setState(PROBE, 'initial')
  return ha
}

/** The notifications the agent created, each `echo: <the new state>` (the state read out of the event's description). */
function said(ha: FakeHomeAssistant): string[] {
  return ha.serviceCalls
    .filter((c) => c.domain === 'persistent_notification' && c.service === 'create')
    .map((c) => String(c.service_data?.message ?? ''))
    .map((text) => {
      const state = /^echo: \[Home Assistant\] \S+ changed from .* to (.*)\.$/.exec(text)?.[1]
      if (state === undefined) return text
      return `echo: ${state.startsWith('"') ? (JSON.parse(state) as string) : state}`
    })
}

test('Home Assistant conformance: no event lost across dropped connections and restarts', async (t) => {
  const ha = await fakeHa(t)
  const env = { HASS_URL: ha.url, HASS_TOKEN: ha.token }
  await adapterConformance(t, {
    adapter: 'homeassistant',
    enabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { homeassistant: { enabled: true, extra: { ping_interval_seconds: 0 } } } } }),
    disabled: () => createTestKernel({ builtins: CORE, env, config: { platforms: { homeassistant: { enabled: false } } } }),
    continuity: {
      kernel: ({ home, extensions }) => kernelFor(ha, home, extensions),
      say: (text) => void ha.change(PROBE, text),
      said: () => said(ha),
      drop: () => ha.dropConnections(),
      // Home Assistant keeps states, not the events of a gateway that was down.
      keepsHistory: false,
    },
  })
})

test('coalesced frames: several events in one array frame are each handled, and answered once', async (t) => {
  const ha = await fakeHa(t)
  ha.setState('sensor.door', 'closed')
  const runtime = recordingRuntime()
  const k = await kernelFor(ha, tempDir(t), [runtime.definition])
  t.after(() => k.close())
  const gateway = await runGateway(k)
  t.after(() => gateway.stop())
  const before = ha.coalescedFrames()
  // In one turn of the fake's loop: sent as one frame.
  ha.change(PROBE, 'first')
  ha.change('sensor.door', 'open')
  await until(() => said(ha).length === 2, 10_000, () => JSON.stringify(said(ha)))
  assert.ok(ha.coalescedFrames() > before, 'the two events came in one coalesced frame')
  assert.deepEqual(said(ha).sort(), ['echo: first', 'echo: open'])
  await sleep(300)
  assert.equal(runtime.runs.length, 2)
})
