// A server-sent-event answer written straight to the socket (Koa steps aside), with a keepalive
// comment after each stretch of silence so the browser and proxies keep the stream open.

import type { HttpContext } from 'agent/sdk'
import { CSP } from './gate.ts'

const KEEPALIVE_MS = 15_000

export class EventStream {
  readonly #res: HttpContext['res']
  readonly #timer: NodeJS.Timeout
  #ended = false

  constructor(ctx: HttpContext) {
    this.#res = ctx.res
    ctx.respond = false
    this.#res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
    })
    this.#res.flushHeaders()
    this.#timer = setInterval(() => this.#write(': keepalive\n\n'), KEEPALIVE_MS)
    this.#timer.unref()
    this.#res.once('close', () => this.end())
  }

  get open(): boolean {
    return !this.#ended && !this.#res.destroyed && this.#res.writable
  }

  #write(text: string): void {
    if (this.open) this.#res.write(text)
  }

  send(event: string, data: unknown): void {
    this.#write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  }

  /** Called when the client goes away (or the stream ends). */
  onClose(fn: () => void): void {
    this.#res.once('close', fn)
  }

  end(): void {
    if (this.#ended) return
    this.#ended = true
    clearInterval(this.#timer)
    if (!this.#res.destroyed && this.#res.writable) this.#res.end()
  }
}
