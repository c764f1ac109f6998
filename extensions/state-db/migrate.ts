// Versioned migrations per owner, recorded in schema_migrations(owner, version). Each pending
// migration runs in its own IMMEDIATE transaction and re-checks under the write lock, so two
// processes opening the same state.db at once apply each migration exactly once.

import { AgentError, errorMessage, type Migration, type SqliteDatabase } from 'agent/sdk'

const OWNER = /^[a-z][a-z0-9_-]*$/

export function ensureMigrationTable(db: SqliteDatabase): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    owner TEXT NOT NULL,
    version INTEGER NOT NULL,
    applied_at INTEGER NOT NULL,
    PRIMARY KEY (owner, version)
  ) WITHOUT ROWID`)
}

function checkList(owner: string, migrations: readonly Migration[]): Migration[] {
  if (!OWNER.test(owner)) throw new AgentError('E_STATE_DB', `migration owner "${owner}" must be a lowercase name`)
  const seen = new Set<number>()
  for (const m of migrations) {
    if (!Number.isInteger(m.version) || m.version < 1) throw new AgentError('E_STATE_DB', `migration of "${owner}": version ${String(m.version)} must be an integer of 1 or more`)
    if (seen.has(m.version)) throw new AgentError('E_STATE_DB', `migration of "${owner}": version ${m.version} is listed twice`)
    if (typeof m.up !== 'string' && typeof m.up !== 'function') throw new AgentError('E_STATE_DB', `migration ${owner}@${m.version}: "up" must be SQL text or a function`)
    seen.add(m.version)
  }
  return [...migrations].sort((a, b) => a.version - b.version)
}

/** Applies the migrations of `owner` that are not recorded yet; returns the versions applied. */
export function applyMigrations(db: SqliteDatabase, owner: string, migrations: readonly Migration[]): number[] {
  const sorted = checkList(owner, migrations)
  ensureMigrationTable(db)
  const appliedRows = db.prepare('SELECT version FROM schema_migrations WHERE owner = ?').pluck().all(owner) as number[]
  const applied = new Set(appliedRows)
  const done: number[] = []
  const isApplied = db.prepare('SELECT 1 FROM schema_migrations WHERE owner = ? AND version = ?').pluck()
  const record = db.prepare('INSERT INTO schema_migrations (owner, version, applied_at) VALUES (?, ?, ?)')
  for (const migration of sorted) {
    if (applied.has(migration.version)) continue
    const run = db.transaction(() => {
      // Another process may have applied it between our read and this write lock.
      if (isApplied.get(owner, migration.version)) return false
      if (typeof migration.up === 'string') db.exec(migration.up)
      else migration.up(db)
      record.run(owner, migration.version, Date.now())
      return true
    })
    try {
      if (run.immediate()) done.push(migration.version)
    } catch (error) {
      throw new AgentError('E_STATE_DB', `migration ${owner}@${migration.version} failed: ${errorMessage(error)}`, { cause: error })
    }
  }
  return done
}
