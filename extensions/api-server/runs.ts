// Agent runs started by HTTP requests: admission (the concurrency cap answers 429 with Retry-After,
// shutting down answers 503; background runs have a bound of their own within the cap, so requests
// waiting on their answer always find room), interruption when the client disconnects or the server
// stops, and the mapping of runtime failures to a 500 whose message has its secrets redacted.

import { errorMessage, HttpError, publicErrorText, redactSecrets, RUNTIME_SERVICE, type AgentRuntime, type HttpContext, type Logger, type RunRequest, type RunResult, type Services, type Settings } from 'agent/sdk'

export class ActiveRun {
  readonly controller = new AbortController()
  /** The client closed the connection before the answer was complete. */
  clientGone = false
  readonly #release: () => void
  readonly #res: HttpContext['res']
  readonly #onClose = () => {
    if (this.#res.writableFinished) return
    this.clientGone = true
    this.controller.abort(new Error('client disconnected'))
  }

  /** `detached`: the run outlives the request (a background response); a closed connection does not interrupt it. */
  constructor(ctx: HttpContext, release: () => void, detached = false) {
    this.#release = release
    this.#res = ctx.res
    if (!detached) this.#res.once('close', this.#onClose)
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  finish(): void {
    this.#res.off('close', this.#onClose)
    this.#release()
  }
}

export class Runs {
  readonly #active = new Map<ActiveRun, Promise<unknown>>()
  #background = 0
  #stopping = false

  /** `max`: runs at once (0: no cap); `maxBackground`: detached (background) runs among them (0: no bound of their own). */
  constructor(
    private readonly max: number,
    private readonly services: Services,
    private readonly settings: Settings,
    private readonly log: Logger,
    private readonly maxBackground = 0,
  ) {}

  get activeCount(): number {
    return this.#active.size
  }

  get backgroundCount(): number {
    return this.#background
  }

  /** Admits a run for this request, or throws 503 (stopping) / 429 (cap, or the background bound, reached). */
  begin(ctx: HttpContext, detached = false): ActiveRun {
    if (this.#stopping) throw new HttpError(503, 'The server is shutting down', { code: 'shutting_down', headers: { 'Retry-After': '1' } })
    if (detached && this.maxBackground > 0 && this.#background >= this.maxBackground) {
      const rest = this.max > this.maxBackground ? `; the other ${this.max - this.maxBackground} of the ${this.max} concurrent runs are kept for requests that wait on their answer` : ''
      throw new HttpError(429, `Too many background responses running (limit ${this.maxBackground}${rest}); retry when one has finished, or send the request without "background"`, {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        param: 'background',
        headers: { 'Retry-After': '1' },
      })
    }
    if (this.max > 0 && this.#active.size >= this.max) {
      throw new HttpError(429, `Too many concurrent runs (limit ${this.max}); retry shortly`, {
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        headers: { 'Retry-After': '1' },
      })
    }
    let settle!: () => void
    const settled = new Promise<void>((resolve) => (settle = resolve))
    if (detached) this.#background++
    const run: ActiveRun = new ActiveRun(
      ctx,
      () => {
        if (!this.#active.delete(run)) return
        if (detached) this.#background--
        settle()
      },
      detached,
    )
    this.#active.set(run, settled)
    return run
  }

  /**
   * Runs the agent for an admitted request. Failures become a 500 with a redacted message. The
   * session's last write is stored behind the answer (RunRequest.storeBehind): no client of this
   * server reads the session back (see the README), so the answer does not wait for that commit,
   * which follows in the same turn of the event loop; a failure of it is logged.
   */
  async execute(run: ActiveRun, request: RunRequest): Promise<RunResult> {
    const runtime = this.services.get<AgentRuntime>(RUNTIME_SERVICE)
    if (!runtime) throw new HttpError(500, 'The agent runtime is not available', { code: 'runtime_unavailable' })
    try {
      const result = await runtime.run({ ...request, signal: run.signal, storeBehind: true })
      result.stored?.catch((error: unknown) => this.log.warn(`could not store the end of session ${result.sessionId}: ${this.redact(errorMessage(error))}`))
      return result
    } catch (error) {
      if (!run.clientGone) this.log.warn(`agent run failed: ${this.redact(errorMessage(error))}`)
      // The client is told what failed, not where (sdk publicErrorText); the log keeps the rest.
      throw new HttpError(500, `The agent failed: ${publicErrorText(this.redact(errorMessage(error)))}`, { code: 'agent_error', type: 'server_error' })
    }
  }

  redact(text: string): string {
    return redactSecrets(text, this.settings.secretValues())
  }

  /** New runs are admitted again (the adapter started). */
  resume(): void {
    this.#stopping = false
  }

  /** Refuses new runs (503) and resolves when the running ones have finished on their own. */
  async drain(): Promise<void> {
    this.#stopping = true
    await Promise.all(this.#active.values())
  }

  /** Refuses new runs, interrupts the running ones and waits (bounded) for them to wind down. */
  async stop(graceMs = 5_000): Promise<void> {
    this.#stopping = true
    if (this.#active.size === 0) return
    for (const run of this.#active.keys()) run.controller.abort(new Error('the server is shutting down'))
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all(this.#active.values()), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))])
    clearTimeout(timer)
  }
}
