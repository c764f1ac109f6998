// Per-entity cooldown: the first change of an entity is reported at once; changes inside the window
// that follows are folded into one report sent when the window ends, from the last reported state to
// the latest one (so the agent always ends up knowing the current state). A burst that returns to
// the reported state sends nothing. A flapping sensor therefore costs at most one run per window.

import type { EntityState } from './events.ts'

export interface Report {
  entityId: string
  /** The state last reported for this entity (or the event's old state). */
  from: string
  to: EntityState
  /** Changes folded into this report. */
  changes: number
}

interface Entry {
  lastAt: number
  reported: string
  pending?: { latest: EntityState; count: number }
  timer?: NodeJS.Timeout
}

export class CooldownGate {
  private readonly entries = new Map<string, Entry>()

  constructor(
    private readonly windowMs: number,
    private readonly report: (report: Report) => void,
    private readonly onSettled: (entityId: string, changes: number) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Offers a real change; 'reported' when it went out now, 'folded' when it waits for the window's end. */
  offer(entityId: string, from: EntityState, to: EntityState): 'reported' | 'folded' {
    const now = this.now()
    const entry = this.entries.get(entityId)
    if (this.windowMs <= 0 || !entry || now - entry.lastAt >= this.windowMs) {
      // A new window. A fold still waiting (its timer not run yet) joins this report.
      const folded = entry?.pending
      if (entry) clearTimeout(entry.timer)
      const start = folded ? entry!.reported : from.state
      const changes = folded ? folded.count + 1 : 1
      if (start === to.state) {
        this.entries.set(entityId, { lastAt: entry!.lastAt, reported: start })
        this.onSettled(entityId, changes)
        return 'folded'
      }
      if (this.windowMs > 0) this.entries.set(entityId, { lastAt: now, reported: to.state })
      this.report({ entityId, from: start, to, changes })
      return 'reported'
    }
    entry.pending = { latest: to, count: (entry.pending?.count ?? 0) + 1 }
    if (!entry.timer) {
      entry.timer = setTimeout(() => this.flush(entityId), Math.max(0, entry.lastAt + this.windowMs - now))
      entry.timer.unref?.()
    }
    return 'folded'
  }

  /** Entities inside a window now (for tests and status). */
  get size(): number {
    return this.entries.size
  }

  /** Drops every window and pending fold (the adapter stopped). */
  clear(): void {
    for (const entry of this.entries.values()) clearTimeout(entry.timer)
    this.entries.clear()
  }

  private flush(entityId: string): void {
    const entry = this.entries.get(entityId)
    if (!entry) return
    entry.timer = undefined
    const pending = entry.pending
    entry.pending = undefined
    if (!pending) return
    if (pending.latest.state === entry.reported) return this.onSettled(entityId, pending.count)
    const from = entry.reported
    entry.lastAt = this.now()
    entry.reported = pending.latest.state
    this.report({ entityId, from, to: pending.latest, changes: pending.count })
  }
}
