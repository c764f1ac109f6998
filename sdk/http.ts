// Small HTTP helpers every endpoint shares: bounded body reading (size checked before and while
// reading, never after), bounded JSON parsing with a clear 400 and constant-time secret comparison.

import { createHash, timingSafeEqual } from 'node:crypto'
import { HttpError } from './http-error.ts'
import { parseJsonObject, type JsonBounds } from './json-intake.ts'
import type { HttpContext } from './types.ts'

export { HttpError }

/** Compares two secrets in constant time, whatever their lengths. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest()
  const hb = createHash('sha256').update(b).digest()
  return timingSafeEqual(ha, hb)
}

/**
 * Reads the raw body, refusing with 413 as soon as it is known to exceed `limit` bytes: from
 * Content-Length before reading, or while reading a chunked body. Cached on the context.
 */
export async function readBody(ctx: HttpContext, limit: number): Promise<Buffer> {
  const cached = (ctx.state as { rawBody?: Buffer }).rawBody
  if (cached) return cached
  const declared = Number(ctx.get('content-length') || NaN)
  if (Number.isFinite(declared) && declared > limit) {
    drain(ctx)
    throw new HttpError(413, `Request body too large (limit ${limit} bytes)`, { code: 'body_too_large' })
  }
  const body = await collect(ctx, limit)
  ;(ctx.state as { rawBody?: Buffer }).rawBody = body
  return body
}

/** The body's chunks, by the stream's events (an async iterator cost a promise or two a chunk on every request). */
function collect(ctx: HttpContext, limit: number): Promise<Buffer> {
  const req = ctx.req
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0))
  if (req.destroyed) return Promise.reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (error?: unknown) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', settle)
      req.off('close', onClose)
      if (error) reject(error)
      else resolve(Buffer.concat(chunks))
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        settle(new HttpError(413, `Request body too large (limit ${limit} bytes)`, { code: 'body_too_large' }))
        drain(ctx)
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => settle()
    // Closed before its end: the client went away in the middle of the body.
    const onClose = () => settle(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }))
    req.on('data', onData)
    req.once('end', onEnd)
    req.once('error', settle)
    req.once('close', onClose)
  })
}

// Keep the connection usable for the error answer: discard whatever else the client sends.
function drain(ctx: HttpContext): void {
  ctx.req.resume()
  ctx.set('Connection', 'close')
}

/** Reads and parses a JSON object body; 400 on malformed, too deep or too large JSON or a non-object. */
export async function readJson<T = Record<string, unknown>>(ctx: HttpContext, limit: number, bounds?: JsonBounds): Promise<T> {
  const raw = await readBody(ctx, limit)
  return parseJsonObject<T>(raw.toString('utf8'), bounds)
}

const HELD = Symbol.for('agent.answer-held')

/** A layer keeps this request's answer before it may go out (idempotent replay): sendJson() leaves it to Koa. */
export function holdAnswer(ctx: HttpContext): void {
  ;(ctx.state as Record<symbol, unknown>)[HELD] = true
}

/**
 * Answers `body` as JSON at once, instead of when Koa's respond step reaches it once every layer
 * has unwound: what runs after the handler (its `finally`, metrics, logs) then follows the answer
 * rather than delaying it (about 12 µs of a chat completion's latency). Koa does not answer again
 * (`ctx.respond = false`). Held (holdAnswer), the body is Koa's to send, after the layer kept it.
 */
export function sendJson(ctx: HttpContext, body: unknown, status = 200): void {
  if ((ctx.state as Record<symbol, unknown>)[HELD]) {
    ctx.status = status
    ctx.body = body
    return
  }
  const json = JSON.stringify(body)
  ctx.status = status
  ctx.respond = false
  const res = ctx.res
  // The client went away meanwhile: nothing to write to (as Koa does, the response is just ended).
  if (!res.writable || res.destroyed || (res.socket && !res.socket.writable)) return void res.end()
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Content-Length', Buffer.byteLength(json))
  res.end(json)
}

/** The bearer token of a request, if any. */
export function bearerToken(ctx: HttpContext): string | undefined {
  const header = ctx.get('authorization')
  const match = /^Bearer\s+(.+)$/i.exec(header)
  return match?.[1]?.trim()
}

/** The host part of a Host header (`name`, `name:port`, `[v6]:port`), or undefined if malformed. */
export function hostHeaderName(header: string | undefined): string | undefined {
  const value = header?.trim()
  if (!value) return undefined
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(value)
  if (bracketed) return bracketed[1]
  const plain = /^([^:\[\]]+)(?::\d{1,5})?$/.exec(value)
  return plain?.[1]
}
