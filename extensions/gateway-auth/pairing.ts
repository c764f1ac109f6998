// DM pairing kept in state.db: short one-time codes (8 characters, no look-alike letters) stored
// salted and hashed, expiring after an hour, at most 3 pending per platform, one request per user per
// 10 minutes, and a lockout after 5 failed approvals. Codes are never logged.

import { createHash, randomBytes, randomInt } from 'node:crypto'
import { AgentError, safeEqual, type ApprovedPairing, type DatabaseService, type MessageSource, type Migration, type PendingPairing, type SqliteDatabase } from 'agent/sdk'
import { normaliseId } from './allowlist.ts'

export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
export const CODE_LENGTH = 8

export interface PairingLimits {
  codeTtlMs: number
  maxPendingPerPlatform: number
  requestIntervalMs: number
  maxFailures: number
  lockoutMs: number
}

export const DEFAULT_LIMITS: PairingLimits = {
  codeTtlMs: 60 * 60_000,
  maxPendingPerPlatform: 3,
  requestIntervalMs: 10 * 60_000,
  maxFailures: 5,
  lockoutMs: 60 * 60_000,
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE IF NOT EXISTS gateway_pairing_pending (
        salt TEXT NOT NULL, code_hash TEXT NOT NULL, platform TEXT NOT NULL, user_id TEXT NOT NULL,
        user_name TEXT, created_at INTEGER NOT NULL, expires_at INTEGER NOT NULL,
        PRIMARY KEY (platform, user_id));
      CREATE TABLE IF NOT EXISTS gateway_pairing_approved (
        platform TEXT NOT NULL, user_id TEXT NOT NULL, user_name TEXT, approved_at INTEGER NOT NULL,
        PRIMARY KEY (platform, user_id));
      CREATE TABLE IF NOT EXISTS gateway_pairing_requests (
        platform TEXT NOT NULL, user_id TEXT NOT NULL, last_at INTEGER NOT NULL, PRIMARY KEY (platform, user_id));
      CREATE TABLE IF NOT EXISTS gateway_pairing_failures (at INTEGER NOT NULL);`,
  },
]

export function generateCode(): string {
  let code = ''
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]
  return code
}

const hashCode = (salt: string, code: string) => createHash('sha256').update(`${salt}:${code.toUpperCase()}`).digest('hex')

export class PairingStore {
  constructor(
    private readonly database: () => DatabaseService | undefined,
    private readonly limits: PairingLimits = DEFAULT_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private db(): SqliteDatabase {
    const service = this.database()
    if (!service) throw new AgentError('E_DEPENDENCY', 'pairing needs state.db (the state-db extension is not loaded)')
    service.migrate('gateway-auth', MIGRATIONS)
    return service.db()
  }

  /** Whether the user holds an approved pairing; false when state.db is unavailable (deny). */
  isApproved(platform: string, userId: string): boolean {
    if (!this.database()) return false
    return this.db().prepare('SELECT 1 FROM gateway_pairing_approved WHERE platform = ? AND user_id = ?').get(platform, normaliseId(userId)) !== undefined
  }

  request(source: MessageSource): { code: string; expiresAt: number } | undefined {
    if (!source.userId) return undefined
    const db = this.db()
    const now = this.now()
    const userId = normaliseId(source.userId)
    return db.transaction(() => {
      db.prepare('DELETE FROM gateway_pairing_pending WHERE expires_at <= ?').run(now)
      const last = db.prepare('SELECT last_at FROM gateway_pairing_requests WHERE platform = ? AND user_id = ?').get(source.platform, userId) as { last_at: number } | undefined
      if (last && now - last.last_at < this.limits.requestIntervalMs) return undefined
      const { n } = db.prepare('SELECT count(*) AS n FROM gateway_pairing_pending WHERE platform = ? AND user_id != ?').get(source.platform, userId) as { n: number }
      if (n >= this.limits.maxPendingPerPlatform) return undefined
      const code = generateCode()
      const salt = randomBytes(16).toString('hex')
      const expiresAt = now + this.limits.codeTtlMs
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_pending (salt, code_hash, platform, user_id, user_name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        salt, hashCode(salt, code), source.platform, userId, source.userName ?? null, now, expiresAt,
      )
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_requests (platform, user_id, last_at) VALUES (?, ?, ?)').run(source.platform, userId, now)
      return { code, expiresAt }
    })()
  }

  approve(code: string): ApprovedPairing {
    const db = this.db()
    const now = this.now()
    const normalised = code.trim().toUpperCase()
    return db.transaction(() => {
      const { n } = db.prepare('SELECT count(*) AS n FROM gateway_pairing_failures WHERE at > ?').get(now - this.limits.lockoutMs) as { n: number }
      if (n >= this.limits.maxFailures) throw new AgentError('E_BLOCKED', 'too many failed pairing approvals; try again in an hour')
      const rows = db.prepare('SELECT * FROM gateway_pairing_pending WHERE expires_at > ?').all(now) as Array<{ salt: string; code_hash: string; platform: string; user_id: string; user_name: string | null }>
      const match = rows.find((row) => safeEqual(hashCode(row.salt, normalised), row.code_hash))
      if (!match) {
        db.prepare('INSERT INTO gateway_pairing_failures (at) VALUES (?)').run(now)
        throw new AgentError('E_NOT_FOUND', 'no pending pairing has that code (it may have expired)', { exitCode: 2 })
      }
      db.prepare('DELETE FROM gateway_pairing_pending WHERE platform = ? AND user_id = ?').run(match.platform, match.user_id)
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_approved (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)').run(match.platform, match.user_id, match.user_name, now)
      return { platform: match.platform, userId: match.user_id, userName: match.user_name ?? undefined, approvedAt: now }
    })()
  }

  revoke(platform: string, userId: string): boolean {
    return this.db().prepare('DELETE FROM gateway_pairing_approved WHERE platform = ? AND user_id = ?').run(platform, normaliseId(userId)).changes > 0
  }

  pending(): PendingPairing[] {
    const rows = this.db().prepare('SELECT platform, user_id, user_name, created_at, expires_at FROM gateway_pairing_pending WHERE expires_at > ? ORDER BY created_at').all(this.now()) as any[]
    return rows.map((r) => ({ platform: r.platform, userId: r.user_id, userName: r.user_name ?? undefined, createdAt: r.created_at, expiresAt: r.expires_at }))
  }

  approved(): ApprovedPairing[] {
    const rows = this.db().prepare('SELECT platform, user_id, user_name, approved_at FROM gateway_pairing_approved ORDER BY approved_at').all() as any[]
    return rows.map((r) => ({ platform: r.platform, userId: r.user_id, userName: r.user_name ?? undefined, approvedAt: r.approved_at }))
  }
}
