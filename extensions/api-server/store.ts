// What the API server keeps in state.db: stored responses (LRU-evicted past the capacity, surviving
// restarts), conversation names pointing at the latest response of their chain, and the head of each
// agent session the API server continues (the response id, or chat-conversation key, its stored
// transcript ends at). Statements are prepared once per
// database handle (a hot-reloaded state-db hands out a new one).

import type BetterSqlite3 from 'better-sqlite3'
import type { ChatMessage, DatabaseService, Migration, SqliteDatabase } from 'agent/sdk'

type Statement = BetterSqlite3.Statement

const MIGRATIONS: readonly Migration[] = [
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
]

/** Session heads kept; older ones are pruned (a conversation idle that long is re-seeded into a new session). */
const HEADS_MAX = 10_000
const HEADS_PRUNE_EVERY = 500

export interface StoredResponse {
  id: string
  /** The response object as the API returns it. */
  response: Record<string, unknown>
  /** The conversation through this response (history, input, answer): what a chained request continues. */
  transcript: ChatMessage[]
  instructions?: string
  sessionId?: string
  conversation?: string
}

interface Prepared {
  db: SqliteDatabase
  get: Statement
  touch: Statement
  insert: Statement
  count: Statement
  evict: Statement
  remove: Statement
  head: Statement
  setHead: Statement
  claim: Statement
  peek: Statement
  advance: Statement
  prune: Statement
  putTx: (record: StoredResponse, createdAt: number) => void
}

export class ApiStore {
  #prepared: Prepared | undefined
  #clock = 0
  #headWrites = 0

  constructor(
    private readonly database: () => DatabaseService,
    private readonly capacity: number,
  ) {}

  /** Opens (and migrates) on first use; cheap afterwards. */
  #stmts(): Prepared {
    const service = this.database()
    const db = service.db()
    if (this.#prepared?.db === db) return this.#prepared
    service.migrate('api-server', MIGRATIONS)
    const clock = (sql: string) => Number((db.prepare(sql).get() as { m: number | null }).m ?? 0)
    this.#clock = Math.max(clock('SELECT MAX(used) AS m FROM api_server_responses'), clock('SELECT MAX(used) AS m FROM api_server_heads'))
    const p = {
      db,
      get: db.prepare('SELECT response, transcript, instructions, session_id, conversation FROM api_server_responses WHERE id = ?'),
      touch: db.prepare('UPDATE api_server_responses SET used = ? WHERE id = ?'),
      insert: db.prepare(
        'INSERT OR REPLACE INTO api_server_responses (id, response, transcript, instructions, session_id, conversation, created_at, used) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      ),
      count: db.prepare('SELECT COUNT(*) AS n FROM api_server_responses'),
      evict: db.prepare('DELETE FROM api_server_responses WHERE id IN (SELECT id FROM api_server_responses ORDER BY used ASC LIMIT ?)'),
      remove: db.prepare('DELETE FROM api_server_responses WHERE id = ?'),
      // A mapping whose response is gone (evicted) is no head: the name then starts a new chain.
      head: db.prepare('SELECT c.response_id AS id FROM api_server_conversations c JOIN api_server_responses r ON r.id = c.response_id WHERE c.name = ?'),
      setHead: db.prepare('INSERT OR REPLACE INTO api_server_conversations (name, response_id) VALUES (?, ?)'),
      claim: db.prepare('DELETE FROM api_server_heads WHERE head = ? RETURNING session_id'),
      peek: db.prepare('SELECT session_id FROM api_server_heads WHERE head = ?'),
      // One head per session: replacing by either key drops the session's previous head.
      advance: db.prepare('INSERT OR REPLACE INTO api_server_heads (head, session_id, used) VALUES (?, ?, ?)'),
      prune: db.prepare('DELETE FROM api_server_heads WHERE head IN (SELECT head FROM api_server_heads ORDER BY used DESC LIMIT -1 OFFSET ?)'),
    } as Omit<Prepared, 'putTx'>
    const putTx = db.transaction((record: StoredResponse, createdAt: number) => {
      p.insert.run(
        record.id,
        JSON.stringify(record.response),
        JSON.stringify(record.transcript),
        record.instructions ?? null,
        record.sessionId ?? null,
        record.conversation ?? null,
        createdAt,
        ++this.#clock,
      )
      if (record.conversation) p.setHead.run(record.conversation, record.id)
      const { n } = p.count.get() as { n: number }
      if (n > this.capacity) p.evict.run(n - this.capacity)
    })
    this.#prepared = { ...p, putTx }
    return this.#prepared
  }

  /** Opens the database and applies migrations now (adapter start), so the first request does not pay. */
  warm(): void {
    this.#stmts()
  }

  /** A stored response; reading it makes it the most recently used. */
  get(id: string): StoredResponse | undefined {
    const s = this.#stmts()
    const row = s.get.get(id) as { response: string; transcript: string; instructions: string | null; session_id: string | null; conversation: string | null } | undefined
    if (!row) return undefined
    let response: Record<string, unknown>
    let transcript: ChatMessage[]
    try {
      response = JSON.parse(row.response)
      transcript = JSON.parse(row.transcript)
    } catch {
      // A corrupt row can never be served or chained: drop it.
      s.remove.run(id)
      return undefined
    }
    s.touch.run(++this.#clock, id)
    return { id, response, transcript, instructions: row.instructions ?? undefined, sessionId: row.session_id ?? undefined, conversation: row.conversation ?? undefined }
  }

  /** Stores (or replaces) a response, moves its conversation's head to it, and evicts past capacity. */
  put(record: StoredResponse, createdAt: number): void {
    this.#stmts().putTx(record, createdAt)
  }

  delete(id: string): boolean {
    return this.#stmts().remove.run(id).changes > 0
  }

  /** Latest response id of a named conversation, if it still exists. */
  conversationHead(name: string): string | undefined {
    return (this.#stmts().head.get(name) as { id: string } | undefined)?.id
  }

  /**
   * Takes the session whose stored transcript ends exactly at `head` (a response id, or the key of a
   * chat conversation), so one continuation at a time continues it. Undefined when `head` is no
   * session's head (forked, superseded, or its run failed): the caller seeds a new session instead.
   */
  claimHead(head: string): string | undefined {
    return (this.#stmts().claim.get(head) as { session_id: string } | undefined)?.session_id
  }

  /** Like claimHead, without taking it (runs that store nothing). */
  peekHead(head: string): string | undefined {
    return (this.#stmts().peek.get(head) as { session_id: string } | undefined)?.session_id
  }

  /** Records that `sessionId`'s transcript now ends at `head`. */
  setHead(head: string, sessionId: string): void {
    const s = this.#stmts()
    s.advance.run(head, sessionId, ++this.#clock)
    if (++this.#headWrites % HEADS_PRUNE_EVERY === 0) s.prune.run(HEADS_MAX)
  }
}
