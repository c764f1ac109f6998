// Group commit: writes queued in the same turn of the event loop share one IMMEDIATE transaction.
// A commit (and the FTS segment flush that comes with it) costs far more than the statements it
// carries, so concurrent runs each writing a message pay for one commit between them, not one each.
// Every write runs in its own savepoint: one that throws is rolled back alone and only its caller
// sees the error. A promise resolves only after the commit that holds its write, so what a caller
// was told is written survives a killed process exactly as a transaction of its own would.

import type BetterSqlite3 from 'better-sqlite3'
import type { SqliteDatabase } from 'agent/sdk'

type Statement = BetterSqlite3.Statement<[], unknown>

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
  readonly #controls = new WeakMap<SqliteDatabase, Control>()

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

  /** The transaction statements, prepared once per handle (better-sqlite3's db.transaction() builds five wrappers per call). */
  private control(db: SqliteDatabase): Control {
    let control = this.#controls.get(db)
    if (!control) {
      const prepare = (sql: string) => db.prepare<[]>(sql)
      control = { begin: prepare('BEGIN IMMEDIATE'), commit: prepare('COMMIT'), rollback: prepare('ROLLBACK'), savepoint: prepare('SAVEPOINT group_write'), release: prepare('RELEASE group_write'), rollbackTo: prepare('ROLLBACK TO group_write') }
      this.#controls.set(db, control)
    }
    return control
  }

  private commit(batch: readonly Pending[]): Outcome[] {
    const db = this.open()
    const control = this.control(db)
    // Alone, a write needs no savepoint: its failure rolls the transaction back.
    const alone = batch.length === 1
    const outcomes: Outcome[] = []
    control.begin.run()
    try {
      for (const pending of batch) {
        if (!alone) control.savepoint.run()
        try {
          const value = pending.write(db)
          if (value && typeof (value as PromiseLike<unknown>).then === 'function') throw new TypeError('a state.db write must be synchronous (it returned a promise)')
          if (!alone) control.release.run()
          outcomes.push({ ok: true, value })
        } catch (error) {
          // SQLite rolls the whole transaction back on some errors (SQLITE_BUSY, SQLITE_FULL, …):
          // then nothing before this write holds either, and the batch fails as one.
          if (!db.inTransaction) throw error
          if (alone) {
            control.rollback.run()
            return [{ ok: false, error }]
          }
          control.rollbackTo.run()
          control.release.run()
          outcomes.push({ ok: false, error })
        }
      }
      control.commit.run()
    } catch (error) {
      if (db.inTransaction) control.rollback.run()
      throw error
    }
    return outcomes
  }
}

interface Control {
  begin: Statement
  commit: Statement
  rollback: Statement
  savepoint: Statement
  release: Statement
  rollbackTo: Statement
}
