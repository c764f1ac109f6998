// A server-sent-event stream written straight to the socket (Koa steps aside): events, data lines,
// and a `: keepalive` comment after each stretch of silence, so proxies and browsers keep the
// connection open while the agent thinks or a tool runs.

import type { HttpContext } from 'agent/sdk'

export class SseStream {
  readonly #res: HttpContext['res']
  #timer: NodeJS.Timeout | undefined
  #ended = false

  constructor(ctx: HttpContext, keepaliveMs: number, headers: Record<string, string> = {}) {
    this.#res = ctx.res
    ctx.status = 200
    // Koa must not answer on its own: the body is written here as the run produces it. Headers set
    // earlier on the context (CORS) are already on the response object and go out with these.
    ctx.respond = false
    this.#res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
      ...headers,
    })
    this.#res.flushHeaders()
    this.#timer = setTimeout(() => this.#keepalive(), keepaliveMs)
    this.#timer.unref()
  }

  /** False once the client has gone or the stream was ended. */
  get open(): boolean {
    return !this.#ended && !this.#res.destroyed && this.#res.writable
  }

  #write(text: string): void {
    if (!this.open) return
    this.#res.write(text)
    this.#timer?.refresh()
  }

  #keepalive(): void {
    if (!this.open) return
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
    this.#ended = true
    if (!this.#res.destroyed && this.#res.writable) this.#res.end(last)
  }
}
