// In-process harness for the Home Assistant adapter: a real test kernel (gateway, gateway-auth,
// delivery, state-db, smart-home) with a recording runtime, a loopback fake Home Assistant, and the
// adapter started with a logger that records every line exactly as written (nothing redacted).

import type { TestContext } from 'node:test'
import { type AdapterContext, type ExtensionDefinition, type GatewayAdapter, type Logger } from '../../../sdk/index.ts'
import { adapterContext, createTestKernel, recordingLog, recordingRuntime as sharedRecordingRuntime, runInputs, stopWhenTestEnds, type RecordingRuntimeHarness } from '../../../sdk/testing/index.ts'
import { startFakeHomeAssistant, type FakeHomeAssistant } from './fake-home-assistant.ts'

export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'smart-home']

/** The shared runtime stand-in, answering `answer <n>: <input>`. */
export function recordingRuntime(delayMs = 0) {
  return sharedRecordingRuntime({ delayMs, answer: (input, n) => `answer ${n}: ${input}` })
}

export interface Harness extends RecordingRuntimeHarness {
  ha: FakeHomeAssistant
  log: Logger
}

export interface HarnessOptions {
  extra?: Record<string, unknown>
  env?: Record<string, string | undefined>
  /** Let events through gateway-auth with HOMEASSISTANT_GROUP_ALLOWED_USERS (default true). */
  allow?: boolean
  runtimeDelayMs?: number
  builtins?: string[]
  extensions?: ExtensionDefinition<any>[]
  ha?: FakeHomeAssistant
  token?: string
  /** platforms.homeassistant.enabled (default true). */
  enabled?: boolean
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const ha = options.ha ?? (await startFakeHomeAssistant())
  if (!options.ha) t.after(() => ha.close())
  const runtime = recordingRuntime(options.runtimeDelayMs)
  const k = await createTestKernel({
    builtins: options.builtins ?? CORE,
    extensions: [runtime.definition, ...(options.extensions ?? [])],
    config: { platforms: { homeassistant: { enabled: options.enabled ?? true, extra: { ping_interval_seconds: 0, ...options.extra } } } },
    env: {
      HASS_URL: ha.url,
      HASS_TOKEN: options.token ?? ha.token,
      WEBHOOK_PORT: '0',
      API_SERVER_PORT: '0',
      ...(options.allow === false ? {} : { HOMEASSISTANT_GROUP_ALLOWED_USERS: 'homeassistant' }),
      ...options.env,
    },
  })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('homeassistant') as GatewayAdapter | undefined
  if (!adapter) throw new Error(`the homeassistant adapter is not registered: ${JSON.stringify(k.kernel.extensions().filter((e) => e.state !== 'loaded'))}`)
  const log = recordingLog()
  const { lines } = log
  const controller = new AbortController()
  const context = (): AdapterContext => adapterContext(k, { log, signal: controller.signal })
  return {
    ha,
    k,
    adapter,
    runs: runtime.runs,
    lines,
    log,
    context,
    async start() {
      await adapter.start(context())
      stopWhenTestEnds(t, adapter, controller)
    },
    inputs: () => runInputs(runtime.runs),
  }
}

export { until } from '../../helpers/until.ts'
