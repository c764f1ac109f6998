// Idempotency keys on PostgreSQL, shared by every instance: a retry that reaches another instance
// gets the same answer, or the same 409 while the first still runs. A key in flight is a row of its
// own (`status` 0, a value no stored answer has; the table mirrors the SQLite one): taking a key is
// one upsert that wins only when the key is free, expired or abandoned, so two instances racing for
// one key cannot both run it. The holder renews the row while its request runs; one not renewed for
// IN_FLIGHT_STALE_MS (its instance died) is free again. Times are the database's clock, so instances
// whose clocks disagree still agree on what expired.

import type { PgMigration, PostgresService } from 'agent/sdk'
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim, type IdempotencyStore, type IdempotentAnswer } from './idempotency.ts'

export const PG_MIGRATIONS: readonly PgMigration[] = [
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
        created_at BIGINT NOT NULL,
        PRIMARY KEY (key, path)
      );
      CREATE INDEX api_server_idempotency_created ON api_server_idempotency(created_at);
    `,
  },
]

/** `status` of a key whose request still runs. */
const IN_FLIGHT = 0
/** A key in flight whose holder stopped renewing it this long ago is free (its instance died). */
export const IN_FLIGHT_STALE_MS = 60_000
const RENEW_MS = IN_FLIGHT_STALE_MS / 4
const NOW = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
/** Live rows of table alias `t`: answers younger than the TTL, keys in flight renewed lately. */
const live = (t: string) => `(CASE WHEN ${t}.status = ${IN_FLIGHT} THEN ${t}.created_at >= ${NOW} - ${IN_FLIGHT_STALE_MS} ELSE ${t}.created_at >= ${NOW} - ${IDEMPOTENCY_TTL_MS} END)`

interface Row {
  request_hash: string
  status: number
  content_type: string
  session_id: string | null
  body: string
}

export class PgIdempotencyStore implements IdempotencyStore {
  /** Renewal timers of the keys this instance runs. */
  readonly #renewals = new Map<string, NodeJS.Timeout>()
  /**
   * Answers being committed. A stream has ended before its answer can be settled, so a client
   * retrying at once reaches us before the commit: this instance replays from here meanwhile
   * (another instance answers 409 `retry shortly` for that moment).
   */
  readonly #settling = new Map<string, { requestHash: string; answer: IdempotentAnswer }>()

  constructor(private readonly pg: () => PostgresService) {}

  async #db(): Promise<PostgresService> {
    const pg = this.pg()
    await pg.migrate('api-server-idempotency', PG_MIGRATIONS)
    return pg
  }

  async claim(key: string, path: string, requestHash: string): Promise<IdempotencyClaim> {
    const settling = this.#settling.get(`${path}\n${key}`)
    if (settling) return settling.requestHash === requestHash ? { kind: 'replay', answer: settling.answer } : { kind: 'reused' }
    const pg = await this.#db()
    // Read, else take; a take lost to another instance reads again (bounded: the winner's row stays live).
    for (let attempt = 0; attempt < 3; attempt++) {
      const [row] = await pg.query<Row>(`SELECT request_hash, status, content_type, session_id, body FROM api_server_idempotency i WHERE key = $1 AND path = $2 AND ${live('i')}`, [key, path])
      if (row) return decide(row, requestHash)
      const taken = await pg.query(
        `INSERT INTO api_server_idempotency AS i (key, path, request_hash, status, content_type, session_id, body, created_at)
         VALUES ($1, $2, $3, ${IN_FLIGHT}, '', NULL, '', ${NOW})
         ON CONFLICT (key, path) DO UPDATE SET request_hash = EXCLUDED.request_hash, status = ${IN_FLIGHT}, content_type = '', session_id = NULL, body = '', created_at = EXCLUDED.created_at
         WHERE NOT ${live('i')}
         RETURNING 1`,
        [key, path, requestHash],
      )
      if (taken.length) {
        this.#renew(pg, key, path, requestHash)
        return { kind: 'run' }
      }
    }
    return { kind: 'in_flight' }
  }

  #renew(pg: PostgresService, key: string, path: string, requestHash: string): void {
    const timer = setInterval(() => {
      pg.query(`UPDATE api_server_idempotency SET created_at = ${NOW} WHERE key = $1 AND path = $2 AND status = ${IN_FLIGHT} AND request_hash = $3`, [key, path, requestHash]).catch(() => undefined)
    }, RENEW_MS)
    timer.unref()
    this.#renewals.set(`${path}\n${key}`, timer)
  }

  /** Awaited before a JSON answer goes out: a retry on any instance then replays it. */
  async settle(key: string, path: string, requestHash: string, answer: IdempotentAnswer | undefined): Promise<void> {
    const scope = `${path}\n${key}`
    clearInterval(this.#renewals.get(scope))
    this.#renewals.delete(scope)
    const settling = answer && { requestHash, answer }
    // Set before anything is awaited: the stream's end and this are one turn of the event loop.
    if (settling) this.#settling.set(scope, settling)
    try {
      await this.#commit(key, path, requestHash, answer)
    } finally {
      if (settling && this.#settling.get(scope) === settling) this.#settling.delete(scope)
    }
  }

  async #commit(key: string, path: string, requestHash: string, answer: IdempotentAnswer | undefined): Promise<void> {
    const pg = await this.#db()
    const ours = [key, path, requestHash]
    if (!answer) {
      await pg.query(`DELETE FROM api_server_idempotency WHERE key = $1 AND path = $2 AND status = ${IN_FLIGHT} AND request_hash = $3`, ours)
      return
    }
    await pg.write(async (c) => {
      await c.query(
        `UPDATE api_server_idempotency SET status = $4, content_type = $5, session_id = $6, body = $7, created_at = ${NOW}
         WHERE key = $1 AND path = $2 AND status = ${IN_FLIGHT} AND request_hash = $3`,
        [...ours, answer.status, answer.contentType, answer.sessionId, answer.body],
      )
      await c.query(`DELETE FROM api_server_idempotency WHERE created_at < ${NOW} - ${IDEMPOTENCY_TTL_MS}`)
    })
  }
}

function decide(row: Row, requestHash: string): IdempotencyClaim {
  if (row.request_hash !== requestHash) return { kind: 'reused' }
  if (row.status === IN_FLIGHT) return { kind: 'in_flight' }
  return { kind: 'replay', answer: { status: row.status, contentType: row.content_type, sessionId: row.session_id, body: row.body } }
}
