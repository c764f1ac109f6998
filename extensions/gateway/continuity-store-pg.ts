// The continuity store in PostgreSQL, shared by every gateway instance on the database: an adapter
// taken over by another instance resumes from the cursor its last holder saved, and a message
// delivered to two instances (or twice to one) is claimed once, by a single INSERT … ON CONFLICT DO
// NOTHING. Hot-path writes share the group commit; a drain of a platform's outbox holds an advisory
// lock so two instances never send the same row twice.

import type { PgQuery, PostgresService } from 'agent/sdk'
import { KEEP_MS, PG_MIGRATIONS, PRUNE_EVERY_MS, toOutboxRow, toPendingPrompt, type ContinuityStore, type OutboxRow, type PendingPrompt, type QueuedReply } from './continuity-store.ts'

const SETTLE = "UPDATE gateway_inbox SET state = 'done', source = NULL, text = NULL, updated_at = $2 WHERE id = $1"
const SETTLE_OPEN = `${SETTLE} AND state <> 'done' RETURNING id`

export class PgContinuityStore implements ContinuityStore {
  #prunedAt = 0

  constructor(
    private readonly postgres: () => PostgresService,
    private readonly now: () => number = Date.now,
  ) {}

  /** The pool, once the schema is migrated (first use; a failed migration is tried again next time). */
  private async pg(): Promise<PostgresService> {
    const pg = this.postgres()
    await pg.migrate('gateway', PG_MIGRATIONS)
    return pg
  }

  private async write<T>(fn: (client: PgQuery) => Promise<T>): Promise<T> {
    return (await this.pg()).write(fn)
  }

  async resume(adapter: string) {
    const [row] = await (await this.pg()).query<{ cursor: string; saved_at: string }>('SELECT cursor, saved_at FROM gateway_resume WHERE adapter = $1', [adapter])
    return row ? { cursor: row.cursor, savedAt: Number(row.saved_at) } : undefined
  }

  async setResume(adapter: string, cursor: string | undefined): Promise<void> {
    if (cursor === undefined) return void (await this.write((c) => c.query('DELETE FROM gateway_resume WHERE adapter = $1', [adapter])))
    await this.write((c) =>
      c.query('INSERT INTO gateway_resume (adapter, cursor, saved_at) VALUES ($1, $2, $3) ON CONFLICT (adapter) DO UPDATE SET cursor = EXCLUDED.cursor, saved_at = EXCLUDED.saved_at', [adapter, cursor, this.now()]),
    )
  }

  async claim(platform: string, messageId: string | undefined, receivedAt?: number): Promise<number | undefined> {
    const now = this.now()
    const prune = now - this.#prunedAt >= PRUNE_EVERY_MS
    if (prune) this.#prunedAt = now
    const [row] = await this.write(async (c) => {
      if (prune) {
        await c.query("DELETE FROM gateway_inbox WHERE state = 'done' AND updated_at < $1", [now - KEEP_MS])
        await c.query("DELETE FROM gateway_outbox WHERE state = 'failed' AND created_at < $1", [now - KEEP_MS])
      }
      return c.query<{ id: string }>(
        "INSERT INTO gateway_inbox (platform, message_id, state, received_at, updated_at) VALUES ($1, $2, 'received', $3, $4) ON CONFLICT (platform, message_id) DO NOTHING RETURNING id",
        [platform, messageId ?? null, receivedAt ?? null, now],
      )
    })
    return row ? Number(row.id) : undefined
  }

  async seen(platform: string, messageId: string): Promise<boolean> {
    return (await (await this.pg()).query('SELECT 1 FROM gateway_inbox WHERE platform = $1 AND message_id = $2', [platform, messageId])).length > 0
  }

  async markPending(id: number, source: PendingPrompt['source'], text: string): Promise<void> {
    await this.write((c) => c.query("UPDATE gateway_inbox SET state = 'pending', source = $2, text = $3, updated_at = $4 WHERE id = $1", [id, JSON.stringify(source), text, this.now()]))
  }

  async settle(id: number): Promise<void> {
    await this.write((c) => c.query(SETTLE, [id, this.now()]))
  }

  async pendingPrompts(platforms?: readonly string[]): Promise<PendingPrompt[]> {
    const pg = await this.pg()
    const rows = platforms
      ? await pg.query<{ id: string; source: string; text: string; received_at: string | null }>("SELECT id, source, text, received_at FROM gateway_inbox WHERE state = 'pending' AND platform = ANY($1) ORDER BY id", [platforms])
      : await pg.query<{ id: string; source: string; text: string; received_at: string | null }>("SELECT id, source, text, received_at FROM gateway_inbox WHERE state = 'pending' ORDER BY id")
    return rows.map(toPendingPrompt)
  }

  async enqueue(reply: QueuedReply, settles?: number): Promise<OutboxRow | undefined> {
    const now = this.now()
    // One savepoint of the group commit: the prompt settled (only if no answer settled it first,
    // see ContinuityStore.enqueue; the row lock orders two instances) and its reply queued together.
    const id = await this.write(async (c) => {
      if (settles !== undefined && (await c.query(SETTLE_OPEN, [settles, now])).length === 0) return undefined
      const [row] = await c.query<{ id: string }>(
        "INSERT INTO gateway_outbox (platform, chat_id, thread_id, text, parts_sent, state, created_at, next_at) VALUES ($1, $2, $3, $4, $5, 'queued', $6, $6) RETURNING id",
        [reply.platform, reply.chatId, reply.threadId ?? null, reply.text, reply.partsSent ?? 0, now],
      )
      return Number(row!.id)
    })
    return id === undefined ? undefined : { id, ...reply, partsSent: reply.partsSent ?? 0, attempts: 0, createdAt: now, nextAt: now }
  }

  async queued(platform?: string): Promise<OutboxRow[]> {
    const pg = await this.pg()
    const rows = platform === undefined
      ? await pg.query("SELECT * FROM gateway_outbox WHERE state = 'queued' ORDER BY id")
      : await pg.query("SELECT * FROM gateway_outbox WHERE state = 'queued' AND platform = $1 ORDER BY id", [platform])
    return rows.map(toOutboxRow)
  }

  async counts() {
    const rows = await (await this.pg()).query<{ platform: string; state: string; count: string }>('SELECT platform, state, COUNT(*) AS count FROM gateway_outbox GROUP BY platform, state')
    return rows.map((r) => ({ platform: r.platform, state: r.state, count: Number(r.count) }))
  }

  async partSent(id: number, partsSent: number): Promise<void> {
    await this.write((c) => c.query('UPDATE gateway_outbox SET parts_sent = $2 WHERE id = $1', [id, partsSent]))
  }

  async attempted(id: number, attempts: number, nextAt: number, error: string): Promise<void> {
    await this.write((c) => c.query('UPDATE gateway_outbox SET attempts = $2, next_at = $3, last_error = $4 WHERE id = $1', [id, attempts, nextAt, error]))
  }

  async finish(id: number, state: 'sent' | 'failed', error?: string): Promise<void> {
    if (state === 'sent') return void (await this.write((c) => c.query('DELETE FROM gateway_outbox WHERE id = $1', [id])))
    await this.write((c) => c.query("UPDATE gateway_outbox SET state = 'failed', last_error = $2 WHERE id = $1", [id, error ?? null]))
  }

  async draining<T>(platform: string, fn: () => Promise<T>): Promise<T> {
    // Waited for: the other instance's drain ends (its sends are bounded), then this one sees what is left.
    return (await (await this.pg()).locked(`gateway-outbox:${platform}`, () => fn())) as T
  }
}
