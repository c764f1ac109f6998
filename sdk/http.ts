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
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) {
      drain(ctx)
      throw new HttpError(413, `Request body too large (limit ${limit} bytes)`, { code: 'body_too_large' })
    }
    chunks.push(chunk)
  }
  const body = Buffer.concat(chunks)
  ;(ctx.state as { rawBody?: Buffer }).rawBody = body
  return body
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
