// Group commit on PostgreSQL, as the SQLite backend has it: writes queued in one turn of the event
// loop share one transaction (one commit, one WAL flush), each in its own savepoint so one that
// fails is rolled back alone and only its caller sees the error. Batches run one after another on
// one client; a promise resolves only after the COMMIT that holds its write.

import type { PgQuery } from 'agent/sdk'

interface Pending {
  fn: (client: PgQuery) => Promise<unknown>
  resolve: (value: unknown) => void
  reject: (error: unknown) => void
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

export class PgGroupCommit {
  #queue: Pending[] = []
  #scheduled = false
  #running: Promise<void> | undefined

  constructor(private readonly transaction: <T>(fn: (client: PgQuery) => Promise<T>) => Promise<T>) {}

  get pending(): number {
    return this.#queue.length
  }

  write<T>(fn: (client: PgQuery) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve: resolve as (value: unknown) => void, reject })
      this.#schedule()
    })
  }

  /** Resolves when everything queued so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.#running || this.#queue.length > 0) {
      if (!this.#running) this.#flushSoon()
      await this.#running
    }
  }

  #schedule(): void {
    if (this.#scheduled || this.#running) return
    this.#scheduled = true
    setImmediate(() => this.#flushSoon())
  }

  #flushSoon(): void {
    this.#scheduled = false
    if (this.#running || this.#queue.length === 0) return
    const batch = this.#queue
    this.#queue = []
    this.#running = this.#commit(batch).finally(() => {
      this.#running = undefined
      if (this.#queue.length > 0) this.#schedule()
    })
  }

  async #commit(batch: Pending[]): Promise<void> {
    if (batch.length === 1) {
      // Alone in its batch, a write needs no savepoint: its transaction is its own, and the two
      // round trips of SAVEPOINT/RELEASE are most of the cost of a small write on a quiet server.
      const [item] = batch as [Pending]
      await this.transaction(item.fn).then(item.resolve, item.reject)
      return
    }
    let outcomes: Outcome[]
    try {
      outcomes = await this.transaction(async (client) => {
        const results: Outcome[] = []
        for (const item of batch) {
          await client.query('SAVEPOINT agent_write')
          try {
            results.push({ ok: true, value: await item.fn(client) })
            await client.query('RELEASE SAVEPOINT agent_write')
          } catch (error) {
            results.push({ ok: false, error })
            await client.query('ROLLBACK TO SAVEPOINT agent_write')
          }
        }
        return results
      })
    } catch (error) {
      // The commit itself failed (connection lost, serialisation): nothing of the batch is written.
      for (const item of batch) item.reject(error)
      return
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!
      if (outcome.ok) item.resolve(outcome.value)
      else item.reject(outcome.error)
    })
  }
}
