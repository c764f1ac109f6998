// Pieces the gateway and adapter tests share: a runtime stand-in that records every run and answers
// at once (or after a delay), a logger that keeps its lines, and the AdapterContext the gateway
// would hand an adapter (services it may use, none it may provide).

import { setTimeout as sleep } from 'node:timers/promises'
import { defineExtension } from '../define.ts'
import type { GatewayAdapter } from '../gateway.ts'
import type { RunRequest } from '../model.ts'
import type { AdapterContext, CliContext, ExtensionDefinition, Logger } from '../types.ts'
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

/** What each recorded run was asked: its input (text; content parts as JSON), in order. */
export function runInputs(runs: readonly RunRequest[]): string[] {
  return runs.map((r) => (typeof r.input === 'string' ? r.input : JSON.stringify(r.input)))
}

/** The shape of an in-process adapter harness over recordingRuntime (each adds its fake peer). */
export interface RecordingRuntimeHarness<Adapter = GatewayAdapter> {
  k: TestKernel
  adapter: Adapter
  runs: RunRequest[]
  lines: string[]
  context(): AdapterContext
  /** Starts the adapter (stopped in t.after). */
  start(): Promise<void>
  /** Inputs of the agent runs so far. */
  inputs(): string[]
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

export interface InProcessGateway {
  /** Everything the gateway printed and logged (info and up), one entry per line. */
  lines: string[]
  /** Stops the adapters as SIGINT would; resolves with the command's exit code. */
  stop(): Promise<number | void>
}

/**
 * Runs `agent gateway run` inside the test kernel (its adapters under the real lifecycle: reconnects,
 * the outbox flushed on every start, prompts left pending replayed): resolves once it is running.
 * Log lines reach `lines` when the kernel's level lets them (createTestKernel's `kernel: { logLevel: 'info' }`).
 */
export async function runGateway(kernel: TestKernel, options: { timeoutMs?: number } = {}): Promise<InProcessGateway> {
  const k = kernel.kernel
  const run = k.registries.commands.get('gateway')?.cli?.subcommands?.run
  if (!run?.run) throw new Error('the gateway extension is not loaded')
  const lines: string[] = []
  const unroute = k.routeLogs({ write: (line: string) => void lines.push(line) }, 'info')
  const controller = new AbortController()
  let running!: () => void
  const ready = new Promise<void>((resolve) => (running = resolve))
  const print = (line: string) => {
    lines.push(line)
    if (line.startsWith('gateway running')) running()
  }
  const ctx: CliContext = {
    argv: { _: [] },
    out: print,
    err: print,
    json: (value) => print(JSON.stringify(value)),
    isTTY: false,
    settings: k.settings,
    services: { ...k.services, provide: () => { throw new Error('commands cannot provide services') } },
    hooks: k.hooks,
    // The registries as a command sees them (gateway run only reads them).
    tools: k.registries.tools as unknown as CliContext['tools'],
    providers: k.registries.providers as unknown as CliContext['providers'],
    commands: k.registries.commands as unknown as CliContext['commands'],
    adapters: k.registries.adapters as unknown as CliContext['adapters'],
    endpoints: k.registries.endpoints as unknown as CliContext['endpoints'],
    extensions: () => k.extensions(),
    start: (mode) => k.start(mode),
    signal: controller.signal,
  }
  const finished = Promise.resolve(run.run(ctx)).finally(unroute)
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      ready,
      finished.then((code) => Promise.reject(new Error(`gateway run ended (${code}) before running:\n${lines.join('\n')}`))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`gateway run did not start within ${options.timeoutMs ?? 30_000} ms:\n${lines.join('\n')}`)), options.timeoutMs ?? 30_000))),
    ])
  } finally {
    clearTimeout(timer)
  }
  return {
    lines,
    async stop() {
      controller.abort()
      return finished
    },
  }
}
