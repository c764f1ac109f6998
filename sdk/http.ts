// Small HTTP helpers every endpoint shares: bounded body reading (size checked before and while
// reading, never after), JSON parsing with a clear 400, constant-time secret comparison, and an
// error type that carries its status.

import { createHash, timingSafeEqual } from 'node:crypto'
import type { HttpContext } from './types.ts'

const HTTP_ERROR_MARKER: unique symbol = Symbol.for('agent.http-error') as never

export class HttpError extends Error {
  readonly status: number
  readonly type: string
  readonly code: string | null
  readonly param: string | null
  readonly headers: Record<string, string>
  readonly [HTTP_ERROR_MARKER] = true

  constructor(status: number, message: string, options: { type?: string; code?: string; param?: string; headers?: Record<string, string> } = {}) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.type = options.type ?? (status >= 500 ? 'server_error' : 'invalid_request_error')
    this.code = options.code ?? null
    this.param = options.param ?? null
    this.headers = options.headers ?? {}
  }

  static isInstance(value: unknown): value is HttpError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[HTTP_ERROR_MARKER] === true
  }
}

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

/** Reads and parses a JSON object body; 400 on malformed JSON or a non-object. */
export async function readJson<T = Record<string, unknown>>(ctx: HttpContext, limit: number): Promise<T> {
  const raw = await readBody(ctx, limit)
  let value: unknown
  try {
    value = JSON.parse(raw.toString('utf8'))
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON', { code: 'invalid_json' })
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'Request body must be a JSON object', { code: 'invalid_body' })
  }
  return value as T
}

/** The bearer token of a request, if any. */
export function bearerToken(ctx: HttpContext): string | undefined {
  const header = ctx.get('authorization')
  const match = /^Bearer\s+(.+)$/i.exec(header)
  return match?.[1]?.trim()
}

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '')
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h)
}
