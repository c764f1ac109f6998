// What `agent storage migrate-to` reads before copying: the tables of state.db and of the target
// PostgreSQL schema, which pairs of them to copy (same table name, the columns both have) and in
// which order (parents before the tables whose foreign keys point at them). Nothing here writes.

import type { PgQuery, SqliteDatabase } from 'agent/sdk'

export interface SqliteTable {
  name: string
  columns: string[]
  /** Has a rowid to page by; WITHOUT ROWID tables page by their primary key. */
  rowid: boolean
  primaryKey: string[]
}

export interface PgColumn {
  type: string
  /** 'a' GENERATED ALWAYS, 'd' BY DEFAULT, '' none. */
  identity: string
  /** The sequence behind an identity or serial column. */
  sequence: string | null
}

export interface PgTable {
  name: string
  columns: Map<string, PgColumn>
  /** A primary key or unique index: ON CONFLICT DO NOTHING can recognise a row copied before. */
  keyed: boolean
}

export interface Skipped {
  table: string
  reason: string
}

export interface PlannedTable {
  source: SqliteTable
  target: PgTable
  /** The columns both have, in SQLite's order. */
  columns: string[]
  /** SQLite columns PostgreSQL does not have (not copied). */
  dropped: string[]
}

/** Tables that say where to copy, not what: never copied (each side keeps its own). */
const BOOKKEEPING = new Set(['schema_migrations', 'leases'])

export const quoteSqlite = (name: string): string => `"${name.replace(/"/g, '""')}"`
export const quotePg = quoteSqlite

export function sqliteTables(db: SqliteDatabase): { tables: SqliteTable[]; skipped: Skipped[] } {
  const rows = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as Array<{ name: string; sql: string | null }>
  const virtual = rows.filter((r) => /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(r.sql ?? '')).map((r) => r.name)
  const tables: SqliteTable[] = []
  const skipped: Skipped[] = []
  for (const { name, sql } of rows) {
    if (name.startsWith('sqlite_')) skipped.push({ table: name, reason: 'SQLite internal' })
    else if (BOOKKEEPING.has(name)) skipped.push({ table: name, reason: 'kept by each database itself' })
    else if (virtual.includes(name)) skipped.push({ table: name, reason: 'SQLite virtual table (PostgreSQL indexes on its own)' })
    else if (virtual.some((v) => name.startsWith(`${v}_`))) skipped.push({ table: name, reason: 'SQLite full-text index internals' })
    else {
      const info = db.prepare(`PRAGMA table_info(${quoteSqlite(name)})`).all() as Array<{ name: string; pk: number }>
      tables.push({
        name,
        columns: info.map((c) => c.name),
        rowid: !/WITHOUT\s+ROWID\s*$/i.test(sql ?? ''),
        primaryKey: info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
      })
    }
  }
  return { tables, skipped }
}

/** Columns PostgreSQL computes itself (GENERATED … STORED, e.g. a search vector) are not listed: never written. */
export async function pgTables(pg: PgQuery): Promise<{ tables: Map<string, PgTable>; parents: Map<string, Set<string>> }> {
  const columns = await pg.query<{ table: string; column: string; type: string; identity: string; sequence: string | null; keyed: boolean }>(`
    SELECT c.relname AS table, a.attname AS column, format_type(a.atttypid, a.atttypmod) AS type, a.attidentity AS identity,
           pg_get_serial_sequence(quote_ident(n.nspname) || '.' || quote_ident(c.relname), a.attname) AS sequence,
           EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.indisunique) AS keyed
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
    WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
    ORDER BY c.relname, a.attnum`)
  const tables = new Map<string, PgTable>()
  for (const row of columns) {
    const table = tables.get(row.table) ?? { name: row.table, columns: new Map(), keyed: row.keyed }
    table.columns.set(row.column, { type: row.type, identity: row.identity, sequence: row.sequence })
    tables.set(row.table, table)
  }
  const links = await pg.query<{ child: string; parent: string }>(`
    SELECT ch.relname AS child, pa.relname AS parent
    FROM pg_constraint k JOIN pg_class ch ON ch.oid = k.conrelid JOIN pg_class pa ON pa.oid = k.confrelid
    JOIN pg_namespace n ON n.oid = ch.relnamespace
    WHERE k.contype = 'f' AND n.nspname = current_schema() AND ch.oid <> pa.oid`)
  const parents = new Map<string, Set<string>>()
  for (const { child, parent } of links) parents.set(child, (parents.get(child) ?? new Set()).add(parent))
  return { tables, parents }
}

/** Pairs each SQLite table with its PostgreSQL namesake; parents first so foreign keys hold. */
export function plan(source: SqliteTable[], target: Map<string, PgTable>, parents: Map<string, Set<string>>): { tables: PlannedTable[]; skipped: Skipped[] } {
  const skipped: Skipped[] = []
  const paired: PlannedTable[] = []
  for (const table of source) {
    const pg = target.get(table.name)
    if (!pg) {
      skipped.push({ table: table.name, reason: 'no table of that name in PostgreSQL' })
      continue
    }
    const columns = table.columns.filter((c) => pg.columns.has(c))
    if (columns.length === 0) skipped.push({ table: table.name, reason: 'no column in common with PostgreSQL' })
    else paired.push({ source: table, target: pg, columns, dropped: table.columns.filter((c) => !pg.columns.has(c)) })
  }
  // Depth-first over the foreign keys; in a cycle (rare) the table first reached goes first.
  const ordered: PlannedTable[] = []
  const seen = new Set<string>()
  const byName = new Map(paired.map((p) => [p.source.name, p]))
  const visit = (p: PlannedTable): void => {
    if (seen.has(p.source.name)) return
    seen.add(p.source.name)
    for (const parent of parents.get(p.source.name) ?? []) {
      const q = byName.get(parent)
      if (q) visit(q)
    }
    ordered.push(p)
  }
  for (const p of paired) visit(p)
  return { tables: ordered, skipped }
}
