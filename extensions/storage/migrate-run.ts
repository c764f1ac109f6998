// `agent storage migrate-to`, the steps: apply every declared PostgreSQL schema, pair the tables of
// state.db with theirs, copy table by table, verify by counts. Generic: it knows no owner, only what
// the owners declared and what the two catalogs say. A dry run does the same inside one transaction
// it rolls back, so it reports what would be created and copied and leaves the server untouched.

import type { PgMigration, PgQuery, PostgresService, SqliteDatabase } from 'agent/sdk'
import { pgTables, plan, sqliteTables, type PlannedTable, type Skipped } from './migrate-catalog.ts'
import { copyTable, countPg, countSqlite, type CopyOptions, type TableResult } from './migrate-copy.ts'
import { applyPgMigrations, checkMigrations } from './pg-migrate.ts'

export interface SchemaResult {
  owner: string
  /** Versions this run applied (on a dry run: would apply). */
  applied: number[]
  latest: number
}

export interface MigrationReport {
  dryRun: boolean
  schemas: SchemaResult[]
  tables: TableResult[]
  skipped: Skipped[]
  /** Every copied table has at least as many rows in PostgreSQL as in state.db (null on a dry run). */
  verified: boolean | null
}

export interface MigrateOptions extends CopyOptions {
  dryRun?: boolean
}

const ROLLBACK = Symbol('dry run: roll back')

async function applySchemas(run: (owner: string, migrations: readonly PgMigration[]) => Promise<number[]>, schemas: ReadonlyMap<string, readonly PgMigration[]>): Promise<SchemaResult[]> {
  const results: SchemaResult[] = []
  for (const [owner, migrations] of [...schemas].sort(([a], [b]) => a.localeCompare(b))) {
    const latest = checkMigrations(owner, migrations).reduce((max, m) => Math.max(max, m.version), 0)
    results.push({ owner, applied: await run(owner, migrations), latest })
  }
  return results
}

async function pairs(db: SqliteDatabase, pg: PgQuery): Promise<{ tables: PlannedTable[]; skipped: Skipped[] }> {
  const source = sqliteTables(db)
  const target = await pgTables(pg)
  const paired = plan(source.tables, target.tables, target.parents)
  return { tables: paired.tables, skipped: [...source.skipped, ...paired.skipped].sort((a, b) => a.table.localeCompare(b.table)) }
}

export async function migrateTo(db: SqliteDatabase, pg: PostgresService, schemas: ReadonlyMap<string, readonly PgMigration[]>, options: MigrateOptions = {}): Promise<MigrationReport> {
  if (options.dryRun) {
    let report: MigrationReport | undefined
    try {
      await pg.transaction(async (client) => {
        const applied = await applySchemas((owner, ms) => applyPgMigrations(client, owner, ms), schemas)
        const { tables, skipped } = await pairs(db, client)
        const results: TableResult[] = []
        for (const p of tables) results.push({ table: p.source.name, source: countSqlite(db, p.source.name), copied: null, target: await countPg(client, p.target.name), dropped: p.dropped })
        report = { dryRun: true, schemas: applied, tables: results, skipped, verified: null }
        throw ROLLBACK
      })
    } catch (error) {
      if (error !== ROLLBACK) throw error
    }
    return report!
  }
  const applied = await applySchemas((owner, ms) => pg.transaction((client) => applyPgMigrations(client, owner, ms)), schemas)
  const { tables, skipped } = await pairs(db, pg)
  const results: TableResult[] = []
  for (const p of tables) results.push(await copyTable(db, pg, p, options))
  return { dryRun: false, schemas: applied, tables: results, skipped, verified: results.every((r) => r.target >= r.source) }
}
