// Copies one table from state.db into its PostgreSQL namesake: pages of rows in rowid (or primary
// key) order, each page one INSERT … ON CONFLICT DO NOTHING in a transaction of its own, so a rerun
// skips what an earlier, interrupted run committed (idempotent, resumable). Identity sequences are
// moved past the explicit ids copied, or the next row PostgreSQL numbers itself would collide.

import { AgentError, errorMessage, type PgQuery, type PostgresService, type SqliteDatabase } from 'agent/sdk'
import { quotePg, quoteSqlite, type PgColumn, type PlannedTable } from './migrate-catalog.ts'

export interface TableResult {
  table: string
  source: number
  /** Rows inserted by this run (null on a dry run). */
  copied: number | null
  target: number
  /** SQLite columns left behind: PostgreSQL has no such column. */
  dropped: string[]
  /** Why rows were not copied although the table was paired. */
  note?: string
}

export interface CopyOptions {
  /** Rows per INSERT (bounded again by PostgreSQL's 65,535 parameters). */
  batchRows?: number
  progress?(table: string, done: number, total: number): void
}

const MAX_PARAMETERS = 60_000

export async function countPg(pg: PgQuery, table: string): Promise<number> {
  const [row] = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM ${quotePg(table)}`)
  return Number(row?.n ?? 0)
}

export function countSqlite(db: SqliteDatabase, table: string): number {
  return Number((db.prepare(`SELECT count(*) AS n FROM ${quoteSqlite(table)}`).get() as { n: number }).n)
}

/** PostgreSQL text cannot hold NUL (SQLite can: a tool's binary output); U+FFFD as the stores write it. */
const noNul = (v: unknown) => (typeof v === 'string' && v.includes('\u0000') ? v.replace(/\u0000/g, '\ufffd') : v)

/** SQLite keeps flags as 0/1 and times as numbers: give PostgreSQL the type its column has. */
function converter(column: PgColumn): (value: unknown) => unknown {
  if (column.type === 'boolean') return (v) => (typeof v === 'number' || typeof v === 'bigint' ? Number(v) !== 0 : v)
  if (column.type.startsWith('timestamp')) return (v) => (typeof v === 'number' || typeof v === 'bigint' ? new Date(Number(v)) : v)
  return noNul
}

/** Pages of rows as arrays of the planned columns, in a stable order a rerun repeats. */
function* pages(db: SqliteDatabase, p: PlannedTable, size: number): Generator<unknown[][]> {
  const cols = p.columns.map(quoteSqlite).join(', ')
  const from = quoteSqlite(p.source.name)
  if (p.source.rowid) {
    const stmt = db.prepare(`SELECT rowid, ${cols} FROM ${from} WHERE rowid > ? ORDER BY rowid LIMIT ?`).raw(true).safeIntegers(true)
    let after: bigint = -(2n ** 63n)
    for (;;) {
      const rows = stmt.all(after, size) as unknown[][]
      if (rows.length === 0) return
      after = rows[rows.length - 1]![0] as bigint
      yield rows.map((r) => r.slice(1))
    }
  }
  const order = (p.source.primaryKey.length ? p.source.primaryKey : p.source.columns).map(quoteSqlite).join(', ')
  const stmt = db.prepare(`SELECT ${cols} FROM ${from} ORDER BY ${order} LIMIT ? OFFSET ?`).raw(true).safeIntegers(true)
  for (let offset = 0; ; offset += size) {
    const rows = stmt.all(size, offset) as unknown[][]
    if (rows.length === 0) return
    yield rows
  }
}

function insertSql(p: PlannedTable, rows: number): string {
  const n = p.columns.length
  const values = Array.from({ length: rows }, (_, r) => `(${p.columns.map((_, c) => `$${r * n + c + 1}`).join(', ')})`).join(', ')
  const always = p.columns.some((c) => p.target.columns.get(c)!.identity === 'a') ? ' OVERRIDING SYSTEM VALUE' : ''
  return `WITH ins AS (INSERT INTO ${quotePg(p.target.name)} (${p.columns.map(quotePg).join(', ')})${always} VALUES ${values} ON CONFLICT DO NOTHING RETURNING 1) SELECT count(*) AS n FROM ins`
}

export async function copyTable(db: SqliteDatabase, pg: PostgresService, p: PlannedTable, options: CopyOptions = {}): Promise<TableResult> {
  try {
    return await copyRows(db, pg, p, options)
  } catch (error) {
    // The server's message (a type, a constraint) rarely names the table: say which, and that a rerun resumes.
    throw new AgentError('E_STORAGE', `copying table ${p.source.name}: ${errorMessage(error)} (what was committed stays; a rerun goes on from there)`, { cause: error })
  }
}

async function copyRows(db: SqliteDatabase, pg: PostgresService, p: PlannedTable, options: CopyOptions): Promise<TableResult> {
  const table = p.source.name
  const source = countSqlite(db, table)
  const result: TableResult = { table, source, copied: 0, target: 0, dropped: p.dropped }
  const size = Math.max(1, Math.min(options.batchRows ?? 500, Math.floor(MAX_PARAMETERS / p.columns.length)))
  const convert = p.columns.map((c) => converter(p.target.columns.get(c)!))
  const insert = async (client: PgQuery, rows: unknown[][]): Promise<number> => {
    const params = rows.flatMap((row) => row.map((v, i) => convert[i]!(v)))
    const [row] = await client.query<{ n: string }>(insertSql(p, rows.length), params)
    return Number(row?.n ?? 0)
  }
  let done = 0
  if (p.target.keyed) {
    let copied = 0
    for (const rows of pages(db, p, size)) {
      copied += await pg.transaction((client) => insert(client, rows))
      options.progress?.(table, (done += rows.length), source)
    }
    result.copied = copied
  } else if ((await countPg(pg, table)) > 0) {
    // Without a key a second copy would duplicate every row: copy only into an empty table.
    result.note = 'PostgreSQL table has no primary key or unique index and already has rows: not copied'
  } else {
    // All or nothing, so an interrupted copy leaves the table empty and a rerun starts it again.
    result.copied = await pg.transaction(async (client) => {
      let copied = 0
      for (const rows of pages(db, p, size)) {
        copied += await insert(client, rows)
        options.progress?.(table, (done += rows.length), source)
      }
      return copied
    })
  }
  await resetSequences(pg, p)
  result.target = await countPg(pg, table)
  return result
}

/** Moves each identity (or serial) sequence of a copied column to the largest id now present. */
async function resetSequences(pg: PgQuery, p: PlannedTable): Promise<void> {
  for (const column of p.columns) {
    const sequence = p.target.columns.get(column)!.sequence
    if (!sequence) continue
    await pg.query(`SELECT setval($1::regclass, m) FROM (SELECT max(${quotePg(column)}) AS m FROM ${quotePg(p.target.name)}) t WHERE m IS NOT NULL`, [sequence])
  }
}
