// The SessionStore over state.db. better-sqlite3 is synchronous; the methods are async because the
// PostgreSQL store (store-pg.ts) shares the interface, and because writes go through group commit:
// each write is atomic (its own savepoint), and when its promise resolves it is committed (in the
// WAL; fsynced too with state_db.synchronous full). Reads see every write already requested.
// Statements are prepared once per database handle: preparing cost about as much as running them.

import type BetterSqlite3 from 'better-sqlite3'
import {
  AgentError,
  redactDeep,
  UsageError,
  type AppendOptions,
  type ChatMessage,
  type DatabaseService,
  type NewSession,
  type SessionListOptions,
  type SessionRecord,
  type SessionSearchOptions,
  type SessionStore,
  type SessionUpdate,
  type SqliteDatabase,
  type StoredMessage,
  type Usage,
} from 'agent/sdk'
import { MIGRATIONS } from './schema.ts'
import { assertRoles, messageColumns, newSession, storedMessage, toMessage, toSession, usageDelta, type MessageRow, type SessionRow } from './rows.ts'
import { HAS_PENDING, INDEX_DELAY_MS, indexPending } from './fts-queue.ts'
import { searchMessages } from './search.ts'
import { automaticTitleBase, counted, escapeLike, MAX_HOPS, nextNumbered, numberedHit, sanitizeTitle, splitNumber } from './titles.ts'

type Statement = BetterSqlite3.Statement<unknown[], unknown>

const INSERT_SESSION = `INSERT INTO sessions (id, title, parent_id, lineage, source, user_id, chat_id, model, provider, personality, cwd, started_at, updated_at, message_count,
    input_tokens, output_tokens, reasoning_tokens, cost_usd, api_calls, last_exit_reason)
  VALUES (@id, @title, @parent_id, @lineage, @source, @user_id, @chat_id, @model, @provider, @personality, @cwd, @now, @now, @count,
    @input_tokens, @output_tokens, @reasoning_tokens, @cost_usd, @api_calls, @last_exit_reason)`
const INSERT_MESSAGE = `INSERT INTO messages (session_id, role, content, parts, tool_calls, tool_call_id, name, reasoning, created_at)
  VALUES (@session_id, @role, @content, @parts, @tool_calls, @tool_call_id, @name, @reasoning, @created_at)`
const BUMP = `UPDATE sessions SET message_count = message_count + @count, updated_at = @now,
    input_tokens = input_tokens + @input, output_tokens = output_tokens + @output,
    reasoning_tokens = reasoning_tokens + @reasoning, cost_usd = cost_usd + @cost, api_calls = api_calls + @calls,
    last_exit_reason = coalesce(@exit, last_exit_reason)
  WHERE id = @id`

export class SqliteSessionStore implements SessionStore {
  /** Prepared statements by SQL text (pluck ones apart), per handle. */
  readonly #statements = new WeakMap<SqliteDatabase, Map<string, Statement>>()
  /** The batch indexing of queued messages, once scheduled (fts-queue.ts). */
  #indexing: NodeJS.Timeout | undefined

  /**
   * `database` is looked up at call time: a hot-reloaded state-db hands out a new handle.
   * `redactor` gives the current known-secrets redactor: every message is stored through it.
   */
  constructor(
    private readonly database: () => DatabaseService,
    private readonly redactor: () => (text: string) => string = () => (text) => text,
  ) {}

  /** The handle with the schema in place (migrate() is a map lookup after the first call). */
  private db(): SqliteDatabase {
    const database = this.database()
    database.migrate('sessions', MIGRATIONS)
    return database.db()
  }

  /** The statement for `sql` on the current handle, prepared on first use. Only for SQL from a bounded set of texts. */
  private sql(sql: string, pluck = false, db = this.db()): Statement {
    let cache = this.#statements.get(db)
    if (!cache) this.#statements.set(db, (cache = new Map()))
    const key = pluck ? `pluck:${sql}` : sql
    let statement = cache.get(key)
    if (!statement) {
      statement = pluck ? db.prepare(sql).pluck() : db.prepare(sql)
      cache.set(key, statement)
    }
    return statement
  }

  /** Queues `write` for the next group commit (the schema is migrated first; db() would flush the queue). */
  private write<T>(write: (db: SqliteDatabase) => T): Promise<T> {
    const database = this.database()
    database.migrate('sessions', MIGRATIONS)
    return database.write(write)
  }

  private row(id: string): SessionRow | undefined {
    return this.sql('SELECT * FROM sessions WHERE id = ?').get(id) as SessionRow | undefined
  }

  /** Inserts messages (the caller holds the transaction and bumps the session's totals). */
  private insertMessages(db: SqliteDatabase, sessionId: string, messages: readonly ChatMessage[], now: number): StoredMessage[] {
    const insert = this.sql(INSERT_MESSAGE, false, db)
    // The text stored carries no known secret, whoever the writer is (a throwing redactor fails the write).
    const redact = this.redactor()
    if (messages.length) this.scheduleIndexing()
    return messages.map((message) => {
      const columns = messageColumns(redactDeep(message, redact))
      const id = Number(insert.run({ session_id: sessionId, created_at: now, ...columns }).lastInsertRowid)
      return storedMessage(id, sessionId, now, columns)
    })
  }

  /** Queued messages are indexed a little later, in one batch with those written meanwhile. */
  private scheduleIndexing(): void {
    if (this.#indexing) return
    this.#indexing = setTimeout(() => {
      this.#indexing = undefined
      // A failure (the database closing) leaves the rows queued: the next write or search indexes them.
      this.indexQueued().catch(() => undefined)
    }, INDEX_DELAY_MS)
    // A process with nothing else to do need not wait: the rows stay queued in state.db for the next search or batch.
    this.#indexing.unref()
  }

  /** Indexes every queued message, if any, in one write. */
  private async indexQueued(): Promise<void> {
    if (this.sql(HAS_PENDING, true).get() === undefined) return
    await this.write((db) => indexPending(db, (sql, pluck) => this.sql(sql, pluck, db)))
  }

  private mustExist(id: string): SessionRow {
    const row = this.row(id)
    if (!row) throw new AgentError('E_NOT_FOUND', `no session "${id}"`)
    return row
  }

  async create(input: NewSession = {}): Promise<SessionRecord> {
    // The row is made (and checked) in the write: a create queued behind an answer costs the
    // answer nothing but the queueing.
    let made: ReturnType<typeof newSession> | undefined
    try {
      // The session and its first messages in one write: atomic, and one commit for a new conversation.
      await this.write((db) => {
        made = newSession(input)
        const { row, title, messages } = made
        const { id, started_at: now } = row
        if (input.parentId && !this.row(input.parentId)) throw new AgentError('E_NOT_FOUND', `no parent session "${input.parentId}"`)
        if (title) this.assertTitleFree(title, id)
        this.sql(INSERT_SESSION, false, db).run({ ...row, now, count: messages.length })
        this.insertMessages(db, id, messages, now)
      })
    } catch (error) {
      if (made && /UNIQUE constraint failed: sessions\.id/.test(String(error))) throw new UsageError(`a session "${made.row.id}" already exists`, { cause: error })
      throw error
    }
    return toSession(made!.row)
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const row = this.row(id)
    return row && toSession(row)
  }

  async resolve(idOrTitle: string): Promise<SessionRecord | undefined> {
    const text = idOrTitle.trim()
    if (!text) return undefined
    const byId = this.row(text)
    if (byId) return this.tip(byId.id)
    let title: string | undefined
    try {
      title = sanitizeTitle(text)
    } catch {
      return undefined
    }
    if (!title) return undefined
    const db = this.db()
    // The newest numbered continuation (`title #N`) wins over the unnumbered original.
    const candidates = this.sql(`SELECT id, title FROM sessions WHERE title LIKE ? ESCAPE '\\' ORDER BY started_at DESC, rowid DESC`, false, db)
      .all(`${escapeLike(title)} #%`) as Array<{ id: string; title: string }>
    const hit = numberedHit(candidates, title) ?? (this.sql('SELECT id FROM sessions WHERE title = ?', false, db).get(title) as { id: string } | undefined)
    return hit ? this.tip(hit.id) : undefined
  }

  async list(options: SessionListOptions = {}): Promise<SessionRecord[]> {
    const where: string[] = []
    const params: unknown[] = []
    let title: string | undefined
    if (options.title !== undefined) {
      try {
        title = sanitizeTitle(options.title)
      } catch {
        return []
      }
      if (!title) return []
    }
    for (const [column, value] of [['source', options.source], ['user_id', options.userId], ['chat_id', options.chatId], ['parent_id', options.parentId], ['title', title]] as const) {
      if (value !== undefined) {
        where.push(`${column} = ?`)
        params.push(value)
      }
    }
    if (options.includeEnded === false) where.push('ended_at IS NULL')
    const limit = Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 50)))
    const offset = Math.max(0, Math.floor(options.offset ?? 0))
    const sql = `SELECT * FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, rowid DESC LIMIT ? OFFSET ?`
    // At most 64 different texts (five optional filters, includeEnded): fine to keep prepared.
    return (this.sql(sql).all(...params, limit, offset) as SessionRow[]).map(toSession)
  }

  async latest(options: Pick<SessionListOptions, 'source' | 'userId' | 'chatId'> = {}): Promise<SessionRecord | undefined> {
    const [first] = await this.list({ ...options, limit: 1 })
    return first && this.tip(first.id)
  }

  async append(sessionId: string, messages: readonly ChatMessage[], options: AppendOptions = {}): Promise<StoredMessage[]> {
    assertRoles(messages)
    return this.write((db): StoredMessage[] => {
      const now = Date.now()
      // The exit reason rides on the same statement as the totals.
      const touched = this.bump(db, sessionId, messages.length, options.usage, options.apiCalls, now, options.lastExitReason)
      if (!touched) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
      return this.insertMessages(db, sessionId, messages, now)
    })
  }

  private bump(db: SqliteDatabase, id: string, count: number, usage: Partial<Usage> | undefined, apiCalls: number | undefined, now: number, exit?: string): boolean {
    const result = this.sql(BUMP, false, db).run({ exit: exit ?? null, id, now, count, ...usageDelta(usage, apiCalls) })
    return result.changes > 0
  }

  async messages(sessionId: string, options: { limit?: number } = {}): Promise<StoredMessage[]> {
    const db = this.db()
    const rows = options.limit
      ? (this.sql('SELECT * FROM (SELECT * FROM messages WHERE session_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id', false, db).all(sessionId, Math.max(1, Math.floor(options.limit))) as MessageRow[])
      : (this.sql('SELECT * FROM messages WHERE session_id = ? ORDER BY id', false, db).all(sessionId) as MessageRow[])
    return rows.map(toMessage)
  }

  /** Throws unless `title` is free for `sessionId`; a compression ancestor holding it counts as free. */
  private assertTitleFree(title: string, sessionId: string): string | undefined {
    const holder = this.sql('SELECT id FROM sessions WHERE title = ?', true).get(title) as string | undefined
    if (!holder || holder === sessionId) return undefined
    if (this.isCompressionAncestor(holder, sessionId)) return holder
    throw new UsageError(`the title "${title}" is already used by session ${holder}`)
  }

  private isCompressionAncestor(ancestor: string, sessionId: string): boolean {
    let current = this.row(sessionId)
    for (let hops = 0; current?.parent_id && hops < MAX_HOPS; hops++) {
      if (current.lineage !== 'compression') return false
      if (current.parent_id === ancestor) return true
      current = this.row(current.parent_id)
    }
    return false
  }

  async setTitle(sessionId: string, raw: string | null): Promise<string | undefined> {
    const title = sanitizeTitle(raw)
    await this.write((db) => {
      this.mustExist(sessionId)
      if (title) {
        const ancestor = this.assertTitleFree(title, sessionId)
        // The title moves from a compressed ancestor to its continuation.
        if (ancestor) this.sql('UPDATE sessions SET title = NULL WHERE id = ?', false, db).run(ancestor)
      }
      this.sql('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ?', false, db).run(title ?? null, Date.now(), sessionId)
    })
    return title
  }

  async titleIfUntitled(sessionId: string, raw: string): Promise<string | undefined> {
    const base = automaticTitleBase(raw, this.redactor())
    if (!base) return undefined
    return this.write((db) => {
      const row = this.row(sessionId)
      if (!row || row.title !== null) return undefined
      const title = this.freeCountedTitle(base, db)
      if (!title) return undefined
      // Only while untitled: a title set by hand in the meantime wins.
      const changed = this.sql('UPDATE sessions SET title = ?, updated_at = ? WHERE id = ? AND title IS NULL', false, db).run(title, Date.now(), sessionId).changes
      return changed ? title : undefined
    })
  }

  /**
   * `base`, else `base (n)` past the ones already taken. Index lookups only: `base (…)` titles sort
   * together on the title index, so one range count says where to start (a LIKE would read every
   * session, on every automatic title).
   */
  private freeCountedTitle(base: string, db: SqliteDatabase): string | undefined {
    const taken = (title: string) => this.sql('SELECT 1 FROM sessions WHERE title = ?', true, db).get(title) !== undefined
    if (!taken(base)) return base
    const numberedSoFar = this.sql('SELECT count(*) FROM sessions WHERE title >= ? AND title < ?', true, db).get(`${base} (`, `${base} )`) as number
    // Gaps (a renamed or deleted session) are stepped over; bounded for a pathological table.
    for (let n = numberedSoFar + 2, tries = 0; tries < 1000; n++, tries++) {
      const title = counted(base, n)
      if (!taken(title)) return title
    }
    return undefined
  }

  async nextTitle(raw: string): Promise<string> {
    const title = sanitizeTitle(raw)
    if (!title) throw new UsageError('a title is needed to number a continuation')
    const { base } = splitNumber(title)
    const taken = this.sql(`SELECT title FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'`, true).all(base, `${escapeLike(base)} #%`) as string[]
    return nextNumbered(base, taken)
  }

  async update(sessionId: string, fields: SessionUpdate): Promise<void> {
    const columns: Record<string, string> = { model: 'model', provider: 'provider', personality: 'personality', cwd: 'cwd', lastExitReason: 'last_exit_reason' }
    const sets: string[] = []
    const params: unknown[] = []
    for (const [key, column] of Object.entries(columns)) {
      if (key in fields) {
        sets.push(`${column} = ?`)
        params.push((fields as Record<string, unknown>)[key] ?? null)
      }
    }
    if (sets.length === 0) return
    // At most 32 different texts (five optional columns).
    const sql = `UPDATE sessions SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`
    await this.write((db) => {
      if (this.sql(sql, false, db).run(...params, Date.now(), sessionId).changes === 0) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
    })
  }

  async addUsage(sessionId: string, usage: Partial<Usage>, apiCalls = 0): Promise<void> {
    await this.write((db) => {
      if (!this.bump(db, sessionId, 0, usage, apiCalls, Date.now())) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
    })
  }

  async end(sessionId: string, reason: string): Promise<void> {
    await this.write((db) => {
      const now = Date.now()
      const result = this.sql('UPDATE sessions SET ended_at = ?, end_reason = ?, updated_at = ? WHERE id = ?', false, db).run(now, reason, now, sessionId)
      if (result.changes === 0) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
    })
  }

  async reopen(sessionId: string): Promise<void> {
    await this.write((db) => {
      const result = this.sql('UPDATE sessions SET ended_at = NULL, end_reason = NULL, updated_at = ? WHERE id = ?', false, db).run(Date.now(), sessionId)
      if (result.changes === 0) throw new AgentError('E_NOT_FOUND', `no session "${sessionId}"`)
    })
  }

  async tip(sessionId: string): Promise<SessionRecord | undefined> {
    const child = this.sql(`SELECT id FROM sessions WHERE parent_id = ? AND lineage = 'compression' ORDER BY started_at DESC, rowid DESC LIMIT 1`, true)
    let current = sessionId
    const seen = new Set<string>([current])
    for (let hops = 0; hops < MAX_HOPS; hops++) {
      const next = child.get(current) as string | undefined
      if (!next || seen.has(next)) break
      seen.add(next)
      current = next
    }
    return this.get(current)
  }

  async search(query: string, options: SessionSearchOptions = {}) {
    // Whatever was written before the search is found by it.
    await this.indexQueued()
    return searchMessages(this.db(), query, options)
  }

  async delete(sessionId: string): Promise<boolean> {
    return this.write((db) => this.sql('DELETE FROM sessions WHERE id = ?', false, db).run(sessionId).changes > 0)
  }
}
