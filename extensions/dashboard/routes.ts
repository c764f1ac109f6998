// The dashboard's HTTP surface on the `dashboard` listener: a route helper that puts every
// endpoint behind the gate (gate.ts), the files, sign-in and sign-out. Each page's API routes are
// added by their own files through the same helper.

import { agentVersion, HttpError, readJson, safeEqual, type ExtensionApi, type HttpContext } from 'agent/sdk'
import { BrowserSessions, CLEAR_COOKIE, cookieHeader } from './browser-sessions.ts'
import { checkAccess, checkOrigin, cookieValue, type Access } from './gate.ts'
import { KeyFailures } from './key-failures.ts'
import { binding, type DashboardConfig } from './options.ts'
import { redeemSignInToken } from './sign-in.ts'
import { sendUiFile, sendVendorFile } from './static-files.ts'

const MAX_KEY_FAILURES = 10
const MAX_KEY_FAILURES_TOTAL = 100

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export type Route = (method: Method, path: string, access: Access, handler: (ctx: HttpContext) => unknown) => void

export interface DashboardServer {
  sessions: BrowserSessions
  route: Route
  /** Each route's handler behind its gate, by `METHOD path`. */
  handlers: Map<string, (ctx: HttpContext) => Promise<void>>
}

export function createServer(api: ExtensionApi<DashboardConfig>): DashboardServer {
  const sessionMs = () => api.config.extra.session_hours * 3_600_000
  const sessions = new BrowserSessions(sessionMs)
  const handlers = new Map<string, (ctx: HttpContext) => Promise<void>>()
  const route: Route = (method, path, access, handler) => {
    // Writes are never 'read' by mistake: a write route without the CSRF token is refused.
    if (method !== 'GET' && access === 'read') access = 'write'
    handlers.set(`${method} ${path}`, async (ctx) => {
      checkAccess(ctx, access, api.settings, sessions)
      await handler(ctx)
    })
  }

  const signIn = (ctx: HttpContext) => {
    const { id, csrf } = sessions.create()
    ctx.set('Set-Cookie', cookieHeader(id, sessionMs() / 1000))
    return csrf
  }

  route('GET', '/', 'public', (ctx) => sendUiFile(ctx, 'index.html'))
  route('GET', '/ui/:file', 'public', (ctx) => sendUiFile(ctx, ctx.params.file!))
  route('GET', '/vendor/:file', 'public', (ctx) => sendVendorFile(ctx, ctx.params.file!))
  route('GET', '/healthz', 'public', (ctx) => void (ctx.body = { status: 'ok' }))

  // The printed link: a one-time token for a cookie, then the page without the token in the URL.
  route('GET', '/auth', 'public', (ctx) => {
    const token = typeof ctx.query.token === 'string' ? ctx.query.token : ''
    if (!token || !redeemSignInToken(api.settings.home, token)) {
      throw new HttpError(401, 'This sign-in link is unknown, used or expired: run `agent dashboard` for a new one', { code: 'bad_sign_in_link' })
    }
    signIn(ctx)
    ctx.set('Cache-Control', 'no-store')
    ctx.status = 303
    ctx.redirect('/')
  })

  // With DASHBOARD_KEY set, the key signs a browser in too (the sign-in form). Wrong keys are
  // counted: past MAX_KEY_FAILURES in a minute from one address, or MAX_KEY_FAILURES_TOTAL from all,
  // tries are refused until the minute is over.
  const failures = new KeyFailures(MAX_KEY_FAILURES, MAX_KEY_FAILURES_TOTAL)
  route('POST', '/auth/key', 'public', async (ctx) => {
    checkOrigin(ctx)
    const address = ctx.ip
    const wait = failures.retryAfter(address)
    if (wait > 0) {
      ctx.set('Retry-After', String(wait))
      throw new HttpError(429, 'Too many wrong keys: wait a minute', { code: 'rate_limited' })
    }
    const { key } = binding(api.settings)
    const body = await readJson<{ key?: unknown }>(ctx, 4096)
    if (!key || typeof body.key !== 'string' || !safeEqual(body.key, key)) {
      failures.record(address)
      throw new HttpError(401, 'Wrong key', { code: 'bad_key' })
    }
    ctx.body = { csrf: signIn(ctx) }
  })

  route('GET', '/api/me', 'read', (ctx) => {
    ctx.body = { signed_in: true, csrf: (ctx.state as { csrf: string }).csrf, version: agentVersion() }
  })
  route('POST', '/api/sign-out', 'write', (ctx) => {
    sessions.end(cookieValue(ctx))
    ctx.set('Set-Cookie', CLEAR_COOKIE)
    ctx.body = { signed_in: false }
  })
  return { sessions, route, handlers }
}
