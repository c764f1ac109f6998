// The lease that lets a long-lived adapter (a long poll, a websocket) run on one gateway instance at
// a time: `adapter:<name>` in the database (StorageService.leases), renewed every ttl/3 while held.
// A failed or lost renewal hands control back at once (the adapter is stopped); while another
// instance holds it, it is tried again when that holder's lease is due to expire (at most every
// ttl/4), so a killed holder's adapter is taken over within ttl plus one retry.

import { errorMessage, type LeaseService, type Logger } from 'agent/sdk'

export interface LeaseTimings {
  ttlMs: number
  renewMs: number
  retryMs: number
}

/** The shortest lease (seconds): a renewal must fit in a third of it with room to spare. */
export const MIN_LEASE_SECONDS = 3

/** gateway.lease_seconds (default 8): renewed every third, retried every quarter. */
export function leaseTimings(seconds = 8): LeaseTimings {
  const ttlMs = Math.max(MIN_LEASE_SECONDS, seconds) * 1000
  return { ttlMs, renewMs: Math.floor(ttlMs / 3), retryMs: Math.floor(ttlMs / 4) }
}

export interface AdapterLeaseOptions {
  leases: LeaseService
  adapter: string
  timings: LeaseTimings
  log: Logger
  /** Taken after waiting on standby: start the adapter. */
  gained(): void
  /** A renewal failed or another instance has it now: stop the adapter. */
  lost(reason: string): void
  /** Who holds it while this instance waits (shown in the status). */
  waiting(holder: string | undefined): void
  /** Renewed: still ours. */
  renewed?(): void
}

export class AdapterLease {
  readonly key: string
  private timer: NodeJS.Timeout | undefined
  private closed = false
  held = false

  constructor(private readonly options: AdapterLeaseOptions) {
    this.key = `adapter:${options.adapter}`
  }

  /** One attempt to take (or renew) it; renewals are scheduled while it is held. */
  async take(): Promise<boolean> {
    let taken = false
    try {
      taken = await this.options.leases.acquire(this.key, this.options.timings.ttlMs)
    } catch (error) {
      this.options.log.warn(`cannot take the lease ${this.key}: ${errorMessage(error)}`)
    }
    if (this.closed) return false
    this.held = taken
    if (taken) this.later(this.options.timings.renewMs, () => this.renew())
    return taken
  }

  /** Waits on standby: tries again until it is taken, then calls `gained`. */
  async standby(): Promise<void> {
    if (this.closed) return
    let holder: { holder: string; expiresAt: number } | undefined
    // Unknown (the database does not answer): the next try after the usual interval.
    let untilExpiry = this.options.timings.retryMs
    try {
      holder = await this.options.leases.holderOf(this.key)
      // Just after the holder's expiry when that comes first (a killed holder is replaced sooner);
      // free already: at once.
      untilExpiry = holder ? holder.expiresAt - Date.now() + 50 : 0
    } catch {
      // The next attempt logs why.
    }
    if (this.closed) return
    this.options.waiting(holder?.holder)
    this.later(Math.max(100, Math.min(this.options.timings.retryMs, untilExpiry)), async () => {
      if (await this.take()) this.options.gained()
      else await this.standby()
    })
  }

  private async renew(): Promise<void> {
    let reason = ''
    try {
      if (await this.options.leases.acquire(this.key, this.options.timings.ttlMs)) {
        if (this.closed) return
        this.later(this.options.timings.renewMs, () => this.renew())
        this.options.renewed?.()
        return
      }
      reason = 'another instance holds it now'
    } catch (error) {
      reason = `the renewal failed: ${errorMessage(error)}`
    }
    if (this.closed) return
    this.held = false
    this.options.lost(reason)
    await this.standby()
  }

  private later(ms: number, fn: () => Promise<void>): void {
    clearTimeout(this.timer)
    if (this.closed) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      fn().catch((error) => this.options.log.error(`lease ${this.key}: ${errorMessage(error)}`))
    }, ms)
    this.timer.unref?.()
  }

  /** Stops renewing and waiting (the adapter is being stopped). */
  close(): void {
    this.closed = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  /** Gives it up so another instance takes over at once (graceful stop, after the adapter stopped). */
  async release(): Promise<void> {
    this.close()
    if (!this.held) return
    this.held = false
    await this.options.leases.release(this.key).catch((error) => this.options.log.warn(`cannot release the lease ${this.key}: ${errorMessage(error)}`))
  }
}
