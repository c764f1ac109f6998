// The continuity store in state.db (one gateway per home). Writes go through the synchronous handle,
// not the group commit: a row is committed before the call resolves and survives a SIGKILL.

import type { DatabaseService, SqliteDatabase } from 'agent/sdk'
import { KEEP_MS, MIGRATIONS, PRUNE_EVERY_MS, toOutboxRow, toPendingPrompt, type ContinuityStore, type OutboxRow, type PendingPrompt, type QueuedReply } from './continuity-store.ts'

const SETTLE_OPEN = "UPDATE gateway_inbox SET state = 'done', source = NULL, text = NULL, updated_at = ? WHERE id = ? AND state <> 'done'"

export class SqliteContinuityStore implements ContinuityStore {
  #migrated = new WeakSet<SqliteDatabase>()
  #prunedAt = 0

  constructor(
    private readonly database: () => DatabaseService,
    private readonly now: () => number = Date.now,
  ) {}

  db(): SqliteDatabase {
    const service = this.database()
    const db = service.db()
    if (!this.#migrated.has(db)) {
      service.migrate('gateway', MIGRATIONS)
      this.#migrated.add(db)
    }
    return db
  }

  async resume(adapter: string) {
    const row = this.db().prepare('SELECT cursor, saved_at FROM gateway_resume WHERE adapter = ?').get(adapter) as { cursor: string; saved_at: number } | undefined
    return row ? { cursor: row.cursor, savedAt: row.saved_at } : undefined
  }

  async setResume(adapter: string, cursor: string | undefined): Promise<void> {
    if (cursor === undefined) return void this.db().prepare('DELETE FROM gateway_resume WHERE adapter = ?').run(adapter)
    this.db().prepare('INSERT OR REPLACE INTO gateway_resume (adapter, cursor, saved_at) VALUES (?, ?, ?)').run(adapter, cursor, this.now())
  }

  private prune(db: SqliteDatabase): void {
    const now = this.now()
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return
    this.#prunedAt = now
    db.prepare("DELETE FROM gateway_inbox WHERE state = 'done' AND updated_at < ?").run(now - KEEP_MS)
    db.prepare("DELETE FROM gateway_outbox WHERE state = 'failed' AND created_at < ?").run(now - KEEP_MS)
  }

  async claim(platform: string, messageId: string | undefined, receivedAt?: number): Promise<number | undefined> {
    this.prune(this.db())
    const result = this.db()
      .prepare("INSERT OR IGNORE INTO gateway_inbox (platform, message_id, state, received_at, updated_at) VALUES (?, ?, 'received', ?, ?)")
      .run(platform, messageId ?? null, receivedAt ?? null, this.now())
    return result.changes === 1 ? Number(result.lastInsertRowid) : undefined
  }

  async seen(platform: string, messageId: string): Promise<boolean> {
    return this.db().prepare('SELECT 1 FROM gateway_inbox WHERE platform = ? AND message_id = ?').get(platform, messageId) !== undefined
  }

  async markPending(id: number, source: PendingPrompt['source'], text: string): Promise<void> {
    this.db().prepare("UPDATE gateway_inbox SET state = 'pending', source = ?, text = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(source), text, this.now(), id)
  }

  async settle(id: number): Promise<void> {
    this.settleNow(id)
  }

  private settleNow(id: number): void {
    this.db().prepare("UPDATE gateway_inbox SET state = 'done', source = NULL, text = NULL, updated_at = ? WHERE id = ?").run(this.now(), id)
  }

  async pendingPrompts(platforms?: readonly string[]): Promise<PendingPrompt[]> {
    const rows = this.db().prepare("SELECT id, platform, source, text, received_at FROM gateway_inbox WHERE state = 'pending' ORDER BY id").all() as Array<{ id: number; platform: string; source: string; text: string; received_at: number | null }>
    return rows.filter((r) => !platforms || platforms.includes(r.platform)).map(toPendingPrompt)
  }

  async enqueue(reply: QueuedReply, settles?: number): Promise<OutboxRow | undefined> {
    const db = this.db()
    const now = this.now()
    const insert = db.transaction((): number | undefined => {
      // The prompt is settled only if no answer settled it first (see ContinuityStore.enqueue).
      if (settles !== undefined && db.prepare(SETTLE_OPEN).run(now, settles).changes === 0) return undefined
      const result = db
        .prepare("INSERT INTO gateway_outbox (platform, chat_id, thread_id, text, parts_sent, state, created_at, next_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)")
        .run(reply.platform, reply.chatId, reply.threadId ?? null, reply.text, reply.partsSent ?? 0, now, now)
      return Number(result.lastInsertRowid)
    })
    const id = insert()
    return id === undefined ? undefined : { id, ...reply, partsSent: reply.partsSent ?? 0, attempts: 0, createdAt: now, nextAt: now }
  }

  async queued(platform?: string): Promise<OutboxRow[]> {
    const rows = (platform === undefined
      ? this.db().prepare("SELECT * FROM gateway_outbox WHERE state = 'queued' ORDER BY id").all()
      : this.db().prepare("SELECT * FROM gateway_outbox WHERE state = 'queued' AND platform = ? ORDER BY id").all(platform)) as Array<Record<string, any>>
    return rows.map(toOutboxRow)
  }

  async counts() {
    return this.db().prepare('SELECT platform, state, COUNT(*) AS count FROM gateway_outbox GROUP BY platform, state').all() as Array<{ platform: string; state: string; count: number }>
  }

  async partSent(id: number, partsSent: number): Promise<void> {
    this.db().prepare('UPDATE gateway_outbox SET parts_sent = ? WHERE id = ?').run(partsSent, id)
  }

  async attempted(id: number, attempts: number, nextAt: number, error: string): Promise<void> {
    this.db().prepare('UPDATE gateway_outbox SET attempts = ?, next_at = ?, last_error = ? WHERE id = ?').run(attempts, nextAt, error, id)
  }

  async finish(id: number, state: 'sent' | 'failed', error?: string): Promise<void> {
    if (state === 'sent') return void this.db().prepare('DELETE FROM gateway_outbox WHERE id = ?').run(id)
    this.db().prepare("UPDATE gateway_outbox SET state = 'failed', last_error = ? WHERE id = ?").run(error ?? null, id)
  }

  /** One gateway per state.db (its PID file): the outbox's own per-platform chain is enough. */
  draining<T>(_platform: string, fn: () => Promise<T>): Promise<T> {
    return fn()
  }
}
