// The shared SQLite database <agent_home>/state.db (better-sqlite3, WAL): one file for sessions,
// messages and their FTS index, stored API responses, gateway pairing, cron runs. Each extension
// owns its tables and registers its own versioned migrations. Provided by the `state-db` extension.
// When `storage.url` names PostgreSQL, the shared stores use it instead (StorageService below) and
// each keeps one async interface over both backends.

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

// ─── Shared storage: SQLite (default) or PostgreSQL ──────────────────────────────────────────────
// `storage.url` or AGENT_DATABASE_URL (postgres://…) moves the shared state (sessions, stored API
// responses, cron, pairing, routing, webhook deliveries, adapter leases) to PostgreSQL so several
// instances share one truth. Provided by the `storage` extension; each owner picks its store by
// `backend` at first use and keeps the same service interface either way.

export const STORAGE_SERVICE = 'storage'

export type StorageBackend = 'sqlite' | 'postgres'

/** A migration for PostgreSQL: SQL text, run in one transaction with the other pending ones of its owner. */
export interface PgMigration {
  version: number
  up: string
}

/** What runs a query: the pool, or the client of a transaction. Answers the rows. */
export interface PgQuery {
  query<R = Record<string, any>>(text: string, params?: readonly unknown[]): Promise<R[]>
}

export interface PostgresService extends PgQuery {
  /** The URL without its password, for messages and `agent doctor`. */
  readonly label: string
  /** Runs `fn` in one transaction on one pooled client: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (client: PgQuery) => Promise<T>): Promise<T>
  /**
   * Group commit: the writes queued in one turn of the event loop share one transaction, each in
   * its own savepoint (one that throws is rolled back alone and rejects only its own promise).
   * Resolves once the commit holding it is done.
   */
  write<T>(fn: (client: PgQuery) => Promise<T>): Promise<T>
  /**
   * Applies `owner`'s pending migrations under an advisory lock (two instances starting at once apply
   * each once). Call it before every use: once applied it answers at once, callers arriving while it
   * runs share the run, and a failed run is tried again by the next call.
   */
  migrate(owner: string, migrations: readonly PgMigration[]): Promise<void>
  /**
   * Runs `fn` in a transaction holding the transaction-level advisory lock of `key`: a second
   * holder of the same key waits (or, with `wait: false`, gets undefined at once).
   */
  locked<T>(key: string, fn: (client: PgQuery) => Promise<T>, options?: { wait?: boolean }): Promise<T | undefined>
  /** Round trip to the server with its version (for `agent doctor`). */
  ping(): Promise<{ version: string; latencyMs: number }>
}

/**
 * Leases: a named role held by one instance at a time (a platform adapter, a conversation being
 * run). Taken when free or expired, kept by renewing before `ttlMs` runs out, released on drain.
 * Both backends keep them in the database, so processes on one machine share SQLite leases too.
 */
export interface LeaseService {
  /** This process's holder id (host, pid and a random part). */
  readonly holder: string
  /** True when this holder has the lease now (taken or renewed for `ttlMs`). */
  acquire(name: string, ttlMs: number): Promise<boolean>
  /** Gives the lease up if this holder has it. */
  release(name: string): Promise<void>
  /** Who holds it, while unexpired. */
  holderOf(name: string): Promise<{ holder: string; expiresAt: number } | undefined>
}

export interface StorageService {
  readonly backend: StorageBackend
  /**
   * Declares `owner`'s PostgreSQL schema (call in setup; nothing is opened). Stores still migrate
   * on first use; `agent storage migrate-to` applies every declared schema before copying rows,
   * table by table and column by column of the same names, so a PostgreSQL schema mirrors its
   * SQLite one (TEXT for JSON, BIGINT for epoch milliseconds, identity for integer ids).
   */
  declare(owner: string, migrations: readonly PgMigration[]): void
  /** Every declared schema, by owner. */
  declared(): ReadonlyMap<string, readonly PgMigration[]>
  /** The PostgreSQL service; throws E_STORAGE when the backend is SQLite. */
  postgres(): PostgresService
  readonly leases: LeaseService
}
