// The checks every dashboard request passes before its handler, and the headers every answer
// carries. Pages and files: Host only (they hold no data). API reads: Host, Origin, a session
// cookie (401 without). API writes: the same plus the session's CSRF token (403 without).
// Host: on a loopback bind only loopback names are answered (a page on a name rebound to
// 127.0.0.1 sends its own name: DNS rebinding); Origin: a browser's request from any other origin.

import { hostHeaderName, HttpError, isLoopbackHost, type HttpContext, type Settings } from 'agent/sdk'
import { COOKIE, type BrowserSessions } from './browser-sessions.ts'
import { binding } from './options.ts'

export type Access = 'public' | 'read' | 'write'

// No inline script or style anywhere; uPlot sets element.style through the CSSOM, which CSP allows.
export const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

export function securityHeaders(ctx: HttpContext): void {
  ctx.set('Content-Security-Policy', CSP)
  ctx.set('Cross-Origin-Opener-Policy', 'same-origin')
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin')
  ctx.set('Permissions-Policy', 'camera=(), microphone=(), geolocation=()')
}

export function cookieValue(ctx: HttpContext, name = COOKIE): string | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

export function checkHost(ctx: HttpContext, settings: Settings): void {
  const { host: bindHost, key } = binding(settings)
  const loopbackBind = isLoopbackHost(bindHost)
  if (!loopbackBind && !key) throw new HttpError(503, 'The dashboard needs its key when it is not bound to loopback', { code: 'key_required' })
  const name = hostHeaderName(ctx.get('host'))
  if (!name) throw new HttpError(400, 'A Host header is required', { code: 'missing_host' })
  if (loopbackBind && !isLoopbackHost(name)) throw new HttpError(421, 'The dashboard answers only requests addressed to localhost or a loopback address', { code: 'misdirected_request' })
}

/** 403 for a browser request made by another origin (or a cross-site fetch without Origin). */
export function checkOrigin(ctx: HttpContext): void {
  const origin = ctx.get('origin')
  if (origin && origin !== `${ctx.protocol}://${ctx.get('host')}`) throw new HttpError(403, `Origin ${origin} is not allowed`, { code: 'origin_not_allowed' })
  const site = ctx.get('sec-fetch-site')
  if (site && site !== 'same-origin' && site !== 'none') throw new HttpError(403, 'Cross-site requests are not allowed', { code: 'cross_site' })
}

export function checkAccess(ctx: HttpContext, access: Access, settings: Settings, sessions: BrowserSessions): void {
  securityHeaders(ctx)
  checkHost(ctx, settings)
  if (access === 'public') return
  checkOrigin(ctx)
  const session = sessions.find(cookieValue(ctx))
  if (!session) throw new HttpError(401, 'Sign in with the link `agent dashboard` prints', { code: 'not_signed_in' })
  ctx.set('Cache-Control', 'no-store')
  if (access === 'write' && !sessions.csrfMatches(session, ctx.get('x-csrf-token') || undefined)) {
    throw new HttpError(403, 'Missing or wrong CSRF token', { code: 'csrf' })
  }
  ;(ctx.state as { csrf?: string }).csrf = session.csrf
}
