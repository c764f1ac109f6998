// Versioned migrations per owner on PostgreSQL, recorded in schema_migrations(owner, version) as on
// SQLite. One transaction per owner under a transaction-level advisory lock: two instances starting
// at once apply each version exactly once, and a failing version leaves nothing half applied.

import { AgentError, errorMessage, type PgMigration, type PgQuery } from 'agent/sdk'

const OWNER = /^[a-z][a-z0-9_-]*$/
/** The advisory lock key every migration takes (one at a time across instances). */
const MIGRATION_LOCK = 'agent:schema_migrations'

export function checkMigrations(owner: string, migrations: readonly PgMigration[]): PgMigration[] {
  if (!OWNER.test(owner)) throw new AgentError('E_STORAGE', `migration owner "${owner}" must be a lowercase name`)
  const seen = new Set<number>()
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version < 1) throw new AgentError('E_STORAGE', `migration of "${owner}": version ${String(m.version)} must be an integer of 1 or more`)
    if (seen.has(m.version)) throw new AgentError('E_STORAGE', `migration of "${owner}": version ${m.version} is listed twice`)
    if (typeof m.up !== 'string') throw new AgentError('E_STORAGE', `migration ${owner}@${m.version}: "up" must be SQL text`)
    seen.add(m.version)
  }
  return [...migrations].sort((a, b) => a.version - b.version)
}

/** Applies what is pending inside `client`'s open transaction; returns the versions applied. */
export async function applyPgMigrations(client: PgQuery, owner: string, migrations: readonly PgMigration[]): Promise<number[]> {
  const ordered = checkMigrations(owner, migrations)
  await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [MIGRATION_LOCK])
  await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    applied_at BIGINT NOT NULL,
    PRIMARY KEY (owner, version)
  )`)
  const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations WHERE owner = $1', [owner])).map((r) => Number(r.version)))
  const applied: number[] = []
  for (const m of ordered) {
    if (done.has(m.version)) continue
    try {
      await client.query(m.up)
    } catch (error) {
      throw new AgentError('E_STORAGE', `migration ${owner}@${m.version} failed: ${errorMessage(error)}`, { cause: error })
    }
    await client.query('INSERT INTO schema_migrations (owner, version, applied_at) VALUES ($1, $2, $3)', [owner, m.version, Date.now()])
    applied.push(m.version)
  }
  return applied
}
