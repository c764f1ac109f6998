// `Idempotency-Key` on the POST endpoints that run the agent: a request repeated with the same key
// and the same body gets the stored answer (plain JSON, or the whole SSE stream) instead of a second
// run, for 24 hours; the same key with another body is 422, and while the first is still running 409
// (the IETF httpapi "Idempotency-Key" draft's statuses). Kept in state.db. Requests without the
// header pay one header lookup.

import { createHash } from 'node:crypto'
import { HttpError, readBody, type DatabaseService, type HttpContext, type Migration, type SqliteDatabase } from 'agent/sdk'

/** How long a stored answer is replayed (OpenAI's and Stripe's clients retry well within it). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

const MIGRATIONS: readonly Migration[] = [
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

interface Stored {
  requestHash: string
  status: number
  contentType: string
  sessionId: string | null
  body: string
  createdAt: number
}

type Handler = (ctx: HttpContext) => unknown

export class IdempotencyStore {
  /** Scope (path + key) → request hash of the request running under it. */
  readonly #inFlight = new Map<string, string>()
  /** Answers given but not yet committed: they answer replays until their write lands. */
  readonly #committing = new Map<string, Stored>()
  #prepared: { db: SqliteDatabase; get: any; put: any; prune: any } | undefined

  constructor(
    private readonly database: () => DatabaseService,
    private readonly maxRequestBytes: () => number,
    private readonly warn: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  #stmts() {
    const service = this.database()
    const db = service.db()
    if (this.#prepared?.db === db) return this.#prepared
    service.migrate('api-server-idempotency', MIGRATIONS)
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

  /** The handler, honouring `Idempotency-Key` when a request carries one. */
  wrap(handler: Handler): Handler {
    return async (ctx) => {
      const key = ctx.get('Idempotency-Key')
      if (!key) return handler(ctx)
      if (!KEY_PATTERN.test(key)) {
        throw new HttpError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { code: 'invalid_idempotency_key' })
      }
      const path = ctx.path
      const scope = `${path}\n${key}`
      const requestHash = createHash('sha256').update(await readBody(ctx, this.maxRequestBytes())).digest('hex')
      const stored = this.#lookup(key, path, scope)
      const running = this.#inFlight.get(scope)
      if ((stored && stored.requestHash !== requestHash) || (running !== undefined && running !== requestHash)) {
        throw new HttpError(422, 'This Idempotency-Key was already used with a different request body', { code: 'idempotency_key_reused' })
      }
      if (stored) return replay(ctx, stored)
      if (running !== undefined) {
        throw new HttpError(409, 'A request with this Idempotency-Key is still being processed; retry shortly', { code: 'idempotency_key_in_flight', headers: { 'Retry-After': '1' } })
      }

      this.#inFlight.set(scope, requestHash)
      const record: string[] = []
      ;(ctx.state as { sseRecord?: string[] }).sseRecord = record
      try {
        await handler(ctx)
        const answer = captured(ctx, record)
        if (answer) this.#save(key, path, scope, { requestHash, ...answer, createdAt: this.now() })
      } finally {
        this.#inFlight.delete(scope)
      }
    }
  }
}

/** What the handler answered, when it is worth replaying: a 2xx JSON body, or an SSE stream that completed. */
function captured(ctx: HttpContext, record: string[]): Omit<Stored, 'requestHash' | 'createdAt'> | undefined {
  const sessionId = (ctx.respond === false ? undefined : ctx.response.get('X-Agent-Session-Id')) || null
  if (ctx.respond !== false) {
    if (ctx.status < 200 || ctx.status >= 300 || ctx.body === null || typeof ctx.body !== 'object') return undefined
    // Serialised once, here: Koa sends the same string.
    const body = JSON.stringify(ctx.body)
    ctx.type = 'application/json'
    ctx.body = body
    return { status: ctx.status, contentType: 'application/json; charset=utf-8', sessionId, body }
  }
  const res = ctx.res
  if (!res.writableEnded || res.destroyed || !streamCompleted(record)) return undefined
  const header = res.getHeader('X-Agent-Session-Id')
  return { status: 200, contentType: 'text/event-stream; charset=utf-8', sessionId: typeof header === 'string' ? header : null, body: record.join('') }
}

/** A stream ended well: chat's last chunk does not finish with `error`; responses end completed or incomplete. */
function streamCompleted(record: string[]): boolean {
  let last: any
  for (let i = record.length - 1; i >= 0 && last === undefined; i--) {
    const data = /(?:^|\n)data: (.*)\n\n$/.exec(record[i]!)?.[1]
    if (data === undefined || data === '[DONE]') continue
    try {
      last = JSON.parse(data)
    } catch {
      return false
    }
  }
  if (last?.object === 'chat.completion.chunk') return last.choices?.[0]?.finish_reason !== 'error' && !last.error
  return last?.type === 'response.completed' || last?.type === 'response.incomplete'
}

function replay(ctx: HttpContext, stored: Stored): void {
  ctx.status = stored.status
  ctx.set('Idempotent-Replayed', 'true')
  if (stored.sessionId) ctx.set('X-Agent-Session-Id', stored.sessionId)
  ctx.type = stored.contentType
  ctx.body = stored.body
}
