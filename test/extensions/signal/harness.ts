// In-process harness for the signal adapter: a real test kernel (gateway, gateway-auth, delivery,
// state-db, signal) with a recording runtime, a loopback fake signal-cli daemon, and the adapter
// started with a logger that keeps every line.

import type { TestContext } from 'node:test'
import { type AdapterContext, type GatewayAdapter } from '../../../sdk/index.ts'
import { adapterContext, createTestKernel, recordingLog, recordingRuntime, runInputs, stopWhenTestEnds, type RecordingRuntimeHarness } from '../../../sdk/testing/index.ts'
import { ACCOUNT, ALICE, startFakeDaemon, type FakeDaemon } from './fake-daemon.ts'

export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'signal']

export interface Harness extends RecordingRuntimeHarness {
  daemon: FakeDaemon
}

export interface HarnessOptions {
  env?: Record<string, string | undefined>
  extra?: Record<string, unknown>
  config?: Record<string, unknown>
  daemon?: FakeDaemon
  /** Built-ins loaded besides CORE (`stt` for voice notes). */
  builtins?: string[]
}

/** The fast-moving settings tests use: short reconnect delays, a short silence limit. */
export const FAST = { reconnect_initial_ms: 50, reconnect_max_ms: 200, stale_after_seconds: 600 }

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const daemon = options.daemon ?? (await startFakeDaemon())
  if (!options.daemon) t.after(() => daemon.close())
  const runtime = recordingRuntime({ answer: (input) => `**Answer** to: ${input}` })
  const k = await createTestKernel({
    builtins: [...CORE, ...(options.builtins ?? [])],
    extensions: [runtime.definition],
    config: {
      platforms: { signal: { enabled: true, extra: { ...FAST, ...options.extra } } },
      gateway: { human_delay: { min_ms: 1, max_ms: 2 } },
      ...options.config,
    },
    env: { SIGNAL_HTTP_URL: daemon.url, SIGNAL_ACCOUNT: ACCOUNT, SIGNAL_ALLOWED_USERS: ALICE, WEBHOOK_PORT: '0', API_SERVER_PORT: '0', ...options.env },
  })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('signal') as GatewayAdapter | undefined
  if (!adapter) throw new Error(`the signal adapter is not registered: ${JSON.stringify(k.kernel.extensions().filter((e) => e.state !== 'loaded'))}`)
  const log = recordingLog()
  const controller = new AbortController()
  const context = (): AdapterContext => adapterContext(k, { log, signal: controller.signal })
  return {
    daemon,
    k,
    adapter,
    runs: runtime.runs,
    lines: log.lines,
    context,
    async start() {
      stopWhenTestEnds(t, adapter, controller)
      await adapter.start(context())
    },
    inputs: () => runInputs(runtime.runs),
  }
}

export { until } from '../../helpers/until.ts'
