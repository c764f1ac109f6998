// The gateway's cron scheduler: sleeps until the next job is due (at most `poll_seconds`, so jobs
// added by `agent cron add` in another process are seen), claims due jobs with a lease (no
// overlapping runs of one job, across processes too), and runs them in the background.
// Missed runs: a job overdue by less than the grace period runs once now (several missed
// occurrences make one run); one overdue by more is recorded as missed and planned anew.

import { randomUUID } from 'node:crypto'
import { errorMessage, type Logger } from 'agent/sdk'
import { runJob, type RunnerContext } from './runner.ts'
import { nextRun } from './schedule.ts'
import type { CronJob } from './store.ts'

export interface SchedulerOptions extends RunnerContext {
  log: Logger
  pollMs: number
  graceMs: number
  /** Extra time a lease outlives the run timeout before another process may take the job. */
  leaseMarginMs?: number
}

export class Scheduler {
  private readonly options: SchedulerOptions
  private readonly owner = `${process.pid}-${randomUUID().slice(0, 8)}`
  private timer: NodeJS.Timeout | undefined
  private stopped = true
  private ticking = false
  private readonly running = new Map<string, Promise<unknown>>()

  constructor(options: SchedulerOptions) {
    this.options = options
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    const freed = this.options.store.releaseStale()
    if (freed) this.options.log.warn(`freed ${freed} cron job lease(s) left by a stopped agent`)
    this.wake()
  }

  /** Re-plans the next tick now (a job was added or changed in this process). */
  wake(): void {
    if (this.stopped) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), 0)
  }

  private plan(): void {
    if (this.stopped) return
    clearTimeout(this.timer)
    let delay = this.options.pollMs
    try {
      const next = this.options.store.nextDue()
      if (next !== undefined) delay = Math.max(0, Math.min(delay, next - Date.now()))
    } catch (error) {
      this.options.log.error(`cron: ${errorMessage(error)}`)
    }
    this.timer = setTimeout(() => void this.tick(), delay)
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.ticking) return
    this.ticking = true
    try {
      const now = Date.now()
      this.options.store.releaseStale(now)
      for (const job of this.options.store.due(now)) this.consider(job, now)
    } catch (error) {
      this.options.log.error(`cron tick failed: ${errorMessage(error)}`)
    } finally {
      this.ticking = false
      this.plan()
    }
  }

  private consider(job: CronJob, now: number): void {
    const { store, log, graceMs } = this.options
    const dueAt = job.nextRunAt!
    const following = nextRun({ kind: job.scheduleKind, text: job.schedule, timezone: job.timezone, intervalMs: job.intervalMs, runAt: job.runAt }, now, job.anchorAt ?? dueAt) ?? null
    const overdue = now - dueAt
    if (overdue > graceMs) {
      store.advance(job, following, 'missed', `missed (due ${new Date(dueAt).toISOString()}, ${Math.round(overdue / 60_000)} min ago, beyond the ${Math.round(graceMs / 60_000)} min grace)`, now)
      log.warn(`cron job ${job.id} (${job.name}) missed its run of ${new Date(dueAt).toISOString()}`)
      return
    }
    const leaseMs = this.options.timeoutMs + (this.options.leaseMarginMs ?? 60_000)
    if (!store.claim(job, this.owner, leaseMs, following, now, dueAt)) {
      // Still running (here or in another process): this occurrence is skipped, not queued.
      if (job.leaseUntil !== undefined && job.leaseUntil >= now) {
        store.advance(job, following, 'skipped', 'the previous run was still running', now)
        log.warn(`cron job ${job.id} (${job.name}): skipped a run, the previous one is still running`)
      }
      return
    }
    const trigger = overdue > Math.max(this.options.pollMs, 5_000) + 1_000 ? 'catch-up' : 'schedule'
    const run = runJob(this.options, job, trigger, dueAt)
      .then((outcome) => {
        if (outcome.status === 'error') log.warn(`cron job ${job.id} (${job.name}) failed: ${outcome.error}`)
        else log.info(`cron job ${job.id} (${job.name}): ${outcome.status}${outcome.deliveries.length ? ` → ${outcome.deliveries.map((d) => d.description ?? d.target).join(', ')}` : ''}`)
      })
      .catch((error) => log.error(`cron job ${job.id}: ${errorMessage(error)}`))
      .finally(() => {
        this.running.delete(job.id)
        this.plan()
      })
    this.running.set(job.id, run)
  }

  /** Stops planning; waits (bounded) for runs in progress, which the abort signal interrupts. */
  async stop(waitMs = 10_000): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    const pending = [...this.running.values()]
    if (pending.length === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([Promise.allSettled(pending), new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))])
    clearTimeout(timer)
  }
}
