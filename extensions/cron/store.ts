// What cron keeps about jobs and their runs (tables cron_jobs, cron_runs; owner `cron`): one async
// interface with two implementations, SQLite (store-sqlite.ts, state.db) and PostgreSQL
// (store-pg.ts, shared by several instances), chosen by the storage backend (pick-store.ts). The
// row mapping lives here once; both schemas use the same table and column names.

import { randomHex } from 'agent/sdk'
import type { Schedule, ScheduleKind } from './schedule.ts'

export type RunStatus = 'running' | 'ok' | 'silent' | 'error' | 'missed' | 'skipped'
export type RunTrigger = 'schedule' | 'catch-up' | 'manual'

export interface CronJob {
  id: string
  name: string
  prompt: string
  schedule: string
  scheduleKind: ScheduleKind
  scheduleDisplay: string
  timezone: string
  intervalMs?: number
  runAt?: number
  skills: string[]
  deliver: string
  origin?: { platform: string; userId?: string; chatId?: string; threadId?: string }
  createdBy: 'cli' | 'agent'
  enabled: boolean
  pausedAt?: number
  createdAt: number
  updatedAt: number
  nextRunAt?: number
  anchorAt?: number
  lastRunAt?: number
  lastStatus?: RunStatus
  lastError?: string
  leaseUntil?: number
  runCount: number
}

export interface CronRun {
  id: number
  jobId: string
  trigger: RunTrigger
  scheduledFor?: number
  startedAt: number
  finishedAt?: number
  status: RunStatus
  sessionId?: string
  answer?: string
  error?: string
  delivery?: unknown
}

export interface NewJob {
  name?: string
  prompt: string
  schedule: Schedule
  skills: string[]
  deliver: string
  origin?: CronJob['origin']
  createdBy: 'cli' | 'agent'
  nextRunAt: number
}

/** The scheduled occurrence a claim is for: when it was due as seen, and the run planned after it. */
export interface Occurrence {
  dueAt: number
  nextRunAt: number | null
}

export interface RunRecord {
  status: RunStatus
  sessionId?: string
  answer?: string
  error?: string
  delivery?: unknown
}

/**
 * Jobs and runs. `now` (default Date.now()) stamps records and judges what is due; on PostgreSQL
 * leases are judged by the database clock, so instances whose clocks differ agree on them.
 */
export interface CronStore {
  add(job: NewJob, now?: number): Promise<CronJob>
  get(id: string): Promise<CronJob | undefined>
  /** Jobs with this name, oldest first. */
  named(name: string): Promise<CronJob[]>
  list(): Promise<CronJob[]>
  count(): Promise<number>
  remove(id: string): Promise<boolean>
  setPaused(id: string, paused: boolean, nextRunAt: number | null, now?: number): Promise<void>
  /** Enabled jobs due at `now`. */
  due(now: number): Promise<CronJob[]>
  /** When the next enabled job is due, if any. */
  nextDue(): Promise<number | undefined>
  /**
   * Takes the job for one run: sets the lease in one statement, only if no unexpired lease is held.
   * For a scheduled run (`occurrence`) only while the job is still planned for `dueAt`, moving the
   * plan to `nextRunAt` in the same statement: of several instances claiming one occurrence,
   * exactly one gets true. A manual run (no occurrence) leaves the plan as it is.
   */
  claim(job: CronJob, owner: string, leaseMs: number, occurrence?: Occurrence, now?: number): Promise<boolean>
  /**
   * Moves a due job's plan on without running it (skipped or missed) and records why, only while
   * it is still planned for `job.nextRunAt`: false when another instance moved it first.
   */
  advance(job: CronJob, nextRunAt: number | null, status: 'missed' | 'skipped', reason: string, now?: number): Promise<boolean>
  startRun(jobId: string, trigger: RunTrigger, scheduledFor: number | undefined, now?: number): Promise<number>
  /** Records the outcome, frees the lease, ends a one-shot, prunes old runs: one transaction. */
  finishRun(runId: number, job: CronJob, outcome: RunRecord, now?: number): Promise<void>
  /** Newest first. */
  runs(jobId?: string, limit?: number): Promise<CronRun[]>
  /** Leases held by a process that is gone (crash): free them, and mark their runs interrupted. */
  releaseStale(now?: number): Promise<number>
}

/** Runs kept per job; older ones are pruned. */
export const KEEP_RUNS = 200

export const INTERRUPTED = 'interrupted (the agent stopped during the run)'

/** The values of a new job's row, by column. */
export function newJobRow(job: NewJob, now: number) {
  return {
    id: randomHex(6),
    name: job.name?.trim() || job.prompt.replace(/\s+/g, ' ').slice(0, 40),
    prompt: job.prompt,
    schedule: job.schedule.text,
    kind: job.schedule.kind,
    display: job.schedule.display,
    timezone: job.schedule.timezone,
    interval: job.schedule.intervalMs ?? null,
    runAt: job.schedule.runAt ?? null,
    skills: JSON.stringify(job.skills),
    deliver: job.deliver,
    origin: job.origin ? JSON.stringify(job.origin) : null,
    createdBy: job.createdBy,
    now,
    next: job.nextRunAt,
  }
}

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value)
// PostgreSQL answers BIGINT columns as strings; SQLite as numbers.
const num = (value: number | string | null): number | undefined => (value === null || value === undefined ? undefined : Number(value))

export function toJob(row: any): CronJob {
  return {
    id: row.id,
    name: row.name,
    prompt: row.prompt,
    schedule: row.schedule,
    scheduleKind: row.schedule_kind,
    scheduleDisplay: row.schedule_display,
    timezone: row.timezone,
    intervalMs: num(row.interval_ms),
    runAt: num(row.run_at),
    skills: JSON.parse(row.skills),
    deliver: row.deliver,
    origin: row.origin ? JSON.parse(row.origin) : undefined,
    createdBy: row.created_by,
    enabled: Number(row.enabled) === 1,
    pausedAt: num(row.paused_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    nextRunAt: num(row.next_run_at),
    anchorAt: num(row.anchor_at),
    lastRunAt: num(row.last_run_at),
    lastStatus: opt(row.last_status),
    lastError: opt(row.last_error),
    leaseUntil: num(row.lease_until),
    runCount: Number(row.run_count),
  }
}

export function toRun(row: any): CronRun {
  return {
    id: Number(row.id),
    jobId: row.job_id,
    trigger: row.trigger,
    scheduledFor: num(row.scheduled_for),
    startedAt: Number(row.started_at),
    finishedAt: num(row.finished_at),
    status: row.status,
    sessionId: opt(row.session_id),
    answer: opt(row.answer),
    error: opt(row.error),
    delivery: row.delivery ? JSON.parse(row.delivery) : undefined,
  }
}
