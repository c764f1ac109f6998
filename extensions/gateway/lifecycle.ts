// Adapter lifecycle: start every enabled adapter, retry failed starts and lost connections with
// exponential backoff (doubling from `initialMs` up to `maxMs`), stop them in reverse order. A
// ConfigError from start() is fatal (bad configuration is not retried; `gateway run` exits 2).
// A long-lived adapter runs only while this instance holds its lease (adapter-lease.ts); without
// it, it waits on `standby`. Adapters that are only HTTP intake (`everyInstance`) run everywhere.

import { AgentError, ConfigError, errorMessage, type AdapterContext, type AdapterStatus, type GatewayAdapter, type LeaseService, type Logger, type Services, type Settings } from 'agent/sdk'
import { AdapterLease, leaseTimings, type LeaseTimings } from './adapter-lease.ts'

export interface BackoffOptions {
  initialMs: number
  maxMs: number
}

export function backoffDelay(attempt: number, options: BackoffOptions): number {
  return Math.min(options.initialMs * 2 ** Math.max(0, attempt - 1), options.maxMs)
}

interface Slot {
  adapter: GatewayAdapter
  status: AdapterStatus
  controller?: AbortController
  timer?: NodeJS.Timeout
  lease?: AdapterLease
}

export interface LifecycleOptions {
  list(): GatewayAdapter[]
  settings: Settings
  services: Services
  log: Logger
  /** A logger for one adapter (prefixed, phone numbers redacted). */
  adapterLog(name: string): Logger
  backoff: BackoffOptions
  onChange?(statuses: AdapterStatus[]): void
  /** An adapter started (first start, reconnect, re-login): the outbox sends what waited for it. */
  onStarted?(name: string): void
  /** Leases of long-lived adapters (one instance each); undefined: every adapter runs here. */
  leases?(): LeaseService
  /** Default: leaseTimings() (8 s). */
  leaseTimings?: LeaseTimings
  /** This instance took an adapter's lease after another held it: awaited before the adapter starts. */
  onTakenOver?(name: string): Promise<unknown> | void
  /** The lease of a running adapter was renewed (what other instances queued for it can go out). */
  onRenewed?(name: string): void
}

export class AdapterLifecycle {
  private readonly slots = new Map<string, Slot>()
  private stopped = false

  constructor(private readonly options: LifecycleOptions) {}

  status(): AdapterStatus[] {
    return [...this.slots.values()].map((s) => ({ ...s.status }))
  }

  /** Whether this process runs the adapter (`gateway run` started it, whatever its state now). */
  manages(name: string): boolean {
    return this.slots.has(name)
  }

  /** false while the adapter is managed here and not running (starting, retrying, failed, stopped). */
  available(name: string): boolean {
    const slot = this.slots.get(name)
    return !slot || slot.status.state === 'running'
  }

  /** Adapters whose lease this instance holds (not the ones running everywhere). */
  leasedHere(): string[] {
    return [...this.slots.values()].filter((s) => s.lease?.held).map((s) => s.adapter.name)
  }

  running(): string[] {
    return this.inState('running')
  }

  inState(state: AdapterStatus['state']): string[] {
    return [...this.slots.values()].filter((s) => s.status.state === state).map((s) => s.adapter.name)
  }

  /**
   * Starts every enabled adapter once; returns the fatal (configuration) failures. `beforeStart` runs
   * once every enabled adapter is known (state `starting`, so nothing is sent through one yet) and
   * its lease taken or found held elsewhere (`leasedHere`), before the first starts (which may hand
   * over a backlog).
   */
  async startAll(beforeStart?: () => unknown): Promise<Array<{ name: string; error: unknown }>> {
    this.stopped = false
    const fatal: Array<{ name: string; error: unknown }> = []
    const starting: Slot[] = []
    for (const adapter of this.options.list()) {
      if (this.slots.has(adapter.name)) continue
      let enabled = false
      try {
        enabled = adapter.enabled(this.options.settings)
      } catch (error) {
        fatal.push({ name: adapter.name, error })
        continue
      }
      if (!enabled) continue
      const slot: Slot = { adapter, status: { name: adapter.name, state: 'starting', attempts: 0 } }
      this.slots.set(adapter.name, slot)
      starting.push(slot)
    }
    const leased = new Set<Slot>()
    for (const slot of starting) if (await this.leased(slot)) leased.add(slot)
    await beforeStart?.()
    for (const slot of starting) {
      if (!leased.has(slot)) continue
      const error = await this.attempt(slot)
      if (error && isFatal(error)) fatal.push({ name: slot.adapter.name, error })
    }
    this.changed()
    return fatal
  }

  /** Takes the adapter's lease when it needs one; false: another instance has it (now on standby). */
  private async leased(slot: Slot): Promise<boolean> {
    const leases = slot.adapter.everyInstance ? undefined : this.options.leases?.()
    if (!leases) return true
    const name = slot.adapter.name
    const lease = new AdapterLease({
      leases,
      adapter: name,
      timings: this.options.leaseTimings ?? leaseTimings(),
      log: this.options.log,
      gained: () => {
        if (this.stopped || slot.lease !== lease) return
        this.options.log.info(`adapter "${name}": took over its lease; starting`)
        slot.status = { name, state: 'starting', attempts: 0 }
        void Promise.resolve()
          .then(() => this.options.onTakenOver?.(name))
          .catch((error) => this.options.log.error(`adapter "${name}": ${errorMessage(error)}`))
          .then(() => this.attempt(slot))
      },
      renewed: () => {
        if (slot.status.state === 'running') this.options.onRenewed?.(name)
      },
      lost: (reason) => this.leaseLost(slot, reason),
      waiting: (holder) => {
        if (this.stopped || slot.status.state !== 'standby' || slot.status.heldBy === holder) return
        const { heldBy: _, ...rest } = slot.status
        slot.status = holder ? { ...rest, heldBy: holder } : rest
        this.changed()
      },
    })
    slot.lease = lease
    if (await lease.take()) return true
    slot.status = { name, state: 'standby', attempts: 0 }
    this.options.log.info(`adapter "${name}" on standby: another instance holds its lease`)
    void lease.standby()
    return false
  }

  /** Another instance has the adapter now (or the renewal failed): stop it here at once. */
  private leaseLost(slot: Slot, reason: string): void {
    if (this.stopped) return
    const name = slot.adapter.name
    const wasRunning = slot.status.state === 'running'
    clearTimeout(slot.timer)
    slot.timer = undefined
    slot.controller?.abort()
    slot.status = { name, state: 'standby', attempts: 0, lastError: `lost its lease: ${reason}` }
    this.options.log.warn(`adapter "${name}" lost its lease (${reason}); stopped, on standby`)
    this.changed()
    if (wasRunning) void slot.adapter.stop().catch((error) => this.options.log.warn(`adapter "${name}" failed to stop: ${errorMessage(error)}`))
  }

  /** One start attempt; schedules the next one on a retryable failure. Returns the error, if any. */
  private async attempt(slot: Slot): Promise<unknown> {
    if (this.stopped || (slot.lease && !slot.lease.held)) return undefined
    slot.status.attempts++
    slot.controller = new AbortController()
    const ctx: AdapterContext = {
      signal: slot.controller.signal,
      log: this.options.adapterLog(slot.adapter.name),
      settings: this.options.settings,
      services: this.options.services,
    }
    try {
      await slot.adapter.start(ctx)
      if (this.stopped || (slot.lease && !slot.lease.held)) {
        // The lease was lost (or the gateway stopped) while it started: it must not run here.
        await slot.adapter.stop().catch(() => undefined)
        return undefined
      }
      slot.status = { name: slot.adapter.name, state: 'running', attempts: 0 }
      this.options.log.info(`adapter "${slot.adapter.name}" started`)
      this.changed()
      this.options.onStarted?.(slot.adapter.name)
      return undefined
    } catch (error) {
      slot.controller.abort()
      slot.status.lastError = errorMessage(error)
      if (isFatal(error)) {
        slot.status.state = 'failed'
        this.options.log.error(`adapter "${slot.adapter.name}" cannot start: ${errorMessage(error)}`)
        // Another instance may be configured right: it gets the adapter.
        void slot.lease?.release()
      } else {
        this.retry(slot, error)
      }
      this.changed()
      return error
    }
  }

  private retry(slot: Slot, error: unknown): void {
    if (this.stopped || (slot.lease && !slot.lease.held)) return
    const delay = backoffDelay(slot.status.attempts, this.options.backoff)
    slot.status.state = 'retrying'
    slot.status.lastError = errorMessage(error)
    slot.status.nextAttemptAt = Date.now() + delay
    this.options.log.warn(`adapter "${slot.adapter.name}" is down (${errorMessage(error)}); retrying in ${Math.round(delay / 1000)} s`)
    clearTimeout(slot.timer)
    slot.timer = setTimeout(() => {
      slot.timer = undefined
      void this.attempt(slot)
    }, delay)
    slot.timer.unref?.()
  }

  /** An adapter reports a lost connection: stop what is left of it and reconnect with backoff. */
  connectionLost(name: string, error: unknown): void {
    const slot = this.slots.get(name)
    if (!slot || this.stopped || slot.status.state !== 'running') return
    slot.controller?.abort()
    slot.status.attempts = 1
    // Down from now on: the outbox queues instead of sending through an adapter being stopped.
    slot.status.state = 'retrying'
    void Promise.resolve()
      .then(() => slot.adapter.stop())
      .catch(() => undefined)
      .then(() => {
        this.retry(slot, error)
        this.changed()
      })
      .catch((failure) => this.options.log.error(`adapter "${name}": reconnect not scheduled: ${errorMessage(failure)}`))
  }

  /** Lets every running adapter finish its work under way (GatewayAdapter.drain), for at most `timeoutMs`. */
  async drainAll(timeoutMs: number): Promise<void> {
    const draining = [...this.slots.values()].filter((s) => s.status.state === 'running' && s.adapter.drain)
    if (draining.length === 0 || timeoutMs <= 0) return
    let timer: NodeJS.Timeout | undefined
    const waits = draining.map((s) => s.adapter.drain!().catch((error) => this.options.log.warn(`adapter "${s.adapter.name}" failed to drain: ${errorMessage(error)}`)))
    const expired = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), timeoutMs)))
    const late = await Promise.race([Promise.all(waits).then(() => false), expired])
    clearTimeout(timer)
    if (late) this.options.log.warn(`drain: work still under way after ${Math.round(timeoutMs / 1000)} s is interrupted`)
  }

  async stopAll(): Promise<void> {
    this.stopped = true
    for (const slot of this.slots.values()) slot.lease?.close()
    for (const slot of [...this.slots.values()].reverse()) {
      clearTimeout(slot.timer)
      slot.controller?.abort()
      if (slot.status.state === 'running') {
        try {
          await slot.adapter.stop()
        } catch (error) {
          this.options.log.warn(`adapter "${slot.adapter.name}" failed to stop: ${errorMessage(error)}`)
        }
      }
      slot.status = { ...slot.status, state: 'stopped' }
      // Released once stopped, so the instance taking it over never polls beside this one.
      await slot.lease?.release()
    }
    this.changed()
    this.slots.clear()
  }

  private changed(): void {
    this.options.onChange?.(this.status())
  }
}

function isFatal(error: unknown): boolean {
  return error instanceof ConfigError || (AgentError.isInstance(error) && error.code === 'E_CONFIG')
}
