// Where the signal adapter continues after a restart, and what it does with what it missed. The
// gateway's resume point keeps the last event id handled and that envelope's timestamp; the first
// connection sends the id as Last-Event-ID, and the daemon replays the events after it (all it kept,
// when it no longer knows the id). Replayed messages stamped before the adapter started are the
// backlog: collected, then handed to the gateway's catchUp in one batch (its bound applies); the
// cursor moves past them only once they are handed over.

import type { GatewayInbound, GatewayService, Logger, ResumePoint } from 'agent/sdk'
import { PLATFORM } from './settings.ts'

export interface Cursor {
  event?: string
  /** The envelope timestamp (ms) of that event, when it carried one. */
  ts?: number
}

export function readCursor(text: string | undefined): Cursor {
  if (!text) return {}
  try {
    const value = JSON.parse(text) as Cursor
    return { ...(typeof value.event === 'string' && value.event ? { event: value.event } : {}), ...(typeof value.ts === 'number' ? { ts: value.ts } : {}) }
  } catch {
    return {}
  }
}

/** How long the backlog waits for more replayed messages before it is handed over. */
const SETTLE_MS = 250

export class Catchup {
  private readonly backlog: GatewayInbound[] = []
  private pending: Cursor | undefined
  private timer: NodeJS.Timeout | undefined
  private flushing: Promise<void> = Promise.resolve()
  /** True from a start with a saved cursor until the first backlog is handed over. */
  private replaying: boolean

  /** The saved cursor, read once at the start (it may come from another instance that ran the adapter). */
  static async open(resume: ResumePoint, gateway: GatewayService, log: Logger, startedAt: number): Promise<Catchup> {
    return new Catchup(resume, gateway, log, startedAt, readCursor(await resume.get()))
  }

  private constructor(
    private readonly resume: ResumePoint,
    private readonly gateway: GatewayService,
    private readonly log: Logger,
    private readonly startedAt: number,
    private saved: Cursor,
  ) {
    this.replaying = Boolean(saved.event)
  }

  /** The event id to resume after, if any. */
  lastEventId(): string | undefined {
    return this.saved.event
  }

  /**
   * Whether this message belongs to the backlog (replayed after a restart, stamped before the start).
   * The first live message ends the replay: later ones are live whatever a sender's clock says.
   */
  isBacklog(message: GatewayInbound): boolean {
    if (this.replaying && (message.receivedAt ?? this.startedAt) < this.startedAt) return true
    this.replaying = false
    return false
  }

  add(message: GatewayInbound, cursor: Cursor): void {
    this.backlog.push(message)
    this.pending = cursor
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.flush(), SETTLE_MS)
    this.timer.unref()
  }

  /** Hands the backlog over (if any); resolves once it is dispatched and the cursor moved past it. */
  flush(): Promise<void> {
    clearTimeout(this.timer)
    this.flushing = this.flushing.then(async () => {
      if (this.backlog.length === 0) return
      const batch = this.backlog.splice(0)
      const cursor = this.pending
      this.pending = undefined
      this.replaying = false
      const result = await this.gateway.catchUp(PLATFORM, batch)
      this.log.info(`caught up with ${batch.length} Signal message(s) from while the gateway was away: ${result.dispatched} answered, ${result.summarised} summarised, ${result.duplicates} already seen`)
      if (cursor) this.save(cursor)
    })
    return this.flushing
  }

  /** Moves the cursor past an event handled now (held back while a backlog waits). */
  advance(cursor: Cursor): void {
    if (this.backlog.length > 0) this.pending = cursor
    else this.save(cursor)
  }

  private save(cursor: Cursor): void {
    if (!cursor.event) return
    this.saved = cursor
    // Saved in the order asked (one commit queue): the last cursor asked is the one kept.
    this.resume.set(JSON.stringify(cursor)).catch((error) => this.log.warn(`cannot save the Signal resume point: ${(error as Error).message}`))
  }

  dispose(): void {
    clearTimeout(this.timer)
  }
}
