// Window tokens: the only source of a caller's window and webview labels. The agent signs
// `{window, webview, issued, expires}` with HMAC-SHA256 under a secret kept in
// <agent_home>/capability-token.secret (mode 0600, created on first use); verification is
// constant-time and refuses expired tokens. A page cannot forge or relabel one.

import { createHmac, randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, statSync, writeFileSync, type Stats } from 'node:fs'
import { join } from 'node:path'
import { AgentError, safeEqual } from 'agent/sdk'

export const TOKEN_PREFIX = 'acap1'
export const SECRET_FILE = 'capability-token.secret'

/** Labels: Unicode letters and digits, `-`, `/`, `:` and `_` (as windows and webviews allow). */
const LABEL = /^[\p{L}\p{N}\-/:_]{1,128}$/u

export function labelError(label: string): string | undefined {
  return LABEL.test(label) ? undefined : `"${label}" is not a valid label (letters, digits, -, /, : and _; at most 128)`
}

export interface TokenClaims {
  window: string
  webview: string
  /** Seconds since the epoch. */
  issuedAt: number
  expiresAt: number
}

export type VerifyResult = ({ ok: true } & TokenClaims) | { ok: false; reason: string }

/** Reads the signing secret, creating it (0600) on first use. Refuses one others can read. */
export function loadSecret(home: string): Buffer {
  const path = join(home, SECRET_FILE)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new AgentError('E_CONFIG', `cannot read ${path}: ${(error as Error).message}`, { cause: error })
    mkdirSync(home, { recursive: true })
    try {
      writeFileSync(path, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw new AgentError('E_CONFIG', `cannot create ${path}: ${(raced as Error).message}`, { cause: raced })
    }
    text = readFileSync(path, 'utf8')
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new AgentError('E_CONFIG', `${path} is readable by other users; run \`chmod 600 ${path}\``)
  }
  const secret = text.trim()
  if (!/^[0-9a-f]{64,}$/.test(secret)) throw new AgentError('E_CONFIG', `${path} does not hold a valid secret; delete it to create a new one (issued tokens stop working)`)
  return Buffer.from(secret, 'hex')
}

/**
 * The secret, re-read whenever its file changes: deleting the file revokes every token issued so
 * far (a new secret is created on the next use).
 */
export function secretSource(home: string): () => Buffer {
  const path = join(home, SECRET_FILE)
  const stamp = (s: Stats | undefined) => (s ? `${s.ino}:${s.mtimeMs}:${s.size}` : '')
  let cached: { key: Buffer; stamp: string } | undefined
  return () => {
    const now = stamp(statSync(path, { throwIfNoEntry: false }))
    if (!cached || !now || cached.stamp !== now) {
      const key = loadSecret(home)
      cached = { key, stamp: stamp(statSync(path)) }
    }
    return cached.key
  }
}

const b64 = (value: string | Buffer) => Buffer.from(value).toString('base64url')
const sign = (secret: Buffer, payload: string) => createHmac('sha256', secret).update(`${TOKEN_PREFIX}.${payload}`).digest('base64url')

export function issueToken(secret: Buffer, options: { window: string; webview?: string; ttlSeconds: number; now?: number }): { token: string } & TokenClaims {
  const problem = labelError(options.window) ?? (options.webview === undefined ? undefined : labelError(options.webview))
  if (problem) throw new AgentError('E_USAGE', problem)
  if (!Number.isInteger(options.ttlSeconds) || options.ttlSeconds < 1) throw new AgentError('E_USAGE', 'the token lifetime must be a positive number of seconds')
  const issuedAt = Math.floor((options.now ?? Date.now()) / 1000)
  const claims: TokenClaims = { window: options.window, webview: options.webview ?? options.window, issuedAt, expiresAt: issuedAt + options.ttlSeconds }
  const payload = b64(JSON.stringify({ w: claims.window, v: claims.webview, iat: claims.issuedAt, exp: claims.expiresAt, n: randomBytes(6).toString('base64url') }))
  return { token: `${TOKEN_PREFIX}.${payload}.${sign(secret, payload)}`, ...claims }
}

export function verifyToken(secret: Buffer, token: string, now = Date.now()): VerifyResult {
  const parts = token.split('.')
  if (parts.length !== 3 || parts[0] !== TOKEN_PREFIX || !parts[1] || !parts[2]) return { ok: false, reason: 'malformed capability token' }
  if (!safeEqual(parts[2], sign(secret, parts[1]))) return { ok: false, reason: 'invalid capability token signature' }
  let claims: { w?: unknown; v?: unknown; iat?: unknown; exp?: unknown }
  try {
    claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
  } catch {
    return { ok: false, reason: 'malformed capability token' }
  }
  if (typeof claims.w !== 'string' || typeof claims.v !== 'string' || typeof claims.iat !== 'number' || typeof claims.exp !== 'number') return { ok: false, reason: 'malformed capability token' }
  const seconds = Math.floor(now / 1000)
  if (claims.exp <= seconds) return { ok: false, reason: 'capability token expired; issue a new one with `agent capabilities token`' }
  if (claims.iat > seconds + 60) return { ok: false, reason: 'capability token issued in the future' }
  return { ok: true, window: claims.w, webview: claims.v, issuedAt: claims.iat, expiresAt: claims.exp }
}
