// DM pairing kept in state.db: short one-time codes (8 characters, no look-alike letters) stored
// salted and hashed, expiring after an hour, at most 3 pending per platform, one request per user per
// 10 minutes. A wrong code counts as a failed guess against every pending pairing it could have been
// meant for; 5 within 15 minutes lock that platform and user's pairing (the right code is refused too)
// until the 15 minutes have passed. Codes are never logged.

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
  lockoutMs: 15 * 60_000,
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
  {
    // Failures per platform and user (version 1 kept a global list, which a rolled-back transaction left empty).
    version: 2,
    up: `
      DROP TABLE IF EXISTS gateway_pairing_failures;
      CREATE TABLE gateway_pairing_failures (platform TEXT NOT NULL, user_id TEXT NOT NULL, at INTEGER NOT NULL);
      CREATE INDEX gateway_pairing_failures_user ON gateway_pairing_failures (platform, user_id, at);`,
  },
]

interface PendingRow {
  salt: string
  code_hash: string
  platform: string
  user_id: string
  user_name: string | null
  created_at: number
  expires_at: number
}

type Approval = { ok: true; pairing: ApprovedPairing } | { ok: false; lockedUntil?: number }

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

  /** When the pairing of (platform, user) is locked after failed approvals, the time the lock lifts. */
  private lockedUntil(db: SqliteDatabase, platform: string, userId: string, now: number): number | undefined {
    const { maxFailures, lockoutMs } = this.limits
    // The lock lasts while maxFailures failures lie within the last lockoutMs: until the oldest of the newest maxFailures ages out.
    const row = db.prepare('SELECT at FROM gateway_pairing_failures WHERE platform = ? AND user_id = ? AND at > ? ORDER BY at DESC LIMIT 1 OFFSET ?').get(platform, userId, now - lockoutMs, maxFailures - 1) as { at: number } | undefined
    return row ? row.at + lockoutMs : undefined
  }

  approve(code: string): ApprovedPairing {
    const db = this.db()
    const now = this.now()
    const normalised = code.trim().toUpperCase()
    // The transaction commits in every outcome (failures included) and the refusal is thrown after it:
    // a failure written inside a transaction that then throws would be rolled back with it.
    const outcome = db.transaction((): Approval => {
      db.prepare('DELETE FROM gateway_pairing_failures WHERE at <= ?').run(now - this.limits.lockoutMs)
      const rows = db.prepare('SELECT * FROM gateway_pairing_pending WHERE expires_at > ?').all(now) as PendingRow[]
      let lockedUntil: number | undefined
      const open: PendingRow[] = []
      for (const row of rows) {
        const until = this.lockedUntil(db, row.platform, row.user_id, now)
        if (until === undefined) open.push(row)
        else lockedUntil = Math.max(lockedUntil ?? 0, until)
      }
      // Locked pairings are not compared at all, so the answer cannot tell a right guess from a wrong one.
      const match = open.find((row) => safeEqual(hashCode(row.salt, normalised), row.code_hash))
      if (!match) {
        const fail = db.prepare('INSERT INTO gateway_pairing_failures (platform, user_id, at) VALUES (?, ?, ?)')
        for (const row of open) fail.run(row.platform, row.user_id, now)
        // A guess with nothing open to compare against locks nobody; the row keeps it on record.
        if (open.length === 0) fail.run('', '', now)
        return { ok: false, lockedUntil }
      }
      db.prepare('DELETE FROM gateway_pairing_pending WHERE platform = ? AND user_id = ?').run(match.platform, match.user_id)
      db.prepare('DELETE FROM gateway_pairing_failures WHERE platform = ? AND user_id = ?').run(match.platform, match.user_id)
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_approved (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)').run(match.platform, match.user_id, match.user_name, now)
      return { ok: true, pairing: { platform: match.platform, userId: match.user_id, userName: match.user_name ?? undefined, approvedAt: now } }
    }).immediate()
    if (outcome.ok) return outcome.pairing
    if (outcome.lockedUntil !== undefined) {
      throw new AgentError('E_BLOCKED', `no open pending pairing has that code; pairings locked after ${this.limits.maxFailures} failed approvals open again at ${new Date(outcome.lockedUntil).toISOString()}`, { exitCode: 2 })
    }
    throw new AgentError('E_NOT_FOUND', 'no pending pairing has that code (it may have expired)', { exitCode: 2 })
  }

  revoke(platform: string, userId: string): boolean {
    return this.db().prepare('DELETE FROM gateway_pairing_approved WHERE platform = ? AND user_id = ?').run(platform, normaliseId(userId)).changes > 0
  }

  pending(): PendingPairing[] {
    const db = this.db()
    const now = this.now()
    const rows = db.prepare('SELECT platform, user_id, user_name, created_at, expires_at FROM gateway_pairing_pending WHERE expires_at > ? ORDER BY created_at').all(now) as PendingRow[]
    return rows.map((r) => {
      const lockedUntil = this.lockedUntil(db, r.platform, r.user_id, now)
      return { platform: r.platform, userId: r.user_id, userName: r.user_name ?? undefined, createdAt: r.created_at, expiresAt: r.expires_at, ...(lockedUntil ? { lockedUntil } : {}) }
    })
  }

  approved(): ApprovedPairing[] {
    const rows = this.db().prepare('SELECT platform, user_id, user_name, approved_at FROM gateway_pairing_approved ORDER BY approved_at').all() as any[]
    return rows.map((r) => ({ platform: r.platform, userId: r.user_id, userName: r.user_name ?? undefined, approvedAt: r.approved_at }))
  }
}
