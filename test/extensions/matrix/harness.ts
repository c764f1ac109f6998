// In-process harness for the matrix adapter: a real test kernel (http, gateway, gateway-auth,
// delivery, state-db, matrix) with a recording runtime, a loopback fake homeserver, and the adapter
// started with a logger that records every line exactly as written.

import type { TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { defineExtension, type AdapterContext, type GatewayAdapter, type Logger, type RunRequest } from '../../../sdk/index.ts'
import { createTestKernel, type TestKernel } from '../../../sdk/testing/index.ts'
import { startFakeHomeserver, type FakeHomeserver } from './fake-homeserver.ts'

export const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'matrix']
export const ALICE = '@alice:fake.test'
export const BOB = '@bob:fake.test'
export const MALLORY = '@mallory:fake.test'

export function recordingRuntime(answer: (input: string) => string = (input) => `**Answer** to: ${input}`) {
  const runs: RunRequest[] = []
  let counter = 0
  const definition = defineExtension({
    name: 'test-runtime',
    setup(api) {
      api.services.provide('runtime', {
        async run(request: RunRequest) {
          runs.push(request)
          const input = typeof request.input === 'string' ? request.input : JSON.stringify(request.input)
          return { sessionId: request.sessionId ?? `s${++counter}`, answer: answer(input), exitReason: 'completed', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, apiCalls: 1, model: 'm', provider: 'p', toolTrace: [] }
        },
      })
    },
  })
  return { runs, definition }
}

export interface Harness {
  hs: FakeHomeserver
  k: TestKernel
  adapter: GatewayAdapter
  runs: RunRequest[]
  lines: string[]
  context(): AdapterContext
  /** Starts the adapter (stopped in t.after). */
  start(): Promise<void>
  inputs(): string[]
}

export interface HarnessOptions {
  env?: Record<string, string | undefined>
  extra?: Record<string, unknown>
  hs?: FakeHomeserver
  answer?: (input: string) => string
  config?: Record<string, unknown>
}

export async function harness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const hs = options.hs ?? (await startFakeHomeserver())
  if (!options.hs) t.after(() => hs.close())
  const runtime = recordingRuntime(options.answer)
  const k = await createTestKernel({
    builtins: CORE,
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
  const lines: string[] = []
  const log: Logger = {
    debug: (m) => lines.push(`debug: ${m}`),
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  }
  const controller = new AbortController()
  const context = (): AdapterContext => ({ signal: controller.signal, log, settings: k.kernel.settings, services: { ...k.kernel.services, provide: () => { throw new Error('adapters cannot provide services') } } })
  return {
    hs,
    k,
    adapter,
    runs: runtime.runs,
    lines,
    context,
    async start() {
      t.after(async () => {
        controller.abort()
        await adapter.stop()
      })
      await adapter.start(context())
    },
    inputs: () => runtime.runs.map((r) => (typeof r.input === 'string' ? r.input : JSON.stringify(r.input))),
  }
}

/** Polls `check`; `what` (a function: evaluated on failure) names what was awaited. */
export async function until(check: () => boolean, ms = 10_000, what: string | (() => string) = 'a condition'): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`)
    await sleep(20)
  }
}
