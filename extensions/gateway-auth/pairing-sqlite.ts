// Pairing kept in the local state.db (tables gateway_pairing_*). Each check-then-write runs in one
// IMMEDIATE transaction, so gateways sharing the file take turns.

import { AgentError, type ApprovedPairing, type DatabaseService, type MessageSource, type Migration, type SqliteDatabase } from 'agent/sdk'
import { normaliseId } from './allowlist.ts'
import { approvedPairing, DEFAULT_LIMITS, lockedAtSql, matchCode, mayRequest, newOffer, pendingPairing, settle, type Approval, type PairingLimits, type PairingStore, type PendingRow } from './pairing.ts'

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

const PENDING = `SELECT p.*, ${lockedAtSql('@since', '@offset')} FROM gateway_pairing_pending p WHERE p.expires_at > @now ORDER BY p.created_at`

export class SqlitePairingStore implements PairingStore {
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

  private pendingRows(db: SqliteDatabase, now: number): PendingRow[] {
    return db.prepare(PENDING).all({ now, since: now - this.limits.lockoutMs, offset: this.limits.maxFailures - 1 }) as PendingRow[]
  }

  /** False when state.db is unavailable (deny). */
  async isApproved(platform: string, userId: string): Promise<boolean> {
    if (!this.database()) return false
    return this.db().prepare('SELECT 1 FROM gateway_pairing_approved WHERE platform = ? AND user_id = ?').get(platform, normaliseId(userId)) !== undefined
  }

  async request(source: MessageSource): Promise<{ code: string; expiresAt: number } | undefined> {
    if (!source.userId) return undefined
    const db = this.db()
    const now = this.now()
    const userId = normaliseId(source.userId)
    return db.transaction(() => {
      db.prepare('DELETE FROM gateway_pairing_pending WHERE expires_at <= ?').run(now)
      const last = db.prepare('SELECT last_at FROM gateway_pairing_requests WHERE platform = ? AND user_id = ?').get(source.platform, userId) as { last_at: number } | undefined
      const { n } = db.prepare('SELECT count(*) AS n FROM gateway_pairing_pending WHERE platform = ? AND user_id != ?').get(source.platform, userId) as { n: number }
      if (!mayRequest(this.limits, now, last?.last_at, n)) return undefined
      const offer = newOffer(this.limits, now)
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_pending (salt, code_hash, platform, user_id, user_name, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
        offer.salt, offer.codeHash, source.platform, userId, source.userName ?? null, now, offer.expiresAt,
      )
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_requests (platform, user_id, last_at) VALUES (?, ?, ?)').run(source.platform, userId, now)
      return { code: offer.code, expiresAt: offer.expiresAt }
    }).immediate()
  }

  async approve(code: string): Promise<ApprovedPairing> {
    const db = this.db()
    const now = this.now()
    // Commits in every outcome (failures included); settle() throws the refusal after it.
    const outcome = db.transaction((): Approval => {
      db.prepare('DELETE FROM gateway_pairing_failures WHERE at <= ?').run(now - this.limits.lockoutMs)
      const { match, open, lockedUntil } = matchCode(this.limits, this.pendingRows(db, now), code)
      if (!match) {
        const fail = db.prepare('INSERT INTO gateway_pairing_failures (platform, user_id, at) VALUES (?, ?, ?)')
        for (const row of open) fail.run(row.platform, row.user_id, now)
        // A guess with nothing open to compare against locks nobody; the row keeps it on record.
        if (open.length === 0) fail.run('', '', now)
        return { ok: false, ...(lockedUntil === undefined ? {} : { lockedUntil }) }
      }
      db.prepare('DELETE FROM gateway_pairing_pending WHERE platform = ? AND user_id = ?').run(match.platform, match.user_id)
      db.prepare('DELETE FROM gateway_pairing_failures WHERE platform = ? AND user_id = ?').run(match.platform, match.user_id)
      db.prepare('INSERT OR REPLACE INTO gateway_pairing_approved (platform, user_id, user_name, approved_at) VALUES (?, ?, ?, ?)').run(match.platform, match.user_id, match.user_name, now)
      return { ok: true, pairing: approvedPairing(match, now) }
    }).immediate()
    return settle(this.limits, outcome)
  }

  async revoke(platform: string, userId: string): Promise<boolean> {
    return this.db().prepare('DELETE FROM gateway_pairing_approved WHERE platform = ? AND user_id = ?').run(platform, normaliseId(userId)).changes > 0
  }

  async pending() {
    return this.pendingRows(this.db(), this.now()).map((row) => pendingPairing(this.limits, row))
  }

  async approved() {
    const rows = this.db().prepare('SELECT platform, user_id, user_name, approved_at FROM gateway_pairing_approved ORDER BY approved_at').all() as any[]
    return rows.map((row) => approvedPairing(row, row.approved_at))
  }
}
