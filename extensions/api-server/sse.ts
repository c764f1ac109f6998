// A server-sent-event stream written straight to the socket (Koa steps aside): events, data lines,
// and a `: keepalive` comment after each stretch of silence, so proxies and browsers keep the
// connection open while the agent thinks or a tool runs.

import type { HttpContext, RunEvent } from 'agent/sdk'

export class SseStream {
  readonly #res: HttpContext['res']
  readonly #headers: Record<string, string>
  #timer: NodeJS.Timeout | undefined
  #ended = false
  /** Text written before the headers went out (waiting for the session id). */
  #pending: string[] | undefined
  /** Everything written, kept only when asked (an idempotent request stores its answer). */
  readonly #record: string[] | undefined

  /**
   * `awaitSession`: the headers wait (events queue) until the run names its session, so the answer
   * can carry `X-Agent-Session-Id` like a plain one. The runtime names it before its first model
   * call; any other run event, the end, or a keepalive sends the headers without it.
   */
  constructor(ctx: HttpContext, keepaliveMs: number, headers: Record<string, string> = {}, awaitSession = false) {
    this.#res = ctx.res
    this.#record = (ctx.state as { sseRecord?: string[] }).sseRecord
    ctx.status = 200
    // Koa must not answer on its own: the body is written here as the run produces it. Headers set
    // earlier on the context (CORS) are already on the response object and go out with these.
    ctx.respond = false
    this.#headers = {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    }
    if (awaitSession) this.#pending = []
    else this.#open()
    this.#timer = setTimeout(() => this.#keepalive(), keepaliveMs)
    this.#timer.unref()
  }

  #open(sessionId?: string): void {
    if (this.#res.headersSent || this.#res.destroyed) return
    this.#res.writeHead(200, sessionId ? { ...this.#headers, 'X-Agent-Session-Id': sessionId } : this.#headers)
    this.#res.flushHeaders()
    const pending = this.#pending
    this.#pending = undefined
    if (pending?.length && this.open) this.#res.write(pending.join(''))
  }

  /**
   * Wraps a run's event handler for a stream that awaits its session: the `session` event sends
   * the headers with the id; any other event first sends them without it.
   */
  follow(onEvent: (event: RunEvent) => void): (event: RunEvent) => void {
    return (event) => {
      if (this.#pending) this.#open(event.type === 'session' ? event.sessionId : undefined)
      onEvent(event)
    }
  }

  /** Sends the headers now (if they still wait), naming the session when known. */
  session(sessionId: string | undefined): void {
    if (this.#pending) this.#open(sessionId)
  }

  /** False once the client has gone or the stream was ended. */
  get open(): boolean {
    return !this.#ended && !this.#res.destroyed && this.#res.writable
  }

  #write(text: string): void {
    if (!this.open) return
    this.#record?.push(text)
    if (this.#pending) return void this.#pending.push(text)
    this.#res.write(text)
    this.#timer?.refresh()
  }

  #keepalive(): void {
    if (!this.open) return
    this.#open()
    this.#res.write(': keepalive\n\n')
    this.#timer?.refresh()
  }

  data(value: unknown): void {
    this.#write(`data: ${JSON.stringify(value)}\n\n`)
  }

  event(name: string, value: unknown): void {
    this.#write(`event: ${name}\ndata: ${JSON.stringify(value)}\n\n`)
  }

  /** Writes the last lines (if any) and closes the stream. */
  end(last?: string): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#ended) return
    if (last) this.#record?.push(last)
    this.#open()
    this.#ended = true
    if (!this.#res.destroyed && this.#res.writable) this.#res.end(last)
  }
}
