// The SessionStore on PostgreSQL, with the behaviour of the SQLite one (store.ts) for instances
// sharing one database. Writes go through the service's group commit (each its own savepoint,
// committed when its promise resolves); reads wait for this store's writes already requested, as
// on SQLite. Between instances every check-then-write is one transaction guarded by the database:
// an append first updates its session's row, so appends to one session are serialised by that row
// lock and message ids follow commit order; titles are kept unique by the unique index (a lost race
// is the same usage error as a title seen taken; an automatic title retries with the next number).

import {
  AgentError,
  redactDeep,
  UsageError,
  type AppendOptions,
  type ChatMessage,
  type NewSession,
  type PgQuery,
  type PostgresService,
  type SessionListOptions,
  type SessionRecord,
  type SessionSearchOptions,
  type SessionStore,
  type SessionUpdate,
  type StoredMessage,
  type Usage,
} from 'agent/sdk'
import { PG_MIGRATIONS } from './schema-pg.ts'
import { assertRoles, messageColumns, newSession, storedMessage, toMessage, toSession, usageDelta, type MessageColumns, type MessageRow, type SessionRow } from './rows.ts'
import { searchMessagesPg } from './search-pg.ts'
import { ANCESTOR_HOLDING, APPEND, CREATE, MESSAGE_COLUMNS, pgErrorOf, SESSION_COLUMNS, TIP } from './pg-queries.ts'
import { automaticTitleBase, counted, escapeLike, nextNumbered, numberedHit, sanitizeTitle, splitNumber } from './titles.ts'

/** An automatic title whose number another instance took meanwhile is worked out again, this often. */
const TITLE_RETRIES = 5
/**
 * A write chosen as a deadlock victim (two instances locking the same sessions in opposite order)
 * or failing serialisation was rolled back whole (to its savepoint): it is run again, this often.
 */
const WRITE_ATTEMPTS = 3
const RETRYABLE = new Set(['40P01', '40001'])

const notFound = (id: string) => new AgentError('E_NOT_FOUND', `no session "${id}"`)
/** PostgreSQL text cannot hold U+0000 (SQLite can); it is stored as U+FFFD rather than failing the turn. */
const noNul = (text: string | null) => (text !== null && text.includes('\u0000') ? text.replace(/\u0000/g, '\ufffd') : text)

export class PgSessionStore implements SessionStore {
  #ready: { pg: PostgresService; migrated: Promise<PostgresService> } | undefined
  /** Settles when the last write this store requested has; reads wait for it. */
  #tail: Promise<void> | undefined

  /** `postgres` is looked up at call time (a reloaded storage hands out a new service). */
  constructor(
    private readonly postgres: () => PostgresService,
    private readonly redactor: () => (text: string) => string = () => (text) => text,
  ) {}

  /** The service with the schema in place (migrated once per service). */
  private ready(): Promise<PostgresService> {
    const pg = this.postgres()
    if (this.#ready?.pg !== pg) {
      const migrated = pg.migrate('sessions', PG_MIGRATIONS).then(() => pg)
      this.#ready = { pg, migrated }
      // A failed migration is tried again by the next call.
      migrated.catch(() => this.#ready?.migrated === migrated && (this.#ready = undefined))
    }
    return this.#ready!.migrated
  }

  /** The service to read with, once this store's writes already requested are committed. */
  private async reader(): Promise<PgQuery> {
    const pg = await this.ready()
    if (this.#tail) await this.#tail
    return pg
  }

  private write<T>(fn: (client: PgQuery) => Promise<T>): Promise<T> {
    const attempt = (n: number): Promise<T> =>
      this.ready()
        .then((pg) => pg.write(fn))
        .catch((error) => {
          if (n < WRITE_ATTEMPTS && RETRYABLE.has(pgErrorOf(error)?.code ?? '')) return attempt(n + 1)
          throw error
        })
    const result = attempt(1)
    const tail = result.then(() => undefined, () => undefined)
    this.#tail = tail
    void tail.then(() => this.#tail === tail && (this.#tail = undefined))
    return result
  }

  private async row(pg: PgQuery, id: string, lock = ''): Promise<SessionRow | undefined> {
    return (await pg.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = $1 ${lock}`, [id]))[0]
  }

  /** The columns of `messages` as stored (through the redactor), and the seven arrays the statements take. */
  private messageParams(messages: readonly ChatMessage[]): { columns: MessageColumns[]; arrays: unknown[][] } {
    // The text stored carries no known secret, whoever the writer is (a throwing redactor fails the write).
    const redact = this.redactor()
    const columns: MessageColumns[] = messages.map((message) => {
      const m = messageColumns(redactDeep(message, redact))
      return { ...m, content: noNul(m.content), tool_call_id: noNul(m.tool_call_id), name: noNul(m.name), reasoning: noNul(m.reasoning) }
    })
    const keys = ['role', 'content', 'parts', 'tool_calls', 'tool_call_id', 'name', 'reasoning'] as const
    return { columns, arrays: keys.map((k) => columns.map((m) => m[k])) }
  }

  /** `append` and `addUsage`: totals, exit reason and messages in one statement. */
  private async appendRows(c: PgQuery, sessionId: string, messages: readonly ChatMessage[], usage: Partial<Usage> | undefined, apiCalls: number | undefined, exit?: string): Promise<StoredMessage[]> {
    const { columns, arrays } = this.messageParams(messages)
    const now = Date.now()
    const d = usageDelta(usage, apiCalls)
    const [row] = await c.query<{ found: number; ids: string[] }>(APPEND, [sessionId, messages.length, now, d.input, d.output, d.reasoning, d.cost, d.calls, exit ?? null, ...arrays])
    if (!row?.found) throw notFound(sessionId)
    return columns.map((m, i) => storedMessage(Number(row.ids[i]), sessionId, now, m))
  }

  /** Throws unless `title` is free for `sessionId`; answers a compression ancestor holding it (free to take). */
  private async titleHolder(c: PgQuery, title: string, sessionId: string): Promise<string | undefined> {
    const [holder] = await c.query<{ id: string }>('SELECT id FROM sessions WHERE title = $1', [title])
    if (!holder || holder.id === sessionId) return undefined
    if ((await c.query(ANCESTOR_HOLDING, [sessionId, holder.id])).length > 0) return holder.id
    throw new UsageError(`the title "${title}" is already used by session ${holder.id}`)
  }

  /** The usage error a title lost to another instance's write in the meantime gives, like one seen taken. */
  private titleRace(error: unknown, title: string | undefined): never {
    if (title && pgErrorOf(error)?.constraint === 'sessions_title') throw new UsageError(`the title "${title}" is already used by another session`, { cause: error })
    throw error
  }

  async create(input: NewSession = {}): Promise<SessionRecord> {
    const { row, title, messages } = newSession(input)
    const { id, started_at: now } = row
    const { arrays } = this.messageParams(messages)
    try {
      // The session and its first messages in one write: atomic, and one commit for a new conversation.
      await this.write(async (c) => {
        if (input.parentId && !(await this.row(c, input.parentId))) throw new AgentError('E_NOT_FOUND', `no parent session "${input.parentId}"`)
        if (title) await this.titleHolder(c, title, id)
        await c.query(CREATE, [id, row.title, row.parent_id, row.lineage, row.source, row.user_id, row.chat_id, row.model, row.provider, row.personality, row.cwd, now, messages.length, row.input_tokens, row.output_tokens, row.reasoning_tokens, row.cost_usd, row.api_calls, row.last_exit_reason, ...arrays])
      })
    } catch (error) {
      const constraint = pgErrorOf(error)?.constraint
      if (constraint === 'sessions_pkey') throw new UsageError(`a session "${id}" already exists`, { cause: error })
      // The parent was deleted by another instance between the check and the insert.
      if (constraint === 'sessions_parent_id_fkey') throw new AgentError('E_NOT_FOUND', `no parent session "${input.parentId}"`, { cause: error })
      this.titleRace(error, title)
    }
    return toSession(row)
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const row = await this.row(await this.reader(), id)
    return row && toSession(row)
  }

  async resolve(idOrTitle: string): Promise<SessionRecord | undefined> {
    const text = idOrTitle.trim()
    if (!text) return undefined
    const pg = await this.reader()
    if (await this.row(pg, text)) return this.tip(text)
    let title: string | undefined
    try {
      title = sanitizeTitle(text)
    } catch {
      return undefined
    }
    if (!title) return undefined
    // The newest numbered continuation (`title #N`) wins over the unnumbered original.
    const candidates = await pg.query<{ id: string; title: string }>(`SELECT id, title FROM sessions WHERE title LIKE $1 ESCAPE '\\' ORDER BY started_at DESC, seq DESC`, [`${escapeLike(title)} #%`])
    const hit = numberedHit(candidates, title) ?? (await pg.query<{ id: string }>('SELECT id FROM sessions WHERE title = $1', [title]))[0]
    return hit ? this.tip(hit.id) : undefined
  }

  async list(options: SessionListOptions = {}): Promise<SessionRecord[]> {
    let title: string | undefined
    if (options.title !== undefined) {
      try {
        title = sanitizeTitle(options.title)
      } catch {
        return []
      }
      if (!title) return []
    }
    const where: string[] = []
    const params: unknown[] = []
    for (const [column, value] of [['source', options.source], ['user_id', options.userId], ['chat_id', options.chatId], ['parent_id', options.parentId], ['title', title]] as const) {
      if (value === undefined) continue
      params.push(value)
      where.push(`${column} = $${params.length}`)
    }
    if (options.includeEnded === false) where.push('ended_at IS NULL')
    params.push(Math.max(1, Math.min(10_000, Math.floor(options.limit ?? 50))), Math.max(0, Math.floor(options.offset ?? 0)))
    const sql = `SELECT ${SESSION_COLUMNS} FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY updated_at DESC, seq DESC LIMIT $${params.length - 1} OFFSET $${params.length}`
    return (await (await this.reader()).query<SessionRow>(sql, params)).map(toSession)
  }

  async latest(options: Pick<SessionListOptions, 'source' | 'userId' | 'chatId'> = {}): Promise<SessionRecord | undefined> {
    const [first] = await this.list({ ...options, limit: 1 })
    return first && this.tip(first.id)
  }

  async append(sessionId: string, messages: readonly ChatMessage[], options: AppendOptions = {}): Promise<StoredMessage[]> {
    assertRoles(messages)
    return this.write((c) => this.appendRows(c, sessionId, messages, options.usage, options.apiCalls, options.lastExitReason))
  }

  async messages(sessionId: string, options: { limit?: number } = {}): Promise<StoredMessage[]> {
    const pg = await this.reader()
    const rows = options.limit
      ? await pg.query<MessageRow>(`SELECT * FROM (SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1 ORDER BY id DESC LIMIT $2) last ORDER BY id`, [sessionId, Math.max(1, Math.floor(options.limit))])
      : await pg.query<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM messages WHERE session_id = $1 ORDER BY id`, [sessionId])
    return rows.map(toMessage)
  }

  async setTitle(sessionId: string, raw: string | null): Promise<string | undefined> {
    const title = sanitizeTitle(raw)
    await this.write(async (c) => {
      if (!(await this.row(c, sessionId, 'FOR UPDATE'))) throw notFound(sessionId)
      // The title moves from a compressed ancestor to its continuation.
      const ancestor = title ? await this.titleHolder(c, title, sessionId) : undefined
      if (ancestor) await c.query('UPDATE sessions SET title = NULL WHERE id = $1', [ancestor])
      await c.query('UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3', [title ?? null, Date.now(), sessionId])
    }).catch((error) => this.titleRace(error, title))
    return title
  }

  async titleIfUntitled(sessionId: string, raw: string): Promise<string | undefined> {
    const base = automaticTitleBase(raw, this.redactor())
    if (!base) return undefined
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.write(async (c) => {
          const row = await this.row(c, sessionId, 'FOR UPDATE')
          if (!row || row.title !== null) return undefined
          const title = await this.freeCountedTitle(c, base)
          if (!title) return undefined
          await c.query('UPDATE sessions SET title = $1, updated_at = $2 WHERE id = $3', [title, Date.now(), sessionId])
          return title
        })
      } catch (error) {
        if (attempt >= TITLE_RETRIES || pgErrorOf(error)?.constraint !== 'sessions_title') throw error
      }
    }
  }

  /** `base`, else `base (n)` past the ones already taken (a range count says where to start, as on SQLite). */
  private async freeCountedTitle(c: PgQuery, base: string): Promise<string | undefined> {
    if ((await c.query('SELECT 1 FROM sessions WHERE title = $1', [base])).length === 0) return base
    const [{ n } = { n: '0' }] = await c.query<{ n: string }>('SELECT count(*) AS n FROM sessions WHERE title >= $1 AND title < $2', [`${base} (`, `${base} )`])
    // Gaps (a renamed or deleted session) are stepped over, 50 candidates a query; bounded for a pathological table.
    for (let from = Number(n) + 2, end = from + 1000; from < end; from += 50) {
      const candidates = Array.from({ length: 50 }, (_, i) => counted(base, from + i))
      const [free] = await c.query<{ t: string }>('SELECT u.t FROM unnest($1::text[]) WITH ORDINALITY AS u(t, ord) WHERE NOT EXISTS (SELECT 1 FROM sessions WHERE title = u.t) ORDER BY u.ord LIMIT 1', [candidates])
      if (free) return free.t
    }
    return undefined
  }

  async nextTitle(raw: string): Promise<string> {
    const title = sanitizeTitle(raw)
    if (!title) throw new UsageError('a title is needed to number a continuation')
    const { base } = splitNumber(title)
    const rows = await (await this.reader()).query<{ title: string }>(`SELECT title FROM sessions WHERE title = $1 OR title LIKE $2 ESCAPE '\\'`, [base, `${escapeLike(base)} #%`])
    return nextNumbered(base, rows.map((r) => r.title))
  }

  async update(sessionId: string, fields: SessionUpdate): Promise<void> {
    const columns: Record<string, string> = { model: 'model', provider: 'provider', personality: 'personality', cwd: 'cwd', lastExitReason: 'last_exit_reason' }
    const sets: string[] = []
    const params: unknown[] = []
    for (const [key, column] of Object.entries(columns)) {
      if (!(key in fields)) continue
      params.push((fields as Record<string, unknown>)[key] ?? null)
      sets.push(`${column} = $${params.length}`)
    }
    if (sets.length === 0) return
    params.push(Date.now(), sessionId)
    const sql = `UPDATE sessions SET ${sets.join(', ')}, updated_at = $${params.length - 1} WHERE id = $${params.length} RETURNING 1`
    await this.changeOne(sessionId, sql, params)
  }

  async addUsage(sessionId: string, usage: Partial<Usage>, apiCalls = 0): Promise<void> {
    await this.write((c) => this.appendRows(c, sessionId, [], usage, apiCalls))
  }

  async end(sessionId: string, reason: string): Promise<void> {
    const now = Date.now()
    await this.changeOne(sessionId, 'UPDATE sessions SET ended_at = $1, end_reason = $2, updated_at = $1 WHERE id = $3 RETURNING 1', [now, reason, sessionId])
  }

  async reopen(sessionId: string): Promise<void> {
    await this.changeOne(sessionId, 'UPDATE sessions SET ended_at = NULL, end_reason = NULL, updated_at = $1 WHERE id = $2 RETURNING 1', [Date.now(), sessionId])
  }

  /** Runs an UPDATE … RETURNING of one session; none changed is E_NOT_FOUND. */
  private async changeOne(sessionId: string, sql: string, params: unknown[]): Promise<void> {
    await this.write(async (c) => {
      if ((await c.query(sql, params)).length === 0) throw notFound(sessionId)
    })
  }

  async tip(sessionId: string): Promise<SessionRecord | undefined> {
    const [row] = await (await this.reader()).query<SessionRow>(TIP, [sessionId])
    return row && toSession(row)
  }

  async search(query: string, options: SessionSearchOptions = {}) {
    return searchMessagesPg(await this.reader(), query, options)
  }

  async delete(sessionId: string): Promise<boolean> {
    return this.write(async (c) => (await c.query('DELETE FROM sessions WHERE id = $1 RETURNING 1', [sessionId])).length > 0)
  }
}
