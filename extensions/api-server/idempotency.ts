// `Idempotency-Key` on the POST endpoints that run the agent: a request repeated with the same key
// and the same body gets the stored answer (plain JSON, or the whole SSE stream) instead of a second
// run, for 24 hours; the same key with another body is 422, and while the first is still running 409
// (the IETF httpapi "Idempotency-Key" draft's statuses). Requests without the header pay one header
// lookup. The HTTP side lives here once; where keys are kept is an async store picked by the storage
// backend at first use: SQLite (idempotency-sqlite.ts, in-flight keys in this process) or PostgreSQL
// (idempotency-pg.ts, in-flight keys in the database, so every instance sees them). What is kept
// carries no known secret (like the response store, store.ts): the answer is stored redacted, and a
// request is known by the hash of its body with the known secrets replaced by their markers.

import { createHash } from 'node:crypto'
import { DATABASE_SERVICE, holdAnswer, HttpError, readBody, STORAGE_SERVICE, type DatabaseService, type HttpContext, type Services, type StorageService } from 'agent/sdk'

/** How long a stored answer is replayed (OpenAI's and Stripe's clients retry well within it). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/

/** An answer worth replaying. */
export interface IdempotentAnswer {
  status: number
  contentType: string
  sessionId: string | null
  body: string
}

/** What a request under a key may do: replay the stored answer, be refused (422, 409), or run. */
export type IdempotencyClaim = { kind: 'replay'; answer: IdempotentAnswer } | { kind: 'reused' } | { kind: 'in_flight' } | { kind: 'run' }

export interface IdempotencyStore {
  /**
   * Decides for a request under (`key`, `path`) with body hash `requestHash`; `run` reserves the key
   * (another request under it is 409 until settled). Atomic across the instances sharing the store.
   */
  claim(key: string, path: string, requestHash: string): Promise<IdempotencyClaim>
  /** The run under a `run` claim ended: keep its answer (undefined: keep nothing, a retry runs again). */
  settle(key: string, path: string, requestHash: string, answer: IdempotentAnswer | undefined): Promise<void>
}

/** The store as the HTTP side uses it: a backend's, with the known secrets kept out of what it writes. */
export interface IdempotencyKeys extends IdempotencyStore {
  /**
   * The hash a request is known by (`requestHash` of claim and settle): SHA-256 of its body, of the
   * body with the known secrets replaced by their markers when it holds one. A hash of text holding
   * a secret would let whoever reads the table test guesses at a weak secret offline; the redacted
   * body's does not. A retry (the same body) redacts to the same text, another body to another;
   * bodies without a secret hash exactly as before. Throws when the secrets cannot be read.
   */
  requestHash(body: Buffer): string
}

type Handler = (ctx: HttpContext) => unknown

/**
 * The store of the storage backend, picked (and its module loaded) at first use. `redactor` is the
 * current known-secrets redactor (the one the response store is given): what is stored passes it.
 */
export function createIdempotencyStore(services: Services, warn: (message: string) => void, redactor: () => (text: string) => string): IdempotencyKeys {
  let picked: Promise<IdempotencyStore> | undefined
  const pick = (): Promise<IdempotencyStore> =>
    (picked ??= (async () => {
      const storage = services.require<StorageService>(STORAGE_SERVICE)
      if (storage.backend === 'postgres') return new (await import('./idempotency-pg.ts')).PgIdempotencyStore(() => storage.postgres())
      return new (await import('./idempotency-sqlite.ts')).SqliteIdempotencyStore(() => services.require<DatabaseService>(DATABASE_SERVICE), warn)
    })().catch((error) => {
      picked = undefined
      throw error
    }))
  return {
    requestHash(body) {
      const text = body.toString('utf8')
      const redacted = redactor()(text)
      return createHash('sha256').update(redacted === text ? body : redacted).digest('hex')
    },
    claim: async (key, path, requestHash) => (await pick()).claim(key, path, requestHash),
    settle: async (key, path, requestHash, answer) => {
      let kept: IdempotentAnswer | undefined
      try {
        kept = answer && redactAnswer(answer, redactor())
      } catch (error) {
        // The secrets cannot be read: nothing is kept (a retry runs again), and the key is still freed.
        warn(`could not store an idempotent answer: ${(error as Error)?.message ?? error}`)
      }
      return (await pick()).settle(key, path, requestHash, kept)
    },
  }
}

/**
 * The answer as it is stored (and replayed): its body, JSON or a whole SSE stream, with every known
 * secret replaced by its marker. The client's own text comes back in it (`instructions`, and what
 * the model read was redacted by the runtime already), so a replay shows `[REDACTED:NAME]` where the
 * first answer echoed a secret the client sent. Redacted as text: the matcher covers a secret's
 * JSON-escaped form too (how it sits in a JSON body or an SSE `data:` line), and the marker (a
 * variable name or config path in brackets) is plain text inside a JSON string. An answer holding no
 * secret is stored (and replayed) unchanged, byte for byte.
 */
export function redactAnswer(answer: IdempotentAnswer, redact: (text: string) => string): IdempotentAnswer {
  const body = redact(answer.body)
  return body === answer.body ? answer : { ...answer, body }
}

/** The handler, honouring `Idempotency-Key` when a request carries one. */
export function idempotent(store: IdempotencyKeys, maxRequestBytes: () => number, warn: (message: string) => void, handler: Handler): Handler {
  return async (ctx) => {
    const key = ctx.get('Idempotency-Key')
    if (!key) return handler(ctx)
    if (!KEY_PATTERN.test(key)) {
      throw new HttpError(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters', { code: 'invalid_idempotency_key' })
    }
    const path = ctx.path
    const requestHash = store.requestHash(await readBody(ctx, maxRequestBytes()))
    const claim = await store.claim(key, path, requestHash)
    if (claim.kind === 'reused') {
      throw new HttpError(422, 'This Idempotency-Key was already used with a different request body', { code: 'idempotency_key_reused' })
    }
    if (claim.kind === 'replay') return replay(ctx, claim.answer)
    if (claim.kind === 'in_flight') {
      throw new HttpError(409, 'A request with this Idempotency-Key is still being processed; retry shortly', { code: 'idempotency_key_in_flight', headers: { 'Retry-After': '1' } })
    }

    const record: string[] = []
    ;(ctx.state as { sseRecord?: string[] }).sseRecord = record
    // The answer is kept before it goes out: a client resending at once finds it to replay.
    holdAnswer(ctx)
    let answer: IdempotentAnswer | undefined
    try {
      await handler(ctx)
      answer = captured(ctx, record)
    } finally {
      // A failure to keep the answer costs the replay (a retry runs again), never the answer.
      await store.settle(key, path, requestHash, answer).catch((error: unknown) => warn(`could not store an idempotent answer: ${(error as Error)?.message ?? error}`))
    }
  }
}

/** What the handler answered, when it is worth replaying: a 2xx JSON body, or an SSE stream that completed. */
function captured(ctx: HttpContext, record: string[]): IdempotentAnswer | undefined {
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

function replay(ctx: HttpContext, stored: IdempotentAnswer): void {
  ctx.status = stored.status
  ctx.set('Idempotent-Replayed', 'true')
  if (stored.sessionId) ctx.set('X-Agent-Session-Id', stored.sessionId)
  ctx.type = stored.contentType
  ctx.body = stored.body
}
