// Group commit: writes queued in the same turn of the event loop share one IMMEDIATE transaction.
// A commit (and the FTS segment flush that comes with it) costs far more than the statements it
// carries, so concurrent runs each writing a message pay for one commit between them, not one each.
// Every write runs in its own savepoint: one that throws is rolled back alone and only its caller
// sees the error. A promise resolves only after the commit that holds its write, so what a caller
// was told is written survives a killed process exactly as a transaction of its own would.

import type { SqliteDatabase } from 'agent/sdk'

interface Pending {
  write: (db: SqliteDatabase) => unknown
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

export class GroupCommit {
  #queue: Pending[] = []
  #scheduled = false
  #flushing = false

  /** `open` hands out the raw handle (it must not flush: flush() calls it). */
  constructor(private readonly open: () => SqliteDatabase) {}

  get pending(): number {
    return this.#queue.length
  }

  /** Queues `write` (synchronous, as better-sqlite3 transactions are) for the next group commit. */
  write<T>(write: (db: SqliteDatabase) => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ write, resolve: resolve as (value: unknown) => void, reject })
      if (!this.#scheduled) {
        this.#scheduled = true
        // setImmediate, not a microtask: writes from every request parsed in this I/O phase join in.
        setImmediate(() => {
          this.#scheduled = false
          this.flush()
        })
      }
    })
  }

  /**
   * Commits every queued write now. Called before a read so that it sees every write already
   * requested (read-your-writes), and before the handle closes. A no-op inside a flush: a write
   * that reads goes through the same transaction.
   */
  flush(): void {
    if (this.#flushing || this.#queue.length === 0) return
    const batch = this.#queue
    this.#queue = []
    this.#flushing = true
    let outcomes: Outcome[]
    try {
      outcomes = this.commit(batch)
    } catch (error) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full): nothing of the batch was written.
      for (const pending of batch) pending.reject(error)
      return
    } finally {
      this.#flushing = false
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) pending.resolve(outcome.value)
      else pending.reject(outcome.error)
    })
  }

  private commit(batch: readonly Pending[]): Outcome[] {
    const db = this.open()
    if (batch.length === 1) {
      // Alone: its own transaction, no savepoint needed.
      const only = batch[0]!
      try {
        return [{ ok: true, value: db.transaction(only.write).immediate(db) }]
      } catch (error) {
        return [{ ok: false, error }]
      }
    }
    const outcomes: Outcome[] = []
    db.transaction(() => {
      for (const pending of batch) {
        try {
          // Nested in the open transaction, better-sqlite3 runs it in a savepoint.
          outcomes.push({ ok: true, value: db.transaction(pending.write)(db) })
        } catch (error) {
          outcomes.push({ ok: false, error })
          // SQLite rolls the whole transaction back on some errors (SQLITE_BUSY, SQLITE_FULL, …):
          // then nothing before this write holds either, and the batch fails as one.
          if (!db.inTransaction) throw error
        }
      }
    }).immediate()
    return outcomes
  }
}
