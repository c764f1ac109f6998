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
  /**
   * The open handle (opened on first use, WAL, foreign keys on, busy timeout set). Writes queued
   * with write() are committed first, so a read through it sees every write already requested.
   */
  db(): SqliteDatabase
  /**
   * Runs `write` in the next group commit: the writes queued in one turn of the event loop share a
   * transaction, each in its own savepoint (one that throws is rolled back alone and rejects only
   * its own promise). Resolves with its result once the commit holding it is done. `write` must be
   * synchronous. Use it for the writes of hot paths (a message per turn); one commit costs far more
   * than the few rows it carries.
   */
  write<T>(write: (db: SqliteDatabase) => T): Promise<T>
  /** Applies `owner`'s pending migrations; recorded in schema_migrations(owner, version). */
  migrate(owner: string, migrations: readonly Migration[]): void
  /** Path of the database file. */
  readonly path: string
}
