// Cron jobs and their runs in state.db (tables cron_jobs, cron_runs; owner `cron`). A job is claimed
// for a run with a lease (one UPDATE that only succeeds while no lease is held), so two processes or
// two ticks never run one job at the same time.

import { randomHex, type DatabaseService, type SqliteDatabase } from 'agent/sdk'
import type { Schedule, ScheduleKind } from './schedule.ts'

const MIGRATIONS = [
  {
    version: 1,
    up: `
      CREATE TABLE cron_jobs (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        prompt TEXT NOT NULL,
        schedule TEXT NOT NULL,
        schedule_kind TEXT NOT NULL,
        schedule_display TEXT NOT NULL,
        timezone TEXT NOT NULL,
        interval_ms INTEGER,
        run_at INTEGER,
        skills TEXT NOT NULL DEFAULT '[]',
        deliver TEXT NOT NULL DEFAULT 'local',
        origin TEXT,
        created_by TEXT NOT NULL DEFAULT 'cli',
        enabled INTEGER NOT NULL DEFAULT 1,
        paused_at INTEGER,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        next_run_at INTEGER,
        anchor_at INTEGER,
        last_run_at INTEGER,
        last_status TEXT,
        last_error TEXT,
        lease_until INTEGER,
        lease_owner TEXT,
        run_count INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX cron_jobs_due ON cron_jobs (enabled, next_run_at);
      CREATE TABLE cron_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id TEXT NOT NULL REFERENCES cron_jobs(id) ON DELETE CASCADE,
        trigger TEXT NOT NULL,
        scheduled_for INTEGER,
        started_at INTEGER NOT NULL,
        finished_at INTEGER,
        status TEXT NOT NULL,
        session_id TEXT,
        answer TEXT,
        error TEXT,
        delivery TEXT
      );
      CREATE INDEX cron_runs_job ON cron_runs (job_id, started_at);
    `,
  },
]

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

const opt = <T>(value: T | null): T | undefined => (value === null ? undefined : value)

function toJob(row: any): CronJob {
  return {
    id: row.id,
    name: row.name,
    prompt: row.prompt,
    schedule: row.schedule,
    scheduleKind: row.schedule_kind,
    scheduleDisplay: row.schedule_display,
    timezone: row.timezone,
    intervalMs: opt(row.interval_ms),
    runAt: opt(row.run_at),
    skills: JSON.parse(row.skills),
    deliver: row.deliver,
    origin: row.origin ? JSON.parse(row.origin) : undefined,
    createdBy: row.created_by,
    enabled: row.enabled === 1,
    pausedAt: opt(row.paused_at),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    nextRunAt: opt(row.next_run_at),
    anchorAt: opt(row.anchor_at),
    lastRunAt: opt(row.last_run_at),
    lastStatus: opt(row.last_status),
    lastError: opt(row.last_error),
    leaseUntil: opt(row.lease_until),
    runCount: row.run_count,
  }
}

function toRun(row: any): CronRun {
  return {
    id: row.id,
    jobId: row.job_id,
    trigger: row.trigger,
    scheduledFor: opt(row.scheduled_for),
    startedAt: row.started_at,
    finishedAt: opt(row.finished_at),
    status: row.status,
    sessionId: opt(row.session_id),
    answer: opt(row.answer),
    error: opt(row.error),
    delivery: row.delivery ? JSON.parse(row.delivery) : undefined,
  }
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

/** Runs kept per job; older ones are pruned. */
const KEEP_RUNS = 200

export class CronStore {
  private readonly database: () => DatabaseService

  constructor(database: () => DatabaseService) {
    this.database = database
  }

  private db(): SqliteDatabase {
    const service = this.database()
    service.migrate('cron', MIGRATIONS)
    return service.db()
  }

  add(job: NewJob, now = Date.now()): CronJob {
    const id = randomHex(6)
    this.db()
      .prepare(
        `INSERT INTO cron_jobs (id, name, prompt, schedule, schedule_kind, schedule_display, timezone, interval_ms, run_at, skills, deliver, origin, created_by, created_at, updated_at, next_run_at, anchor_at)
         VALUES (@id, @name, @prompt, @schedule, @kind, @display, @timezone, @interval, @runAt, @skills, @deliver, @origin, @createdBy, @now, @now, @next, @next)`,
      )
      .run({
        id,
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
      })
    return this.get(id)!
  }

  get(id: string): CronJob | undefined {
    const row = this.db().prepare('SELECT * FROM cron_jobs WHERE id = ?').get(id)
    return row ? toJob(row) : undefined
  }

  /** By id, or by a name only one job has. */
  find(idOrName: string): CronJob | CronJob[] | undefined {
    const byId = this.get(idOrName)
    if (byId) return byId
    const rows = this.db().prepare('SELECT * FROM cron_jobs WHERE name = ? ORDER BY created_at').all(idOrName).map(toJob)
    return rows.length === 1 ? rows[0] : rows.length > 1 ? rows : undefined
  }

  list(): CronJob[] {
    return this.db().prepare('SELECT * FROM cron_jobs ORDER BY created_at, id').all().map(toJob)
  }

  count(): number {
    return (this.db().prepare('SELECT count(*) AS n FROM cron_jobs').get() as { n: number }).n
  }

  remove(id: string): boolean {
    return this.db().prepare('DELETE FROM cron_jobs WHERE id = ?').run(id).changes === 1
  }

  setPaused(id: string, paused: boolean, nextRunAt: number | null, now = Date.now()): void {
    this.db()
      .prepare('UPDATE cron_jobs SET enabled = ?, paused_at = ?, next_run_at = ?, anchor_at = COALESCE(?, anchor_at), updated_at = ? WHERE id = ?')
      .run(paused ? 0 : 1, paused ? now : null, nextRunAt, nextRunAt, now, id)
  }

  /** Enabled jobs due at `now`. */
  due(now: number): CronJob[] {
    return this.db().prepare('SELECT * FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at').all(now).map(toJob)
  }

  /** When the next enabled job is due, if any. */
  nextDue(): number | undefined {
    const row = this.db().prepare('SELECT min(next_run_at) AS at FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL').get() as { at: number | null }
    return row.at ?? undefined
  }

  /**
   * Takes the job for one run: sets the lease and the next planned run in one step, only if no
   * unexpired lease is held (and, for a scheduled run, only if the job is still due as seen).
   */
  claim(job: CronJob, owner: string, leaseMs: number, nextRunAt: number | null, now = Date.now(), expectDue?: number): boolean {
    const result = this.db()
      .prepare(
        `UPDATE cron_jobs SET lease_until = ?, lease_owner = ?, next_run_at = ?, anchor_at = COALESCE(?, anchor_at), updated_at = ?
         WHERE id = ? AND (lease_until IS NULL OR lease_until < ?) ${expectDue === undefined ? '' : 'AND next_run_at = ?'}`,
      )
      .run(...[now + leaseMs, owner, nextRunAt, nextRunAt, now, job.id, now, ...(expectDue === undefined ? [] : [expectDue])])
    return result.changes === 1
  }

  /** Moves a due job's plan on without running it (skipped or missed), recording why. */
  advance(job: CronJob, nextRunAt: number | null, status: 'missed' | 'skipped', reason: string, now = Date.now()): void {
    const db = this.db()
    db.transaction(() => {
      db.prepare(`UPDATE cron_jobs SET next_run_at = ?, anchor_at = COALESCE(?, anchor_at), last_status = ?, last_error = ?, updated_at = ?, enabled = CASE WHEN ? IS NULL AND schedule_kind = 'once' THEN 0 ELSE enabled END WHERE id = ?`).run(
        nextRunAt,
        nextRunAt,
        status,
        reason,
        now,
        nextRunAt,
        job.id,
      )
      db.prepare('INSERT INTO cron_runs (job_id, trigger, scheduled_for, started_at, finished_at, status, error) VALUES (?, ?, ?, ?, ?, ?, ?)').run(job.id, 'schedule', job.nextRunAt ?? null, now, now, status, reason)
    })()
  }

  startRun(jobId: string, trigger: RunTrigger, scheduledFor: number | undefined, now = Date.now()): number {
    return Number(this.db().prepare(`INSERT INTO cron_runs (job_id, trigger, scheduled_for, started_at, status) VALUES (?, ?, ?, ?, 'running')`).run(jobId, trigger, scheduledFor ?? null, now).lastInsertRowid)
  }

  finishRun(runId: number, job: CronJob, outcome: { status: RunStatus; sessionId?: string; answer?: string; error?: string; delivery?: unknown }, now = Date.now()): void {
    const db = this.db()
    db.transaction(() => {
      db.prepare('UPDATE cron_runs SET finished_at = ?, status = ?, session_id = ?, answer = ?, error = ?, delivery = ? WHERE id = ?').run(
        now,
        outcome.status,
        outcome.sessionId ?? null,
        outcome.answer ?? null,
        outcome.error ?? null,
        outcome.delivery === undefined ? null : JSON.stringify(outcome.delivery),
        runId,
      )
      // A one-shot that has run is done: it stays listed, disabled, with its result.
      db.prepare(
        `UPDATE cron_jobs SET lease_until = NULL, lease_owner = NULL, last_run_at = ?, last_status = ?, last_error = ?, run_count = run_count + 1, updated_at = ?,
           enabled = CASE WHEN schedule_kind = 'once' AND next_run_at IS NULL THEN 0 ELSE enabled END WHERE id = ?`,
      ).run(now, outcome.status, outcome.error ?? null, now, job.id)
      db.prepare(`DELETE FROM cron_runs WHERE job_id = ? AND id NOT IN (SELECT id FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ${KEEP_RUNS})`).run(job.id, job.id)
    })()
  }

  runs(jobId?: string, limit = 20): CronRun[] {
    const rows = jobId ? this.db().prepare('SELECT * FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?').all(jobId, limit) : this.db().prepare('SELECT * FROM cron_runs ORDER BY id DESC LIMIT ?').all(limit)
    return rows.map(toRun)
  }

  /** Leases held by a process that is gone (crash): free them so the jobs can run again. */
  releaseStale(now = Date.now()): number {
    const db = this.db()
    db.prepare(`UPDATE cron_runs SET status = 'error', error = 'interrupted (the agent stopped during the run)', finished_at = ? WHERE status = 'running' AND job_id IN (SELECT id FROM cron_jobs WHERE lease_until IS NOT NULL AND lease_until < ?)`).run(now, now)
    return db.prepare('UPDATE cron_jobs SET lease_until = NULL, lease_owner = NULL WHERE lease_until IS NOT NULL AND lease_until < ?').run(now).changes
  }
}
