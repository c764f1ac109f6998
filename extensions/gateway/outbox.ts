// The outbound queue: every message the gateway sends to a chat is written to the outbox before it
// is sent and marked sent after, so a reply that cannot go out (adapter reconnecting, logged out,
// rate limited, process killed) is sent when the adapter is back or the gateway restarts, once.
// Per platform one flush runs at a time, oldest first; a chat whose earlier reply waits holds its
// later ones back (order is kept). Bounded by age and attempts, then logged as failed with the chat
// and reason. A send cut off mid-way resumes at the first part not yet sent.

import { adapterParts, DeliveryDeferred, errorMessage, isRetryableDelivery, retryAfterOf, type GatewayAdapter, type Logger } from 'agent/sdk'
import type { ContinuityStore, OutboxRow, QueuedReply } from './continuity-store.ts'

export interface OutboxOptions {
  store: ContinuityStore
  adapter(name: string): GatewayAdapter | undefined
  /** false while the gateway knows the adapter is down (retrying); true when running or not managed here. */
  available(name: string): boolean
  log: Logger
  /** Log-safe text (secrets, phone numbers). */
  safe(text: string): string
  describe(platform: string, chatId: string): string
  maxAttempts: number
  maxAgeMs: number
  /** First retry delay (doubling to 5 min). */
  retryInitialMs?: number
  /** A send that has not settled after this long is taken as failed for now (retried; default 2 min). */
  sendTimeoutMs?: number
  /** Something was queued, sent or given up (the status file is rewritten). */
  changed?(): void
  now?: () => number
}

/** A reply to queue; `partsSent`: parts already sent (a delivery that failed part-way). */
export type Reply = QueuedReply

/** Retry delay after the n-th failed attempt: `initialMs` (2 s) doubling to 5 min. */
export const retryDelay = (attempts: number, initialMs = 2000) => Math.min(initialMs * 2 ** Math.max(0, attempts - 1), 300_000)

export class Outbox {
  private readonly chains = new Map<string, Promise<void>>()
  private readonly failures = new Map<string, number>()
  private timer: NodeJS.Timeout | undefined
  private closed = false
  private readonly now: () => number

  constructor(private readonly options: OutboxOptions) {
    this.now = options.now ?? Date.now
  }

  /**
   * Queues a reply (settling the inbox row it answers in the same commit) and sends what is due.
   * Rejects only when the reply cannot be queued (the database is unreachable); never for a send.
   */
  async deliver(reply: Reply, settles?: number): Promise<void> {
    if (!(await this.options.store.enqueue(reply, settles))) {
      this.options.log.info(`a reply on ${reply.platform} was not queued: its prompt was answered already (by the instance that took the chat over)`)
      return
    }
    await this.flush(reply.platform)
  }

  /** Sends the queued replies of a platform; `force` ignores retry times (the adapter just connected). */
  flush(platform: string, force = false): Promise<void> {
    const run = (this.chains.get(platform) ?? Promise.resolve()).then(() => this.options.store.draining(platform, () => this.drain(platform, force)))
    const chained = run.catch((error) => this.options.log.error(`outbox of ${platform}: ${this.options.safe(errorMessage(error))}`))
    this.chains.set(platform, chained)
    void chained.then(() => {
      if (this.chains.get(platform) === chained) this.chains.delete(platform)
    })
    return chained
  }

  /** Replies given up per platform since the gateway started. */
  failed(platform: string): number {
    return this.failures.get(platform) ?? 0
  }

  /** Resolves when the flushes running now are done, or after `ms`. */
  async settle(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.all([...this.chains.values()]), new Promise((resolve) => (timer = setTimeout(resolve, ms)))])
    clearTimeout(timer)
  }

  close(): void {
    this.closed = true
    clearTimeout(this.timer)
  }

  private async drain(platform: string, force: boolean): Promise<void> {
    if (this.closed) return
    const waiting = new Set<string>()
    for (const row of await this.options.store.queued(platform)) {
      const chat = `${row.chatId}\n${row.threadId ?? ''}`
      if (await this.expired(row)) continue
      if (waiting.has(chat) || !this.options.available(platform) || (!force && row.nextAt > this.now())) {
        waiting.add(chat)
        continue
      }
      if (!(await this.attempt(row))) waiting.add(chat)
      if (this.closed) return
    }
    await this.schedule()
    this.options.changed?.()
  }

  private async expired(row: OutboxRow): Promise<boolean> {
    if (this.now() - row.createdAt <= this.options.maxAgeMs) return false
    await this.give(row, `older than ${Math.round(this.options.maxAgeMs / 60_000)} minutes${row.lastError ? ` (last error: ${row.lastError})` : ''}`)
    return true
  }

  private async give(row: OutboxRow, reason: string): Promise<void> {
    await this.options.store.finish(row.id, 'failed', reason)
    this.failures.set(row.platform, this.failed(row.platform) + 1)
    this.options.log.error(`gave up a reply to ${this.options.describe(row.platform, row.chatId)} after ${row.attempts} attempt(s): ${reason}`)
  }

  /** One send of a row from its first unsent part: true when it is sent (or settled for good). */
  private async attempt(row: OutboxRow): Promise<boolean> {
    const adapter = this.options.adapter(row.platform)
    if (!adapter?.send) {
      await this.give(row, adapter ? `the "${row.platform}" adapter cannot send messages` : `no "${row.platform}" adapter is loaded`)
      return true
    }
    const parts = adapterParts(adapter, row.text)
    try {
      for (let i = row.partsSent; i < parts.length; i++) {
        await this.bounded(adapter.send(row.chatId, parts[i]!, { ...(row.threadId ? { threadId: row.threadId } : {}), idempotencyKey: `${row.id}-${row.createdAt}.${i}` }))
        await this.options.store.partSent(row.id, i + 1)
        row.partsSent = i + 1
      }
      await this.options.store.finish(row.id, 'sent')
      if (row.attempts > 0) this.options.log.info(`delivered a queued reply to ${this.options.describe(row.platform, row.chatId)} (attempt ${row.attempts + 1})`)
      return true
    } catch (error) {
      const attempts = row.attempts + 1
      const reason = this.options.safe(errorMessage(error))
      if (!isRetryableDelivery(error) && this.options.available(row.platform)) {
        await this.give({ ...row, attempts }, reason)
        return true
      }
      if (attempts >= this.options.maxAttempts) {
        await this.give({ ...row, attempts }, reason)
        return true
      }
      const delay = retryAfterOf(error) ?? retryDelay(attempts, this.options.retryInitialMs)
      await this.options.store.attempted(row.id, attempts, this.now() + delay, reason)
      this.options.log.warn(`reply to ${this.options.describe(row.platform, row.chatId)} queued (attempt ${attempts} of ${this.options.maxAttempts}): ${reason}; retried when the adapter is back or in ${Math.ceil(delay / 1000)} s`)
      return false
    }
  }

  /** A send that never settles must not hold every later reply of its platform forever. */
  private async bounded(send: Promise<void>): Promise<void> {
    const ms = this.options.sendTimeoutMs ?? 120_000
    // Settling after the timeout is not an unhandled rejection.
    send.catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([send, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new DeliveryDeferred(`the send did not finish within ${Math.round(ms / 1000)} s`)), ms)))])
    } finally {
      clearTimeout(timer)
    }
  }

  /** One timer for the next row due (a retry time, or the age bound of a row waiting for its adapter). */
  private async schedule(): Promise<void> {
    const rows = await this.options.store.queued()
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.closed) return
    let next = Infinity
    for (const row of rows) {
      next = Math.min(next, row.createdAt + this.options.maxAgeMs + 1)
      if (this.options.available(row.platform)) next = Math.min(next, row.nextAt)
    }
    if (next === Infinity) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.options.store
        .queued()
        .then((queued) => {
          for (const platform of new Set(queued.map((r) => r.platform))) void this.flush(platform)
        })
        .catch((error) => this.options.log.error(`outbox: ${this.options.safe(errorMessage(error))}`))
    }, Math.max(10, next - this.now()))
    this.timer.unref?.()
  }
}
