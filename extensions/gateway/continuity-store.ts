// The gateway's durable memory of messages (state.db; an in-memory database when state-db is not
// loaded): each adapter's resume point, the inbox (every platform message id seen, so a message
// delivered again after a reconnect or restart is not answered twice, and the prompts whose answer
// was not yet queued, so a restart runs them again) and the outbox (replies not yet sent). Writes go
// through the synchronous handle: a row is committed before the call returns and survives a SIGKILL.

import { createRequire } from 'node:module'
import type { DatabaseService, Migration, MessageSource, SqliteDatabase } from 'agent/sdk'

/** Every table the gateway owns in state.db (one list: state-db skips a shorter list once a later version ran). */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    up: `CREATE TABLE IF NOT EXISTS gateway_routing (
      session_key TEXT PRIMARY KEY, session_id TEXT NOT NULL, last_activity INTEGER NOT NULL)`,
  },
  {
    version: 2,
    up: `
      CREATE TABLE IF NOT EXISTS gateway_resume (adapter TEXT PRIMARY KEY, cursor TEXT NOT NULL, saved_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS gateway_inbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT, platform TEXT NOT NULL, message_id TEXT, state TEXT NOT NULL,
        source TEXT, text TEXT, received_at INTEGER, updated_at INTEGER NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS gateway_inbox_message ON gateway_inbox (platform, message_id);
      CREATE INDEX IF NOT EXISTS gateway_inbox_state ON gateway_inbox (state, updated_at);
      CREATE TABLE IF NOT EXISTS gateway_outbox (
        id INTEGER PRIMARY KEY AUTOINCREMENT, platform TEXT NOT NULL, chat_id TEXT NOT NULL, thread_id TEXT,
        text TEXT NOT NULL, parts_sent INTEGER NOT NULL DEFAULT 0, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
        created_at INTEGER NOT NULL, next_at INTEGER NOT NULL, last_error TEXT);
      CREATE INDEX IF NOT EXISTS gateway_outbox_state ON gateway_outbox (state, platform, id);
    `,
  },
]

/** Settled inbox rows (answered, refused, summarised) are kept this long for de-duplication; failed outbox rows too. */
const KEEP_MS = 7 * 24 * 60 * 60_000
/** Expired rows are deleted at most this often (on a claim), not on every message. */
const PRUNE_EVERY_MS = 60 * 60_000

export type InboxState = 'received' | 'pending' | 'done'

export interface PendingPrompt {
  id: number
  source: MessageSource & { threadId?: string }
  text: string
  receivedAt?: number
}

export interface OutboxRow {
  id: number
  platform: string
  chatId: string
  threadId?: string
  text: string
  partsSent: number
  attempts: number
  createdAt: number
  nextAt: number
  lastError?: string
}

export class ContinuityStore {
  #memory: SqliteDatabase | undefined
  #migrated = new WeakSet<SqliteDatabase>()
  #prunedAt = 0

  constructor(
    private readonly database: () => DatabaseService | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  db(): SqliteDatabase {
    const service = this.database()
    if (service) {
      const db = service.db()
      if (!this.#migrated.has(db)) {
        service.migrate('gateway', MIGRATIONS)
        this.#migrated.add(db)
      }
      return db
    }
    if (!this.#memory) {
      const Database = createRequire(import.meta.url)('better-sqlite3') as typeof import('better-sqlite3')
      this.#memory = new Database(':memory:')
      for (const m of MIGRATIONS) if (typeof m.up === 'string') this.#memory.exec(m.up)
    }
    return this.#memory
  }

  // --- resume points

  resume(adapter: string): { cursor: string; savedAt: number } | undefined {
    const row = this.db().prepare('SELECT cursor, saved_at FROM gateway_resume WHERE adapter = ?').get(adapter) as { cursor: string; saved_at: number } | undefined
    return row ? { cursor: row.cursor, savedAt: row.saved_at } : undefined
  }

  setResume(adapter: string, cursor: string | undefined): void {
    if (cursor === undefined) return void this.db().prepare('DELETE FROM gateway_resume WHERE adapter = ?').run(adapter)
    this.db().prepare('INSERT OR REPLACE INTO gateway_resume (adapter, cursor, saved_at) VALUES (?, ?, ?)').run(adapter, cursor, this.now())
  }

  // --- inbox

  private prune(db: SqliteDatabase): void {
    const now = this.now()
    if (now - this.#prunedAt < PRUNE_EVERY_MS) return
    this.#prunedAt = now
    db.prepare("DELETE FROM gateway_inbox WHERE state = 'done' AND updated_at < ?").run(now - KEEP_MS)
    db.prepare("DELETE FROM gateway_outbox WHERE state = 'failed' AND created_at < ?").run(now - KEEP_MS)
  }

  /** Records a platform message id; undefined when it was seen before (a duplicate). */
  claim(platform: string, messageId: string | undefined, receivedAt?: number): number | undefined {
    this.prune(this.db())
    const result = this.db()
      .prepare("INSERT OR IGNORE INTO gateway_inbox (platform, message_id, state, received_at, updated_at) VALUES (?, ?, 'received', ?, ?)")
      .run(platform, messageId ?? null, receivedAt ?? null, this.now())
    return result.changes === 1 ? Number(result.lastInsertRowid) : undefined
  }

  seen(platform: string, messageId: string): boolean {
    return this.db().prepare('SELECT 1 FROM gateway_inbox WHERE platform = ? AND message_id = ?').get(platform, messageId) !== undefined
  }

  /** The prompt is queued on its chat: kept until its answer is in the outbox. */
  markPending(id: number, source: PendingPrompt['source'], text: string): void {
    this.db().prepare("UPDATE gateway_inbox SET state = 'pending', source = ?, text = ?, updated_at = ? WHERE id = ?").run(JSON.stringify(source), text, this.now(), id)
  }

  settle(id: number): void {
    this.db().prepare("UPDATE gateway_inbox SET state = 'done', source = NULL, text = NULL, updated_at = ? WHERE id = ?").run(this.now(), id)
  }

  /** Prompts queued by an earlier process whose answer never reached the outbox (oldest first). */
  pendingPrompts(): PendingPrompt[] {
    const rows = this.db().prepare("SELECT id, source, text, received_at FROM gateway_inbox WHERE state = 'pending' ORDER BY id").all() as Array<{ id: number; source: string; text: string; received_at: number | null }>
    return rows.map((r) => ({ id: r.id, source: JSON.parse(r.source) as PendingPrompt['source'], text: r.text, ...(r.received_at === null ? {} : { receivedAt: r.received_at }) }))
  }

  // --- outbox

  /** Queues a reply and, in the same transaction, settles the prompt it answers. */
  enqueue(reply: { platform: string; chatId: string; threadId?: string; text: string; partsSent?: number }, settles?: number): OutboxRow {
    const db = this.db()
    const now = this.now()
    const insert = db.transaction(() => {
      const result = db
        .prepare("INSERT INTO gateway_outbox (platform, chat_id, thread_id, text, parts_sent, state, created_at, next_at) VALUES (?, ?, ?, ?, ?, 'queued', ?, ?)")
        .run(reply.platform, reply.chatId, reply.threadId ?? null, reply.text, reply.partsSent ?? 0, now, now)
      if (settles !== undefined) this.settle(settles)
      return Number(result.lastInsertRowid)
    })
    return { id: insert(), ...reply, partsSent: reply.partsSent ?? 0, attempts: 0, createdAt: now, nextAt: now }
  }

  queued(platform?: string): OutboxRow[] {
    const rows = (platform === undefined
      ? this.db().prepare("SELECT * FROM gateway_outbox WHERE state = 'queued' ORDER BY id").all()
      : this.db().prepare("SELECT * FROM gateway_outbox WHERE state = 'queued' AND platform = ? ORDER BY id").all(platform)) as Array<Record<string, any>>
    return rows.map((r) => ({
      id: r.id, platform: r.platform, chatId: r.chat_id, ...(r.thread_id ? { threadId: r.thread_id } : {}), text: r.text,
      partsSent: r.parts_sent, attempts: r.attempts, createdAt: r.created_at, nextAt: r.next_at, ...(r.last_error ? { lastError: r.last_error } : {}),
    }))
  }

  /** Counts per platform and state ('queued', 'failed'). */
  counts(): Array<{ platform: string; state: string; count: number }> {
    return this.db().prepare('SELECT platform, state, COUNT(*) AS count FROM gateway_outbox GROUP BY platform, state').all() as Array<{ platform: string; state: string; count: number }>
  }

  partSent(id: number, partsSent: number): void {
    this.db().prepare('UPDATE gateway_outbox SET parts_sent = ? WHERE id = ?').run(partsSent, id)
  }

  attempted(id: number, attempts: number, nextAt: number, error: string): void {
    this.db().prepare('UPDATE gateway_outbox SET attempts = ?, next_at = ?, last_error = ? WHERE id = ?').run(attempts, nextAt, error, id)
  }

  /** A sent row is deleted (the text is the session's, not the outbox's); a failed one is kept a week. */
  finish(id: number, state: 'sent' | 'failed', error?: string): void {
    if (state === 'sent') return void this.db().prepare('DELETE FROM gateway_outbox WHERE id = ?').run(id)
    this.db().prepare("UPDATE gateway_outbox SET state = 'failed', last_error = ? WHERE id = ?").run(error ?? null, id)
  }
}
