// Pairing kept in PostgreSQL, shared by every instance on the database: the same tables as in
// state.db. Requests and approvals run in one transaction holding one advisory lock, so a code
// approved on two instances at once is used once, and the rate limits, attempt counts and lockouts
// are the same for all of them.

import type { ApprovedPairing, MessageSource, PgMigration, PgQuery, PostgresService } from 'agent/sdk'
import { normaliseId } from './allowlist.ts'
import { approvedPairing, DEFAULT_LIMITS, lockedAtSql, matchCode, mayRequest, newOffer, pendingPairing, settle, type Approval, type PairingLimits, type PairingStore, type PendingRow } from './pairing.ts'

/** Mirrors the state.db tables (migrate-to copies them column by column). */
export const PG_MIGRATIONS: PgMigration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE gateway_pairing_pending (
        salt TEXT NOT NULL, code_hash TEXT NOT NULL, platform TEXT NOT NULL, user_id TEXT NOT NULL,
        user_name TEXT, created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL,
        PRIMARY KEY (platform, user_id));
      CREATE TABLE gateway_pairing_approved (
        platform TEXT NOT NULL, user_id TEXT NOT NULL, user_name TEXT, approved_at BIGINT NOT NULL,
        PRIMARY KEY (platform, user_id));
      CREATE TABLE gateway_pairing_requests (
        platform TEXT NOT NULL, user_id TEXT NOT NULL, last_at BIGINT NOT NULL, PRIMARY KEY (platform, user_id));
      CREATE TABLE gateway_pairing_failures (platform TEXT NOT NULL, user_id TEXT NOT NULL, at BIGINT NOT NULL);
      CREATE INDEX gateway_pairing_failures_user ON gateway_pairing_failures (platform, user_id, at);`,
  },
]

/** Every request and approval of every instance takes this lock: pairing is rare, one at a time is plenty. */
const LOCK = 'gateway-auth:pairing'
const PENDING = `SELECT p.*, ${lockedAtSql('$2', '$3')} FROM gateway_pairing_pending p WHERE p.expires_at > $1 ORDER BY p.created_at`

export class PgPairingStore implements PairingStore {
  constructor(
    private readonly postgres: () => PostgresService,
    private readonly limits: PairingLimits = DEFAULT_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  private async pg(): Promise<PostgresService> {
    const pg = this.postgres()
    await pg.migrate('gateway-auth', PG_MIGRATIONS)
    return pg
  }

  private pendingRows(client: PgQuery, now: number): Promise<PendingRow[]> {
    return client.query<PendingRow>(PENDING, [now, now - this.limits.lockoutMs, this.limits.maxFailures - 1])
  }

  async isApproved(platform: string, userId: string): Promise<boolean> {
    const rows = await (await this.pg()).query('SELECT 1 FROM gateway_pairing_approved WHERE platform = $1 AND user_id = $2', [platform, normaliseId(userId)])
    return rows.length > 0
  }

  async request(source: MessageSource): Promise<{ code: string; expiresAt: number } | undefined> {
    if (!source.userId) return undefined
    const pg = await this.pg()
    const now = this.now()
    const userId = normaliseId(source.userId)
    return pg.locked(LOCK, async (c) => {
      await c.query('DELETE FROM gateway_pairing_pending WHERE expires_at <= $1', [now])
      const [last] = await c.query<{ last_at: string }>('SELECT last_at FROM gateway_pairing_requests WHERE platform = $1 AND user_id = $2', [source.platform, userId])
      const [{ n }] = (await c.query<{ n: string }>('SELECT count(*) AS n FROM gateway_pairing_pending WHERE platform = $1 AND user_id != $2', [source.platform, userId])) as [{ n: string }]
      if (!mayRequest(this.limits, now, last ? Number(last.last_at) : undefined, Number(n))) return undefined
      const offer = newOffer(this.limits, now)
      await c.query(
        `INSERT INTO gateway_pairing_pending (salt, code_hash, platform, user_id, user_name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (platform, user_id) DO UPDATE SET salt = excluded.salt, code_hash = excluded.code_hash, user_name = excluded.user_name, created_at = excluded.created_at, expires_at = excluded.expires_at`,
        [offer.salt, offer.codeHash, source.platform, userId, source.userName ?? null, now, offer.expiresAt],
      )
      await c.query('INSERT INTO gateway_pairing_requests (platform, user_id, last_at) VALUES ($1, $2, $3) ON CONFLICT (platform, user_id) DO UPDATE SET last_at = excluded.last_at', [source.platform, userId, now])
      return { code: offer.code, expiresAt: offer.expiresAt }
    })
  }

  async approve(code: string): Promise<ApprovedPairing> {
    const pg = await this.pg()
    const now = this.now()
    // Commits in every outcome (failures included); settle() throws the refusal after it.
    const outcome = await pg.locked(LOCK, async (c): Promise<Approval> => {
      await c.query('DELETE FROM gateway_pairing_failures WHERE at <= $1', [now - this.limits.lockoutMs])
      const { match, open, lockedUntil } = matchCode(this.limits, await this.pendingRows(c, now), code)
      if (!match) {
        // A guess with nothing open to compare against locks nobody; the row keeps it on record.
        const against = open.length > 0 ? open : [{ platform: '', user_id: '' }]
        await c.query('INSERT INTO gateway_pairing_failures (platform, user_id, at) SELECT platform, user_id, $3 FROM unnest($1::text[], $2::text[]) AS t(platform, user_id)', [
          against.map((r) => r.platform), against.map((r) => r.user_id), now,
        ])
        return { ok: false, ...(lockedUntil === undefined ? {} : { lockedUntil }) }
      }
      // Guarded by the hash as well as the lock: a row already used (or replaced) approves nothing.
      const taken = await c.query('DELETE FROM gateway_pairing_pending WHERE platform = $1 AND user_id = $2 AND code_hash = $3 RETURNING 1', [match.platform, match.user_id, match.code_hash])
      if (taken.length === 0) return { ok: false }
      await c.query('DELETE FROM gateway_pairing_failures WHERE platform = $1 AND user_id = $2', [match.platform, match.user_id])
      await c.query(
        `INSERT INTO gateway_pairing_approved (platform, user_id, user_name, approved_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (platform, user_id) DO UPDATE SET user_name = excluded.user_name, approved_at = excluded.approved_at`,
        [match.platform, match.user_id, match.user_name, now],
      )
      return { ok: true, pairing: approvedPairing(match, now) }
    })
    return settle(this.limits, outcome!)
  }

  async revoke(platform: string, userId: string): Promise<boolean> {
    const rows = await (await this.pg()).query('DELETE FROM gateway_pairing_approved WHERE platform = $1 AND user_id = $2 RETURNING 1', [platform, normaliseId(userId)])
    return rows.length > 0
  }

  async pending() {
    const now = this.now()
    return (await this.pendingRows(await this.pg(), now)).map((row) => pendingPairing(this.limits, row))
  }

  async approved() {
    const rows = await (await this.pg()).query('SELECT platform, user_id, user_name, approved_at FROM gateway_pairing_approved ORDER BY approved_at')
    return rows.map((row) => approvedPairing(row as any, row.approved_at))
  }
}
