// Signed-in browsers: a random session id in an HttpOnly, SameSite=Strict cookie, and per session
// a CSRF token the page sends back on every write. Held in memory: a restart signs everyone out.

import { randomBytes } from 'node:crypto'
import { safeEqual } from 'agent/sdk'

export const COOKIE = 'agent_dashboard'
const MAX_SESSIONS = 1000

interface BrowserSession {
  csrf: string
  expiresAt: number
}

export class BrowserSessions {
  readonly #sessions = new Map<string, BrowserSession>()
  constructor(private readonly ttlMs: () => number) {}

  create(now = Date.now()): { id: string; csrf: string } {
    this.#sweep(now)
    if (this.#sessions.size >= MAX_SESSIONS) this.#sessions.delete(this.#sessions.keys().next().value!)
    const id = randomBytes(32).toString('base64url')
    const csrf = randomBytes(24).toString('base64url')
    this.#sessions.set(id, { csrf, expiresAt: now + this.ttlMs() })
    return { id, csrf }
  }

  /** The live session of a cookie value (its lifetime renewed), or undefined. */
  find(id: string | undefined, now = Date.now()): BrowserSession | undefined {
    if (!id) return undefined
    const session = this.#sessions.get(id)
    if (!session) return undefined
    if (session.expiresAt <= now) return void this.#sessions.delete(id)
    session.expiresAt = now + this.ttlMs()
    return session
  }

  csrfMatches(session: BrowserSession, token: string | undefined): boolean {
    return !!token && safeEqual(token, session.csrf)
  }

  end(id: string | undefined): void {
    if (id) this.#sessions.delete(id)
  }

  #sweep(now: number): void {
    for (const [id, s] of this.#sessions) if (s.expiresAt <= now) this.#sessions.delete(id)
  }
}

export function cookieHeader(id: string, maxAgeSeconds: number): string {
  return `${COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeSeconds)}`
}

export const CLEAR_COOKIE = `${COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`
