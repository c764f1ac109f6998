// Pieces the gateway and adapter tests share: a runtime stand-in that records every run and answers
// at once (or after a delay), a logger that keeps its lines, and the AdapterContext the gateway
// would hand an adapter (services it may use, none it may provide).

import { setTimeout as sleep } from 'node:timers/promises'
import { defineExtension } from '../define.ts'
import type { RunRequest } from '../model.ts'
import type { AdapterContext, ExtensionDefinition, Logger } from '../types.ts'
import type { TestKernel } from './test-kernel.ts'

export interface RecordingRuntimeOptions {
  /** The answer to a run's input (text; content parts as JSON); `n` counts runs from 1. Default `echo: <input>`. */
  answer?: (input: string, n: number) => string
  /** Wait this long before answering (a turn that takes time). */
  delayMs?: number
}

/** A `runtime` service that records each RunRequest and answers without a model. */
export function recordingRuntime(options: RecordingRuntimeOptions = {}): { runs: RunRequest[]; definition: ExtensionDefinition } {
  const runs: RunRequest[] = []
  const answer = options.answer ?? ((input) => `echo: ${input}`)
  const definition = defineExtension({
    name: 'test-runtime',
    setup(api) {
      api.services.provide('runtime', {
        async run(request: RunRequest) {
          runs.push(request)
          const n = runs.length
          if (options.delayMs) await sleep(options.delayMs)
          const input = typeof request.input === 'string' ? request.input : JSON.stringify(request.input)
          return { sessionId: request.sessionId ?? `s${n}`, answer: answer(input, n), exitReason: 'completed', usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 }, apiCalls: 1, model: 'm', provider: 'p', toolTrace: [] }
        },
      })
    },
  })
  return { runs, definition }
}

/** A Logger keeping every line as `<level>: <message>`. */
export function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = []
  const add = (level: string) => (message: string) => void lines.push(`${level}: ${message}`)
  return { lines, debug: add('debug'), info: add('info'), warn: add('warn'), error: add('error') }
}

const silent: Logger = { debug() {}, info() {}, warn() {}, error() {} }

/** What the gateway hands an adapter's start(): the kernel's services (providing one is an error). */
export function adapterContext(kernel: TestKernel, options: { log?: Logger; signal?: AbortSignal } = {}): AdapterContext {
  return {
    signal: options.signal ?? new AbortController().signal,
    log: options.log ?? silent,
    settings: kernel.kernel.settings,
    services: { ...kernel.kernel.services, provide: () => { throw new Error('adapters cannot provide services') } },
  }
}
