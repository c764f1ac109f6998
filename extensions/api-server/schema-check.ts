// Structured output (`response_format` / `text.format` json_schema) is checked in a worker thread
// (schema-worker.mjs), never on the event loop: a client's schema is compiled and checked there
// before the model runs, and the model's answer is validated there after. A JSON Schema can cost
// without bound (a `pattern` such as `^(\w+\s?)+$` backtracks for minutes on an ordinary sentence),
// so every check has a deadline: past it the worker is terminated (V8 interrupts even a
// backtracking regular expression), the check reports `expensive`, and the next check starts a
// fresh worker. The worker is created on the first check and reused; it does not keep the process
// alive. One check runs at a time, each deadline counted from when it starts, so a slow schema
// costs other structured-output requests at most one deadline each, never the rest of the server.
// Requests without a json_schema never come here.

import { Worker } from 'node:worker_threads'

/** A client's schema as the worker receives it: its JSON text and a hash of that text (the cache key). */
export interface PreparedSchema {
  key: string
  text: string
}

export type CheckOutcome =
  /** The schema is usable; the answer matches it. */
  | { kind: 'ok' }
  /** The schema cannot be used (does not compile, a `$ref` that does not resolve, a cycle …). */
  | { kind: 'schema'; why: string }
  /** The answer is not JSON, or too deep to check. */
  | { kind: 'invalid'; why: string }
  /** The answer does not match the schema: the validator's innermost error. */
  | { kind: 'mismatch'; where?: string; error?: string }
  /** The check ran past its deadline or out of the worker's memory; the worker was replaced. */
  | { kind: 'expensive'; reason: 'time' | 'memory' }
  /** Too many checks waiting. */
  | { kind: 'busy' }
  /** The worker could not start or died. */
  | { kind: 'failed'; why: string }

export interface SchemaCheckerLimits {
  /** How long one check (compile, or validate one answer) may run. */
  deadlineMs: number
  /** Checks waiting for the worker; past it a check reports `busy`. */
  maxQueued: number
  /** Compiled validators the worker keeps, least recently used evicted … */
  cacheEntries: number
  /** … and the characters of schema text they may hold between them. */
  cacheChars: number
  /** How long the worker may take to start. */
  startMs: number
  /** The worker's heap (MiB): a check that needs more ends like one past its deadline. */
  heapMb: number
}

/**
 * A legitimate check takes well under 50 ms (compiling a schema at the size cap, validating a long
 * answer); 1 s leaves room for a loaded machine and bounds what one pathological schema costs.
 * The cache holds 32 schemas or 1 MiB of their text (4 at the size cap), whichever is reached first.
 */
export const CHECK_LIMITS: SchemaCheckerLimits = { deadlineMs: 1_000, maxQueued: 64, cacheEntries: 32, cacheChars: 1024 * 1024, startMs: 10_000, heapMb: 96 }

interface Job {
  id: number
  message: Record<string, unknown>
  resolve: (outcome: CheckOutcome) => void
}

export class SchemaChecker {
  readonly limits: SchemaCheckerLimits
  #worker: Worker | undefined
  #ready = false
  #queue: Job[] = []
  #current: Job | undefined
  #timer: NodeJS.Timeout | undefined
  #ids = 0

  constructor(limits: Partial<SchemaCheckerLimits> = {}) {
    this.limits = { ...CHECK_LIMITS, ...limits }
  }

  /** Compiles the schema (kept in the worker's cache) and checks that it can be used. */
  check(schema: PreparedSchema): Promise<CheckOutcome> {
    return this.#run({ op: 'check', key: schema.key, schema: schema.text })
  }

  /** Validates the model's answer (JSON text) against the schema. */
  validate(schema: PreparedSchema, answer: string): Promise<CheckOutcome> {
    return this.#run({ op: 'validate', key: schema.key, schema: schema.text, answer })
  }

  /** How many compiled schemas the worker holds, and their characters of text. */
  async cacheStats(): Promise<{ cached: number; chars: number }> {
    const outcome = (await this.#run({ op: 'stats' })) as unknown as { kind: string; cached?: number; chars?: number; why?: string }
    if (outcome.kind !== 'stats') throw new Error(`no cache stats: ${outcome.why ?? outcome.kind}`)
    return { cached: outcome.cached!, chars: outcome.chars! }
  }

  /** Terminates the worker; waiting checks fail. A later check starts a new worker. */
  close(): void {
    const waiting = [...(this.#current ? [this.#current] : []), ...this.#queue]
    this.#current = undefined
    this.#queue = []
    this.#discard()
    for (const job of waiting) job.resolve({ kind: 'failed', why: 'the checker was closed' })
  }

  #run(message: Record<string, unknown>): Promise<CheckOutcome> {
    if (this.#queue.length >= this.limits.maxQueued) return Promise.resolve({ kind: 'busy' })
    return new Promise((resolve) => {
      this.#queue.push({ id: ++this.#ids, message, resolve })
      this.#pump()
    })
  }

  #pump(): void {
    if (this.#current || this.#queue.length === 0) return
    const worker = this.#worker ?? this.#start()
    if (!this.#ready) return
    const job = (this.#current = this.#queue.shift()!)
    this.#timer = setTimeout(() => this.#expire(job), this.limits.deadlineMs)
    worker.postMessage({ id: job.id, ...job.message })
  }

  #start(): Worker {
    const worker = new Worker(new URL('./schema-worker.mjs', import.meta.url), {
      workerData: { cacheEntries: this.limits.cacheEntries, cacheChars: this.limits.cacheChars },
      // No loader or flags of the parent: the worker is plain JavaScript.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.limits.heapMb, maxYoungGenerationSizeMb: 16 },
    })
    this.#worker = worker
    this.#ready = false
    this.#timer = setTimeout(() => this.#broken(worker, new Error(`it did not start within ${this.limits.startMs} ms`)), this.limits.startMs)
    worker.on('message', (message: { ready?: true; id?: number } & Record<string, unknown>) => this.#message(worker, message))
    worker.on('error', (error) => this.#broken(worker, error))
    worker.on('exit', (code) => this.#broken(worker, new Error(`it stopped (exit ${code})`)))
    // After the listeners (a 'message' listener refs the worker's port again): an idle worker does
    // not keep the process alive; a check in flight does, through its deadline timer.
    worker.unref()
    return worker
  }

  #message(worker: Worker, message: { ready?: true; id?: number } & Record<string, unknown>): void {
    if (worker !== this.#worker) return
    if (message.ready) {
      clearTimeout(this.#timer)
      this.#ready = true
      return this.#pump()
    }
    const job = this.#current
    if (!job || message.id !== job.id) return
    clearTimeout(this.#timer)
    this.#current = undefined
    const { id: _, ...outcome } = message
    job.resolve(outcome as unknown as CheckOutcome)
    this.#pump()
  }

  #expire(job: Job): void {
    if (this.#current !== job) return
    this.#current = undefined
    this.#discard()
    job.resolve({ kind: 'expensive', reason: 'time' })
    this.#pump()
  }

  #broken(worker: Worker, error: Error & { code?: string }): void {
    if (worker !== this.#worker) return
    const started = this.#ready
    this.#discard()
    const job = this.#current
    this.#current = undefined
    if (job) job.resolve(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? { kind: 'expensive', reason: 'memory' } : { kind: 'failed', why: `the structured-output checker failed: ${error.message}` })
    if (started) return this.#pump()
    // It never started: starting it again for each waiting check would fail the same way.
    const waiting = this.#queue
    this.#queue = []
    for (const other of waiting) other.resolve({ kind: 'failed', why: `the structured-output checker could not start: ${error.message}` })
  }

  #discard(): void {
    clearTimeout(this.#timer)
    const worker = this.#worker
    this.#worker = undefined
    this.#ready = false
    if (!worker) return
    worker.removeAllListeners()
    worker.on('error', () => {})
    void worker.terminate()
  }
}

let shared: SchemaChecker | undefined

/** The process's checker (the API servers of one process share its worker and cache). */
export const schemaChecker = (): SchemaChecker => (shared ??= new SchemaChecker())
