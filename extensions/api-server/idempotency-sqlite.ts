// Idempotency keys in state.db (`api_server_idempotency`). Keys in flight are tracked in this
// process (one process owns a state.db's API server), and an answer is written behind it in the
// database's group commit: until that write lands, the answer waits in memory and replays from there.

import type { DatabaseService, Migration, SqliteDatabase } from 'agent/sdk'
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type IdempotentAnswer } from './idempotency.ts'

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE api_server_idempotency (
        key TEXT NOT NULL,
        path TEXT NOT NULL,
        request_hash TEXT NOT NULL,
        status INTEGER NOT NULL,
        content_type TEXT NOT NULL,
        session_id TEXT,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (key, path)
      );
      CREATE INDEX api_server_idempotency_created ON api_server_idempotency(created_at);
    `,
  },
]

interface Stored extends IdempotentAnswer {
  requestHash: string
  createdAt: number
}

export class SqliteIdempotencyStore implements IdempotencyStore {
  /** Scope (path + key) → request hash of the request running under it. */
  readonly #inFlight = new Map<string, string>()
  /** Answers given but not yet committed: they answer replays until their write lands. */
  readonly #committing = new Map<string, Stored>()
  #prepared: { db: SqliteDatabase; get: any; put: any; prune: any } | undefined

  constructor(
    private readonly database: () => DatabaseService,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  #stmts() {
    const service = this.database()
    const db = service.db()
    if (this.#prepared?.db === db) return this.#prepared
    service.migrate('api-server-idempotency', SQLITE_MIGRATIONS)
    this.#prepared = {
      db,
      get: db.prepare('SELECT request_hash, status, content_type, session_id, body, created_at FROM api_server_idempotency WHERE key = ? AND path = ?'),
      put: db.prepare(
        'INSERT OR REPLACE INTO api_server_idempotency (key, path, request_hash, status, content_type, session_id, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      prune: db.prepare('DELETE FROM api_server_idempotency WHERE created_at < ?'),
    }
    return this.#prepared
  }

  #lookup(key: string, path: string, scope: string): Stored | undefined {
    const found =
      this.#committing.get(scope) ??
      (() => {
        const row = this.#stmts().get.get(key, path) as Record<string, any> | undefined
        return row && { requestHash: row.request_hash, status: row.status, contentType: row.content_type, sessionId: row.session_id, body: row.body, createdAt: row.created_at }
      })()
    return found && found.createdAt >= this.now() - IDEMPOTENCY_TTL_MS ? found : undefined
  }

  async claim(key: string, path: string, requestHash: string): Promise<IdempotencyClaim> {
    const scope = `${path}\n${key}`
    const stored = this.#lookup(key, path, scope)
    const running = this.#inFlight.get(scope)
    if ((stored && stored.requestHash !== requestHash) || (running !== undefined && running !== requestHash)) return { kind: 'reused' }
    if (stored) return { kind: 'replay', answer: { status: stored.status, contentType: stored.contentType, sessionId: stored.sessionId, body: stored.body } }
    if (running !== undefined) return { kind: 'in_flight' }
    this.#inFlight.set(scope, requestHash)
    return { kind: 'run' }
  }

  async settle(key: string, path: string, requestHash: string, answer: IdempotentAnswer | undefined): Promise<void> {
    const scope = `${path}\n${key}`
    // The answer is in #committing before the key leaves #inFlight: no moment without either.
    try {
      if (answer) this.#save(key, path, scope, { requestHash, ...answer, createdAt: this.now() })
    } finally {
      this.#inFlight.delete(scope)
    }
  }

  #save(key: string, path: string, scope: string, stored: Stored): void {
    this.#committing.set(scope, stored)
    const service = this.database()
    const { put, prune } = this.#stmts()
    service
      .write(() => {
        put.run(key, path, stored.requestHash, stored.status, stored.contentType, stored.sessionId, stored.body, stored.createdAt)
        prune.run(this.now() - IDEMPOTENCY_TTL_MS)
      })
      .catch((error: unknown) => this.warn(`could not store an idempotent answer: ${(error as Error)?.message ?? error}`))
      .finally(() => {
        if (this.#committing.get(scope) === stored) this.#committing.delete(scope)
      })
  }
}
