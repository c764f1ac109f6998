// CORS for a listener's allowed origins: the answer @koa/cors 5 gave with the options this listener
// used, as plain functions, so the Koa chain and the fast path (fast-path.ts) share one version and
// a request pays no extra middleware layer for it.

import type { HttpContext } from 'agent/sdk'

const ALLOW_METHODS = 'GET,HEAD,PUT,POST,DELETE,PATCH'
const EXPOSE_HEADERS = ['Retry-After', 'X-Request-Id', 'X-Agent-Session-Id', 'Idempotent-Replayed'].join(',')
const MAX_AGE = '600'

/** What applyCors did: answered a preflight, set headers for an actual request, or nothing. */
export type CorsOutcome = 'preflight' | 'actual' | undefined

/**
 * Sets the CORS headers of a request from an allowed origin (`Vary: Origin` on every request).
 * A preflight is answered here (204) with the request headers it asks for: no fixed list. Only
 * origins the listener allows get here (the origin gate refused the rest), and what browser clients
 * send varies and grows (openai-node's x-stainless-*, openai-*, the AI SDK's own, idempotency-key),
 * so a list would break the next client version while guarding nothing the origin check does not
 * already guard. Header names a browser may send are tokens; Node refuses to echo anything else, so
 * a hand-made preflight cannot inject into the answer.
 */
export function applyCors(ctx: HttpContext, allowed: (origin: string) => boolean): CorsOutcome {
  ctx.vary('Origin')
  const origin = ctx.get('Origin')
  if (!origin || !allowed(origin)) return undefined
  if (ctx.method !== 'OPTIONS') {
    ctx.set('Access-Control-Allow-Origin', origin)
    ctx.set('Access-Control-Expose-Headers', EXPOSE_HEADERS)
    return 'actual'
  }
  // Without Access-Control-Request-Method it is a plain OPTIONS request, not a preflight.
  if (!ctx.get('Access-Control-Request-Method')) return undefined
  ctx.set('Access-Control-Allow-Origin', origin)
  ctx.set('Access-Control-Max-Age', MAX_AGE)
  ctx.set('Access-Control-Allow-Methods', ALLOW_METHODS)
  const asked = ctx.get('Access-Control-Request-Headers')
  if (asked) ctx.set('Access-Control-Allow-Headers', asked)
  ctx.status = 204
  return 'preflight'
}

/**
 * A request that set CORS headers and then failed: the error carries them (and `Vary: Origin`), so
 * the error answer keeps them, as @koa/cors's keepHeadersOnError did.
 */
export function corsOnError(error: unknown, ctx: HttpContext): void {
  if (typeof error !== 'object' || error === null) return
  const carried = error as { headers?: Record<string, string> }
  const own = carried.headers ?? {}
  const vary = appendVary(own.vary ?? own.Vary ?? '', 'Origin')
  delete own.Vary
  carried.headers = {
    ...own,
    'Access-Control-Allow-Origin': ctx.get('Origin'),
    'Access-Control-Expose-Headers': EXPOSE_HEADERS,
    vary,
  }
}

/** The `vary` package's append, for one field name: added unless listed already; `*` absorbs it. */
function appendVary(header: string, field: string): string {
  if (header === '*') return header
  const fields = header.toLowerCase().split(',').map((f) => f.trim()).filter(Boolean)
  if (fields.includes('*')) return '*'
  if (fields.includes(field.toLowerCase())) return header
  return header ? `${header}, ${field}` : field
}

/** The Koa middleware form, for the requests that go through the Koa chain. */
export function corsMiddleware(allowed: (origin: string) => boolean) {
  return async (ctx: HttpContext, next: () => Promise<unknown>): Promise<void> => {
    const outcome = applyCors(ctx, allowed)
    if (outcome === 'preflight') return
    if (outcome !== 'actual') {
      await next()
      return
    }
    try {
      await next()
    } catch (error) {
      corsOnError(error, ctx)
      throw error
    }
  }
}
