// In-process harness for the matrix adapter: a real test kernel (http, gateway, gateway-auth,
// delivery, state-db, matrix) with a recording runtime, a loopback fake homeserver, and the adapter
// started with a logger that records every line exactly as written.

import type { TestContext } from 'node:test'
import { type AdapterContext, type GatewayAdapter } from '../../../sdk/index.ts'
import { adapterContext, createTestKernel, recordingLog, recordingRuntime as sharedRecordingRuntime, runInputs, stopWhenTestEnds, type RecordingRuntimeHarness } from '../../../sdk/testing/index.ts'
import { startFakeHomeserver, type FakeHomeserver } from './fake-homeserver.ts'

export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'matrix']
export const ALICE = '@alice:fake.test'
export const BOB = '@bob:fake.test'
export const MALLORY = '@mallory:fake.test'

/** The shared runtime stand-in, answering in markdown by default. */
export function recordingRuntime(answer: (input: string) => string = (input) => `**Answer** to: ${input}`) {
  return sharedRecordingRuntime({ answer })
}

export interface Harness extends RecordingRuntimeHarness {
  hs: FakeHomeserver
}

export interface HarnessOptions {
  env?: Record<string, string | undefined>
  extra?: Record<string, unknown>
  hs?: FakeHomeserver
  answer?: (input: string) => string
  config?: Record<string, unknown>
  /** Built-ins loaded besides CORE (`stt` for voice messages). */
  builtins?: string[]
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const hs = options.hs ?? (await startFakeHomeserver())
  if (!options.hs) t.after(() => hs.close())
  const runtime = recordingRuntime(options.answer)
  const k = await createTestKernel({
    builtins: [...CORE, ...(options.builtins ?? [])],
    extensions: [runtime.definition],
    config: {
      platforms: { matrix: { enabled: true, extra: { sync_timeout_ms: 2000, start_timeout_ms: 10_000, ...options.extra } } },
      // Typing shows, then the gateway waits a human-like pause: kept short here.
      gateway: { human_delay: { min_ms: 10, max_ms: 20 } },
      ...options.config,
    },
    env: {
      MATRIX_HOMESERVER: hs.url,
      MATRIX_ACCESS_TOKEN: hs.token,
      MATRIX_ALLOWED_USERS: ALICE,
      MATRIX_GROUP_ALLOWED_USERS: `${ALICE},${BOB}`,
      WEBHOOK_PORT: '0',
      API_SERVER_PORT: '0',
      ...options.env,
    },
  })
  t.after(() => k.close())
  const adapter = k.kernel.registries.adapters.get('matrix') as GatewayAdapter | undefined
  if (!adapter) throw new Error(`the matrix adapter is not registered: ${JSON.stringify(k.kernel.extensions().filter((e) => e.state !== 'loaded'))}`)
  const log = recordingLog()
  const { lines } = log
  const controller = new AbortController()
  const context = (): AdapterContext => adapterContext(k, { log, signal: controller.signal })
  return {
    hs,
    k,
    adapter,
    runs: runtime.runs,
    lines,
    context,
    async start() {
      stopWhenTestEnds(t, adapter, controller)
      await adapter.start(context())
    },
    inputs: () => runInputs(runtime.runs),
  }
}

export { until } from '../../helpers/until.ts'
