// The API server's store on PostgreSQL, shared by every instance on the database: any of them
// serves, deletes and chains a response another created. Tables mirror the SQLite ones (store-sqlite.ts)
// column for column. What the SQLite store writes behind must be seen by the other instances here,
// so heads are written through: a claim is one `DELETE … RETURNING` (two instances claiming one head
// at once: one gets the session, the other seeds a new one), a new head one group commit. Only LRU
// read-stamps stay behind (batched every FLUSH_MS): they order eviction, nothing more. The LRU stamp
// is a sequence shared by the instances, brought past the stored stamps on first use (rows copied by
// `agent storage migrate-to` keep theirs).

import type { PgMigration, PgQuery, PostgresService } from 'agent/sdk'
import { FLUSH_MS, HEADS_MAX, HEADS_PRUNE_EVERY, parseInputItems, parseResponseRow, responseColumns, type ApiStore, type ResponseRow, type StoreOptions, type StoredResponse } from './store.ts'

export const PG_MIGRATIONS: readonly PgMigration[] = [
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
        created_at BIGINT NOT NULL,
        used BIGINT NOT NULL,
        input TEXT
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
        used BIGINT NOT NULL
      );
      CREATE INDEX api_server_heads_used ON api_server_heads(used);
      CREATE TABLE api_server_lost_conversations (name TEXT PRIMARY KEY);
      CREATE FUNCTION api_server_conversation_lost() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO api_server_lost_conversations (name) SELECT name FROM api_server_conversations WHERE response_id = OLD.id ON CONFLICT DO NOTHING;
        RETURN OLD;
      END $$;
      CREATE TRIGGER api_server_conversation_lost BEFORE DELETE ON api_server_responses FOR EACH ROW EXECUTE FUNCTION api_server_conversation_lost();
      CREATE SEQUENCE api_server_used;
    `,
  },
]

const STAMP = `nextval('api_server_used')`

export class PgApiStore implements ApiStore {
  #ready: Promise<void> | undefined
  #headWrites = 0
  /** Response id → read since the last flush: its LRU stamp is written behind. */
  readonly #touches = new Set<string>()
  /** Head → its write still on the way: this instance reads its own heads (a chain's next request comes at once). */
  readonly #writing = new Map<string, Promise<void>>()
  #timer: NodeJS.Timeout | undefined

  constructor(
    private readonly pg: () => PostgresService,
    private readonly options: Pick<StoreOptions, 'capacity' | 'onFlushError'>,
  ) {}

  /** Migrates on first use, and brings the stamp sequence past the stored stamps. */
  async #db(): Promise<PostgresService> {
    const pg = this.pg()
    this.#ready ??= (async () => {
      await pg.migrate('api-server', PG_MIGRATIONS)
      await pg.query(
        `SELECT setval('api_server_used', GREATEST((SELECT last_value FROM api_server_used), COALESCE((SELECT MAX(used) FROM api_server_responses), 0), COALESCE((SELECT MAX(used) FROM api_server_heads), 0), 1))`,
      )
    })().catch((error) => {
      this.#ready = undefined
      throw error
    })
    await this.#ready
    return pg
  }

  async warm(): Promise<void> {
    await this.#db()
  }

  #later(): void {
    if (this.#timer) return
    this.#timer = setTimeout(() => void this.flush(), FLUSH_MS)
    this.#timer.unref()
  }

  async flush(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#touches.size === 0) return
    const ids = [...this.#touches]
    this.#touches.clear()
    try {
      const pg = await this.#db()
      await touch(pg, ids)
    } catch (error) {
      this.options.onFlushError(error)
    }
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const pg = await this.#db()
    const [row] = await pg.query<ResponseRow>('SELECT response, transcript, instructions, session_id, conversation FROM api_server_responses WHERE id = $1', [id])
    if (!row) return undefined
    const record = parseResponseRow(id, row)
    if (!record) {
      await pg.query('DELETE FROM api_server_responses WHERE id = $1', [id])
      return undefined
    }
    // Re-added last: stamps are handed out in reading order.
    this.#touches.delete(id)
    this.#touches.add(id)
    this.#later()
    return record
  }

  /**
   * The row and its conversation's name in one group commit; then, each in a statement of its own,
   * pending read-stamps (so eviction sees what was read) and eviction past capacity. Kept out of the
   * group commit, whose transaction holds other requests' rows: instances evicting at once while
   * holding those deadlocked (seen in the storage bench).
   */
  async put(record: StoredResponse, createdAt: number): Promise<void> {
    const pg = await this.#db()
    const [response, transcript, instructions, sessionId, conversation, input] = responseColumns(record)
    await pg.write(async (c) => {
      await c.query(
        `INSERT INTO api_server_responses (id, response, transcript, instructions, session_id, conversation, created_at, used, input)
         VALUES ($1, $2, $3, $4, $5, $6, $7, ${STAMP}, $8)
         ON CONFLICT (id) DO UPDATE SET response = EXCLUDED.response, transcript = EXCLUDED.transcript, instructions = EXCLUDED.instructions,
           session_id = EXCLUDED.session_id, conversation = EXCLUDED.conversation, created_at = EXCLUDED.created_at, used = EXCLUDED.used, input = EXCLUDED.input`,
        [record.id, response, transcript, instructions, sessionId, conversation, createdAt, input],
      )
      if (record.conversation) {
        await c.query('INSERT INTO api_server_conversations (name, response_id) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET response_id = EXCLUDED.response_id', [record.conversation, record.id])
      }
    })
    const touched = [...this.#touches]
    this.#touches.clear()
    // Housekeeping: the response is stored; a failure here is the next put's to make good.
    try {
      if (touched.length) await touch(pg, touched)
      await evict(pg, this.options.capacity)
    } catch (error) {
      this.options.onFlushError(error)
    }
  }

  async delete(id: string): Promise<boolean> {
    this.#touches.delete(id)
    const pg = await this.#db()
    return (await pg.query('DELETE FROM api_server_responses WHERE id = $1 RETURNING id', [id])).length > 0
  }

  async conversationHead(name: string): Promise<string | 'lost' | undefined> {
    const pg = await this.#db()
    // A mapping whose response is gone is no head; a name whose latest response was deleted is lost.
    const [row] = await pg.query<{ id: string | null; lost: boolean }>(
      `SELECT (SELECT c.response_id FROM api_server_conversations c JOIN api_server_responses r ON r.id = c.response_id WHERE c.name = $1) AS id,
              EXISTS (SELECT 1 FROM api_server_lost_conversations WHERE name = $1) AS lost`,
      [name],
    )
    return row?.id ?? (row?.lost ? 'lost' : undefined)
  }

  async inputItems(id: string): Promise<unknown[] | undefined> {
    const pg = await this.#db()
    const [row] = await pg.query<{ input: string | null }>('SELECT input FROM api_server_responses WHERE id = $1', [id])
    return parseInputItems(row?.input)
  }

  async peekHead(head: string): Promise<string | undefined> {
    await this.#written(head)
    const pg = await this.#db()
    const [row] = await pg.query<{ session_id: string }>('SELECT session_id FROM api_server_heads WHERE head = $1', [head])
    return row?.session_id
  }

  /** One statement: of two instances claiming a head at once, exactly one gets the session. */
  async claimHead(head: string): Promise<string | undefined> {
    await this.#written(head)
    const pg = await this.#db()
    const [row] = await pg.query<{ session_id: string }>('DELETE FROM api_server_heads WHERE head = $1 RETURNING session_id', [head])
    return row?.session_id
  }

  /** One head per session: the session's previous head goes in the same commit. */
  async setHead(head: string, sessionId: string, stored?: Promise<unknown>): Promise<void> {
    const prune = ++this.#headWrites % HEADS_PRUNE_EVERY === 0
    // The session's own write failing was reported by whoever wrote it: no head then, nothing more to say.
    const write = Promise.resolve(stored).then(async () => {
      const pg = await this.#db()
      await pg.write(async (c) => {
        await c.query('DELETE FROM api_server_heads WHERE session_id = $1 AND head <> $2', [sessionId, head])
        await c.query(`INSERT INTO api_server_heads (head, session_id, used) VALUES ($1, $2, ${STAMP}) ON CONFLICT (head) DO UPDATE SET session_id = EXCLUDED.session_id, used = EXCLUDED.used`, [head, sessionId])
        if (prune) await c.query('DELETE FROM api_server_heads WHERE head IN (SELECT head FROM api_server_heads ORDER BY used DESC OFFSET $1)', [HEADS_MAX])
      })
    }, () => undefined)
    this.#writing.set(head, write)
    try {
      await write
    } finally {
      if (this.#writing.get(head) === write) this.#writing.delete(head)
    }
  }

  /** Waits for this instance's write of `head`, if one is on the way (its failure is the writer's to report). */
  async #written(head: string): Promise<void> {
    await this.#writing.get(head)?.catch(() => undefined)
  }
}

/** Stamps responses read, in the order they were read (a statement of its own: it may wait for an evictor). */
async function touch(c: PgQuery, ids: readonly string[]): Promise<void> {
  await c.query(`UPDATE api_server_responses r SET used = s.stamp FROM (SELECT id, ${STAMP} AS stamp FROM unnest($1::text[]) WITH ORDINALITY AS t(id, n) ORDER BY n) s WHERE r.id = s.id`, [ids])
}

/**
 * Evicts the least recently used past `capacity`, one instance at a time: the statement runs only
 * when it gets the eviction lock at once (another instance evicting now has counted about the same
 * excess; racing evictors each deleting what they counted emptied the store in a test), and the
 * statement is a transaction of its own, so it holds no other request's rows (instances evicting in
 * a shared group commit deadlocked in the storage bench).
 */
async function evict(c: PgQuery, capacity: number): Promise<void> {
  await c.query(
    `WITH evictor AS (SELECT pg_try_advisory_xact_lock(hashtextextended('api-server:evict', 0)) AS ok)
     DELETE FROM api_server_responses WHERE (SELECT ok FROM evictor) AND id IN (
       SELECT id FROM api_server_responses ORDER BY used ASC LIMIT GREATEST((SELECT COUNT(*) FROM api_server_responses) - $1, 0))`,
    [capacity],
  )
}
