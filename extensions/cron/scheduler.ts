// The gateway's cron scheduler: sleeps until the next job is due (at most `poll_seconds`, so jobs
// added by `agent cron add` in another process are seen), claims due jobs with a lease (no
// overlapping runs of one job, across processes too), and runs them in the background. Several
// gateways on one PostgreSQL database tick independently: the claim lets exactly one of them run
// each occurrence, and the others see it planned on.
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
  private ticking: Promise<void> | undefined
  /** A wake came while a tick was running: tick again when it ends. */
  private again = false
  /** Bumped by every plan and wake: a plan that finishes after a later one (or a wake) is dropped. */
  private generation = 0
  private readonly running = new Map<string, Promise<unknown>>()

  constructor(options: SchedulerOptions) {
    this.options = options
  }

  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.wake()
  }

  /** Re-plans the next tick now (a job was added or changed in this process). */
  wake(): void {
    if (this.stopped) return
    this.generation++
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), 0)
  }

  private async plan(): Promise<void> {
    if (this.stopped) return
    const generation = ++this.generation
    let delay = this.options.pollMs
    try {
      const next = await this.options.store.nextDue()
      if (next !== undefined) delay = Math.max(0, Math.min(delay, next - Date.now()))
    } catch (error) {
      this.options.log.error(`cron: ${errorMessage(error)}`)
    }
    if (this.stopped || generation !== this.generation) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.tick(), delay)
  }

  private tick(): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (this.ticking) {
      this.again = true
      return this.ticking
    }
    this.ticking = this.check().finally(() => {
      this.ticking = undefined
      if (this.again) {
        this.again = false
        this.wake()
      } else void this.plan()
    })
    return this.ticking
  }

  private async check(): Promise<void> {
    const { store, log } = this.options
    try {
      const now = Date.now()
      const freed = await store.releaseStale(now)
      if (freed) log.warn(`freed ${freed} cron job lease(s) left by a stopped agent`)
      for (const job of await store.due(now)) {
        if (this.stopped) break
        await this.consider(job, now)
      }
    } catch (error) {
      log.error(`cron tick failed: ${errorMessage(error)}`)
    }
  }

  private async consider(job: CronJob, now: number): Promise<void> {
    const { store, log, graceMs } = this.options
    const dueAt = job.nextRunAt!
    const following = nextRun({ kind: job.scheduleKind, text: job.schedule, timezone: job.timezone, intervalMs: job.intervalMs, runAt: job.runAt }, now, job.anchorAt ?? dueAt) ?? null
    const overdue = now - dueAt
    if (overdue > graceMs) {
      // Another instance may have recorded this miss first: then there is nothing to say.
      if (!(await store.advance(job, following, 'missed', `missed (due ${new Date(dueAt).toISOString()}, ${Math.round(overdue / 60_000)} min ago, beyond the ${Math.round(graceMs / 60_000)} min grace)`, now))) return
      log.warn(`cron job ${job.id} (${job.name}) missed its run of ${new Date(dueAt).toISOString()}`)
      return
    }
    const leaseMs = this.options.timeoutMs + (this.options.leaseMarginMs ?? 60_000)
    if (!(await store.claim(job, this.owner, leaseMs, { dueAt, nextRunAt: following }, now))) {
      // Still running (here or in another process): this occurrence is skipped, not queued.
      // Otherwise another instance claimed it first and runs it.
      if (job.leaseUntil !== undefined && job.leaseUntil >= now && (await store.advance(job, following, 'skipped', 'the previous run was still running', now))) {
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
        void this.plan()
      })
    this.running.set(job.id, run)
  }

  /** Stops planning; waits (bounded) for runs in progress, which the abort signal interrupts. */
  async stop(waitMs = 10_000): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, waitMs)))
    // A tick in progress may still be claiming (a slow database): let it start what it claimed, so
    // that is recorded, within the same bound.
    await Promise.race([this.ticking, deadline])
    const pending = [...this.running.values()]
    if (pending.length) await Promise.race([Promise.allSettled(pending), deadline])
    clearTimeout(timer)
  }
}
