// What the API server keeps in state.db: stored responses (LRU-evicted past the capacity, surviving
// restarts), conversation names pointing at the latest response of their chain, and the head of each
// agent session the API server continues (the response id, or chat-conversation key, its stored
// transcript ends at). Statements are prepared once per database handle (a hot-reloaded state-db
// hands out a new one).
//
// Stored responses are committed before the answer: the API promises them. Session heads and LRU
// read-stamps are conveniences, so they are written behind (batched every FLUSH_MS, and on stop):
// with state.db fsyncing every commit, a synchronous write per request would cost more than the
// rest of the server's work. Until flushed, the pending map answers in their place.

import type BetterSqlite3 from 'better-sqlite3'
import { redactDeep, type ChatMessage, type DatabaseService, type Migration, type SqliteDatabase } from 'agent/sdk'

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

/** Session heads kept; older ones are pruned (a conversation idle that long is re-seeded into a new session). */
const HEADS_MAX = 10_000
const HEADS_PRUNE_EVERY = 500
/** How long head and read-stamp writes may wait to be batched into one commit. */
const FLUSH_MS = 500

export interface StoredResponse {
  id: string
  /** The response object as the API returns it. */
  response: Record<string, unknown>
  /** The conversation through this response (history, input, answer): what a chained request continues. */
  transcript: ChatMessage[]
  instructions?: string
  sessionId?: string
  conversation?: string
  /** The input items as the client sent them (ids filled in), for input_items and item_reference. */
  input?: unknown[]
}

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

export class ApiStore {
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
    private readonly capacity: number,
    private readonly onFlushError: (error: unknown) => void = () => {},
    /** The current known-secrets redactor: stored responses and transcripts go through it. */
    private readonly redactor: () => (text: string) => string = () => (text) => text,
  ) {}

  /** Opens (and migrates) on first use; cheap afterwards. `current`: the handle a group commit runs on. */
  #stmts(current?: SqliteDatabase): Prepared {
    if (current && this.#prepared?.db === current) return this.#prepared
    const service = this.database()
    const db = current ?? service.db()
    if (this.#prepared?.db === db) return this.#prepared
    service.migrate('api-server', MIGRATIONS)
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
      p.insert.run(
        record.id,
        JSON.stringify(record.response),
        JSON.stringify(record.transcript),
        record.instructions ?? null,
        record.sessionId ?? null,
        record.conversation ?? null,
        createdAt,
        ++this.#clock,
        record.input === undefined ? null : JSON.stringify(record.input),
      )
      if (record.conversation) p.setConversation.run(record.conversation, record.id)
      const { n } = p.count.get() as { n: number }
      if (n > this.capacity) p.evict.run(n - this.capacity)
    })
    this.#prepared = { ...p, putTx, flushTx: db.transaction(writePending) }
    return this.#prepared
  }

  #later(): void {
    if (this.#timer) return
    this.#timer = setTimeout(() => this.flush(), FLUSH_MS)
    this.#timer.unref()
  }

  /** Writes pending heads and read-stamps now (the adapter stops, the extension unloads). */
  flush(): void {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#heads.size === 0 && this.#touches.size === 0) return
    try {
      this.#stmts().flushTx()
    } catch (error) {
      // Lost continuity at worst: the next request for such a conversation seeds a new session.
      this.#heads.clear()
      this.#touches.clear()
      this.onFlushError(error)
    }
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
    this.#touches.set(id, ++this.#clock)
    this.#later()
    return { id, response, transcript, instructions: row.instructions ?? undefined, sessionId: row.session_id ?? undefined, conversation: row.conversation ?? undefined }
  }

  /**
   * Stores (or replaces) a response, moves its conversation's head to it, and evicts past capacity;
   * resolves once committed. Through the database's group commit: the session's last write (stored
   * behind the answer) and this one share a commit, and the answer still waits for this one.
   */
  put(record: StoredResponse, createdAt: number): Promise<void> {
    // What the client sent (history, input, instructions) may hold a secret the agent knows: never stored.
    const redact = this.redactor()
    const cleared = {
      ...record,
      response: redactDeep(record.response, redact),
      transcript: redactDeep(record.transcript, redact),
      instructions: record.instructions === undefined ? undefined : redact(record.instructions),
      input: record.input === undefined ? undefined : redactDeep(record.input, redact),
    }
    return this.database().write((db) => this.#stmts(db).putTx(cleared, createdAt))
  }

  delete(id: string): boolean {
    this.#touches.delete(id)
    return this.#stmts().remove.run(id).changes > 0
  }

  /** Latest response id of a named conversation; `lost` when that response was deleted or evicted. */
  conversationHead(name: string): string | 'lost' | undefined {
    const s = this.#stmts()
    const id = (s.conversationHead.get(name) as { id: string } | undefined)?.id
    return id ?? (s.lost.get(name) ? 'lost' : undefined)
  }

  /** The input items stored with a response (undefined when unknown or stored before they were kept). */
  inputItems(id: string): unknown[] | undefined {
    const row = this.#stmts().input.get(id) as { input: string | null } | undefined
    if (!row?.input) return undefined
    try {
      const items = JSON.parse(row.input)
      return Array.isArray(items) ? items : undefined
    } catch {
      return undefined
    }
  }

  /** The session whose transcript ends at `head`, without taking it (runs that store nothing). */
  peekHead(head: string): string | undefined {
    if (this.#heads.has(head)) return this.#heads.get(head) ?? undefined
    return (this.#stmts().peek.get(head) as { session_id: string } | undefined)?.session_id
  }

  /**
   * Takes the session whose stored transcript ends exactly at `head` (a response id, or the key of a
   * chat conversation), so one continuation at a time continues it. Undefined when `head` is no
   * session's head (forked, superseded, or its run failed): the caller seeds a new session instead.
   */
  claimHead(head: string): string | undefined {
    const sessionId = this.peekHead(head)
    if (sessionId) {
      this.#heads.set(head, null)
      this.#later()
    }
    return sessionId
  }

  /** Records that `sessionId`'s transcript now ends at `head`. */
  setHead(head: string, sessionId: string): void {
    this.#heads.set(head, sessionId)
    this.#later()
  }
}
