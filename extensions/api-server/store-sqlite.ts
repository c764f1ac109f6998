// The API server's store on SQLite (state.db): today's tables and behaviour. Statements are prepared
// once per database handle (a hot-reloaded state-db hands out a new one).
//
// Stored responses are committed before the answer: the API promises them. Session heads and LRU
// read-stamps are conveniences, so they are written behind (batched every FLUSH_MS, and on stop):
// with state.db fsyncing every commit, a synchronous write per request would cost more than the
// rest of the server's work. Until flushed, the pending map answers in their place. One process
// owns a state.db's heads: the claim is atomic within it (several instances share PostgreSQL).

import type BetterSqlite3 from 'better-sqlite3'
import type { DatabaseService, Migration, SqliteDatabase } from 'agent/sdk'
import { FLUSH_MS, HEADS_MAX, HEADS_PRUNE_EVERY, parseInputItems, parseResponseRow, responseColumns, type ApiStore, type ResponseRow, type StoreOptions, type StoredResponse } from './store.ts'

type Statement = BetterSqlite3.Statement

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE api_server_responses (
        id TEXT PRIMARY KEY,
        response TEXT NOT NULL,
        transcript TEXT NOT NULL,
        instructions TEXT,
        session_id TEXT,
        conversation TEXT,
        created_at INTEGER NOT NULL,
        used INTEGER NOT NULL
      );
      CREATE INDEX api_server_responses_used ON api_server_responses(used);
      CREATE TABLE api_server_conversations (
        name TEXT PRIMARY KEY,
        response_id TEXT NOT NULL REFERENCES api_server_responses(id) ON DELETE CASCADE
      );
      CREATE INDEX api_server_conversations_response ON api_server_conversations(response_id);
      CREATE TABLE api_server_heads (
        head TEXT PRIMARY KEY,
        session_id TEXT NOT NULL UNIQUE,
        used INTEGER NOT NULL
      );
      CREATE INDEX api_server_heads_used ON api_server_heads(used);
    `,
  },
  {
    // The input items of each response (GET /v1/responses/{id}/input_items, item_reference), and the
    // names of conversations whose latest response was deleted or evicted: continuing one is a 404
    // naming it, not a silent new chain.
    version: 2,
    up: `
      ALTER TABLE api_server_responses ADD COLUMN input TEXT;
      CREATE TABLE api_server_lost_conversations (name TEXT PRIMARY KEY);
      CREATE TRIGGER api_server_conversation_lost BEFORE DELETE ON api_server_responses BEGIN
        INSERT OR IGNORE INTO api_server_lost_conversations (name) SELECT name FROM api_server_conversations WHERE response_id = OLD.id;
      END;
    `,
  },
]

interface Prepared {
  db: SqliteDatabase
  get: Statement
  touch: Statement
  insert: Statement
  count: Statement
  evict: Statement
  remove: Statement
  conversationHead: Statement
  lost: Statement
  input: Statement
  setConversation: Statement
  peek: Statement
  advance: Statement
  drop: Statement
  prune: Statement
  putTx: (record: StoredResponse, createdAt: number) => void
  flushTx: () => void
}

export class SqliteApiStore implements ApiStore {
  #prepared: Prepared | undefined
  #clock = 0
  #headWrites = 0
  /** Head → session id, or null once claimed: written behind. */
  readonly #heads = new Map<string, string | null>()
  /** Response id → LRU stamp of its last read: written behind. */
  readonly #touches = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined

  constructor(
    private readonly database: () => DatabaseService,
    private readonly options: Pick<StoreOptions, 'capacity' | 'onFlushError'>,
  ) {}

  /** Opens (and migrates) on first use; cheap afterwards. `current`: the handle a group commit runs on. */
  #stmts(current?: SqliteDatabase): Prepared {
    if (current && this.#prepared?.db === current) return this.#prepared
    const service = this.database()
    const db = current ?? service.db()
    if (this.#prepared?.db === db) return this.#prepared
    service.migrate('api-server', SQLITE_MIGRATIONS)
    const max = (sql: string) => Number((db.prepare(sql).get() as { m: number | null }).m ?? 0)
    this.#clock = Math.max(this.#clock, max('SELECT MAX(used) AS m FROM api_server_responses'), max('SELECT MAX(used) AS m FROM api_server_heads'))
    const p = {
      db,
      get: db.prepare('SELECT response, transcript, instructions, session_id, conversation FROM api_server_responses WHERE id = ?'),
      touch: db.prepare('UPDATE api_server_responses SET used = ? WHERE id = ?'),
      insert: db.prepare(
        'INSERT OR REPLACE INTO api_server_responses (id, response, transcript, instructions, session_id, conversation, created_at, used, input) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      count: db.prepare('SELECT COUNT(*) AS n FROM api_server_responses'),
      evict: db.prepare('DELETE FROM api_server_responses WHERE id IN (SELECT id FROM api_server_responses ORDER BY used ASC LIMIT ?)'),
      remove: db.prepare('DELETE FROM api_server_responses WHERE id = ?'),
      // A mapping whose response is gone (evicted) is no head: the name then starts a new chain.
      conversationHead: db.prepare('SELECT c.response_id AS id FROM api_server_conversations c JOIN api_server_responses r ON r.id = c.response_id WHERE c.name = ?'),
      lost: db.prepare('SELECT 1 FROM api_server_lost_conversations WHERE name = ?'),
      input: db.prepare('SELECT input FROM api_server_responses WHERE id = ?'),
      setConversation: db.prepare('INSERT OR REPLACE INTO api_server_conversations (name, response_id) VALUES (?, ?)'),
      peek: db.prepare('SELECT session_id FROM api_server_heads WHERE head = ?'),
      // One head per session: replacing by either key drops the session's previous head.
      advance: db.prepare('INSERT OR REPLACE INTO api_server_heads (head, session_id, used) VALUES (?, ?, ?)'),
      drop: db.prepare('DELETE FROM api_server_heads WHERE head = ?'),
      prune: db.prepare('DELETE FROM api_server_heads WHERE head IN (SELECT head FROM api_server_heads ORDER BY used DESC LIMIT -1 OFFSET ?)'),
    } as Omit<Prepared, 'putTx' | 'flushTx'>
    const writePending = () => {
      for (const [id, used] of this.#touches) p.touch.run(used, id)
      this.#touches.clear()
      for (const [head, sessionId] of this.#heads) {
        if (sessionId === null) p.drop.run(head)
        else {
          p.advance.run(head, sessionId, ++this.#clock)
          if (++this.#headWrites % HEADS_PRUNE_EVERY === 0) p.prune.run(HEADS_MAX)
        }
      }
      this.#heads.clear()
    }
    const putTx = db.transaction((record: StoredResponse, createdAt: number) => {
      // Pending read-stamps first, so eviction sees what was read recently.
      writePending()
      const [response, transcript, instructions, sessionId, conversation, input] = responseColumns(record)
      p.insert.run(record.id, response, transcript, instructions, sessionId, conversation, createdAt, ++this.#clock, input)
      if (record.conversation) p.setConversation.run(record.conversation, record.id)
      const { n } = p.count.get() as { n: number }
      if (n > this.options.capacity) p.evict.run(n - this.options.capacity)
    })
    this.#prepared = { ...p, putTx, flushTx: db.transaction(writePending) }
    return this.#prepared
  }

  #later(): void {
    if (this.#timer) return
    this.#timer = setTimeout(() => this.#flushNow(), FLUSH_MS)
    this.#timer.unref()
  }

  async flush(): Promise<void> {
    this.#flushNow()
  }

  #flushNow(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#heads.size === 0 && this.#touches.size === 0) return
    try {
      this.#stmts().flushTx()
    } catch (error) {
      // Lost continuity at worst: the next request for such a conversation seeds a new session.
      this.#heads.clear()
      this.#touches.clear()
      this.options.onFlushError(error)
    }
  }

  async warm(): Promise<void> {
    this.#stmts()
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const s = this.#stmts()
    const row = s.get.get(id) as ResponseRow | undefined
    if (!row) return undefined
    const record = parseResponseRow(id, row)
    if (!record) {
      s.remove.run(id)
      return undefined
    }
    this.#touches.set(id, ++this.#clock)
    this.#later()
    return record
  }

  /** Through the database's group commit: the session's last write (stored behind the answer) and this one share a commit. */
  put(record: StoredResponse, createdAt: number): Promise<void> {
    return this.database().write((db) => this.#stmts(db).putTx(record, createdAt))
  }

  async delete(id: string): Promise<boolean> {
    this.#touches.delete(id)
    return this.#stmts().remove.run(id).changes > 0
  }

  async conversationHead(name: string): Promise<string | 'lost' | undefined> {
    const s = this.#stmts()
    const id = (s.conversationHead.get(name) as { id: string } | undefined)?.id
    return id ?? (s.lost.get(name) ? 'lost' : undefined)
  }

  async inputItems(id: string): Promise<unknown[] | undefined> {
    return parseInputItems((this.#stmts().input.get(id) as { input: string | null } | undefined)?.input)
  }

  async peekHead(head: string): Promise<string | undefined> {
    return this.#peek(head)
  }

  #peek(head: string): string | undefined {
    if (this.#heads.has(head)) return this.#heads.get(head) ?? undefined
    return (this.#stmts().peek.get(head) as { session_id: string } | undefined)?.session_id
  }

  /** Within this process: the pending map takes it at once (written behind). */
  async claimHead(head: string): Promise<string | undefined> {
    const sessionId = this.#peek(head)
    if (sessionId) {
      this.#heads.set(head, null)
      this.#later()
    }
    return sessionId
  }

  async setHead(head: string, sessionId: string, stored?: Promise<unknown>): Promise<void> {
    // The session's own write failing was reported by whoever wrote it: no head then.
    if (stored && !(await stored.then(() => true, () => false))) return
    this.#heads.set(head, sessionId)
    this.#later()
  }
}
