// Leases in the database: a named role (`adapter:telegram`, `conversation:…`) held by one process at
// a time. Taking one is a single upsert that succeeds only when the lease is free, expired or
// already ours, so two instances racing for it cannot both win. On PostgreSQL expiry is judged by
// the database's clock, so instances on machines whose clocks disagree still agree on it.

import { hostname } from 'node:os'
import { randomHex, type DatabaseService, type LeaseService, type Migration, type PgMigration, type PostgresService } from 'agent/sdk'

const TABLE = `CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  holder TEXT NOT NULL,
  expires_at BIGINT NOT NULL
)`
export const SQLITE_MIGRATIONS: Migration[] = [{ version: 1, up: TABLE }]
export const PG_MIGRATIONS: PgMigration[] = [{ version: 1, up: TABLE }]

export const newHolderId = () => `${hostname()}:${process.pid}:${randomHex(4)}`

/**
 * Whether `holder` (an id from newHolderId) names a process of this machine that no longer runs.
 * SQLite leases live in a local file, so every holder is on this machine: a gateway killed and
 * restarted at once takes its adapters back without waiting for their leases to expire. (A reused
 * pid reads as alive: then the lease just expires.)
 */
export function deadLocalHolder(holder: string): boolean {
  const match = /^(.*):(\d+):[0-9a-f]+$/.exec(holder)
  if (!match || match[1] !== hostname()) return false
  const pid = Number(match[2])
  if (pid === process.pid) return false
  try {
    process.kill(pid, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

export function postgresLeases(pg: () => PostgresService, holder: string): LeaseService {
  const ready = () => pg().migrate('storage', PG_MIGRATIONS)
  const NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
  return {
    holder,
    async acquire(name, ttlMs) {
      await ready()
      const rows = await pg().query(
        `INSERT INTO leases (name, holder, expires_at) VALUES ($1, $2, ${NOW} + $3)
         ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
         WHERE leases.holder = EXCLUDED.holder OR leases.expires_at < ${NOW}
         RETURNING holder`,
        [name, holder, Math.max(1, Math.floor(ttlMs))],
      )
      return rows.length === 1
    },
    async release(name) {
      await ready()
      await pg().query('DELETE FROM leases WHERE name = $1 AND holder = $2', [name, holder])
    },
    async holderOf(name) {
      await ready()
      const [row] = await pg().query<{ holder: string; expires_at: string }>(`SELECT holder, expires_at FROM leases WHERE name = $1 AND expires_at >= ${NOW}`, [name])
      return row ? { holder: row.holder, expiresAt: Number(row.expires_at) } : undefined
    },
  }
}

export function sqliteLeases(database: () => DatabaseService, holder: string): LeaseService {
  const db = () => {
    const service = database()
    service.migrate('storage', SQLITE_MIGRATIONS)
    return service.db()
  }
  return {
    holder,
    async acquire(name, ttlMs) {
      const now = Date.now()
      const row = db()
        .prepare(
          `INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
           WHERE leases.holder = excluded.holder OR leases.expires_at < ?
           RETURNING holder`,
        )
        .get(name, holder, now + Math.max(1, Math.floor(ttlMs)), now)
      if (row !== undefined) return true
      const current = db().prepare('SELECT holder FROM leases WHERE name = ?').get(name) as { holder: string } | undefined
      if (!current || !deadLocalHolder(current.holder)) return false
      // Guarded by the dead holder's id: of two processes taking it over at once, one wins.
      return db().prepare('UPDATE leases SET holder = ?, expires_at = ? WHERE name = ? AND holder = ?').run(holder, now + Math.max(1, Math.floor(ttlMs)), name, current.holder).changes === 1
    },
    async release(name) {
      db().prepare('DELETE FROM leases WHERE name = ? AND holder = ?').run(name, holder)
    },
    async holderOf(name) {
      const row = db().prepare('SELECT holder, expires_at FROM leases WHERE name = ? AND expires_at >= ?').get(name, Date.now()) as { holder: string; expires_at: number } | undefined
      return row ? { holder: row.holder, expiresAt: row.expires_at } : undefined
    },
  }
}
