// The shared SQLite database <agent_home>/state.db (better-sqlite3, WAL): one file for sessions,
// messages and their FTS index, stored API responses, gateway pairing, cron runs. Each extension
// owns its tables and registers its own versioned migrations. Provided by the `state-db` extension.
// Keep storage behind this small interface so a server database can replace it later.

import type BetterSqlite3 from 'better-sqlite3'

export const DATABASE_SERVICE = 'database'

export type SqliteDatabase = BetterSqlite3.Database

export interface Migration {
  /** 1, 2, 3 … per owner; applied once each, in order, inside a transaction. */
  version: number
  /** SQL text, or a function for data migrations. */
  up: string | ((db: SqliteDatabase) => void)
}

export interface DatabaseService {
  /** The open handle (opened on first use, WAL, foreign keys on, busy timeout set). */
  db(): SqliteDatabase
  /** Applies `owner`'s pending migrations; recorded in schema_migrations(owner, version). */
  migrate(owner: string, migrations: readonly Migration[]): void
  /** Path of the database file. */
  readonly path: string
}
