// Cron jobs and their runs in state.db (the SQLite CronStore). A job is claimed for a run with a
// lease (one UPDATE that only succeeds while no lease is held), so two processes or two ticks never
// run one job at the same time. better-sqlite3 is synchronous: each method does its work at once and
// answers a settled promise.

import type { DatabaseService, SqliteDatabase } from 'agent/sdk'
import { INTERRUPTED, KEEP_RUNS, newJobRow, toJob, toRun, type CronJob, type CronRun, type CronStore, type NewJob, type Occurrence, type RunRecord, type RunTrigger } from './store.ts'

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

export class SqliteCronStore implements CronStore {
  private readonly database: () => DatabaseService

  constructor(database: () => DatabaseService) {
    this.database = database
  }

  private db(): SqliteDatabase {
    const service = this.database()
    service.migrate('cron', MIGRATIONS)
    return service.db()
  }

  async add(job: NewJob, now = Date.now()): Promise<CronJob> {
    const row = newJobRow(job, now)
    this.db()
      .prepare(
        `INSERT INTO cron_jobs (id, name, prompt, schedule, schedule_kind, schedule_display, timezone, interval_ms, run_at, skills, deliver, origin, created_by, created_at, updated_at, next_run_at, anchor_at)
         VALUES (@id, @name, @prompt, @schedule, @kind, @display, @timezone, @interval, @runAt, @skills, @deliver, @origin, @createdBy, @now, @now, @next, @next)`,
      )
      .run(row)
    return (await this.get(row.id))!
  }

  async get(id: string): Promise<CronJob | undefined> {
    const row = this.db().prepare('SELECT * FROM cron_jobs WHERE id = ?').get(id)
    return row ? toJob(row) : undefined
  }

  async named(name: string): Promise<CronJob[]> {
    return this.db().prepare('SELECT * FROM cron_jobs WHERE name = ? ORDER BY created_at').all(name).map(toJob)
  }

  async list(): Promise<CronJob[]> {
    return this.db().prepare('SELECT * FROM cron_jobs ORDER BY created_at, id').all().map(toJob)
  }

  async count(): Promise<number> {
    return (this.db().prepare('SELECT count(*) AS n FROM cron_jobs').get() as { n: number }).n
  }

  async remove(id: string): Promise<boolean> {
    return this.db().prepare('DELETE FROM cron_jobs WHERE id = ?').run(id).changes === 1
  }

  async setPaused(id: string, paused: boolean, nextRunAt: number | null, now = Date.now()): Promise<void> {
    this.db()
      .prepare('UPDATE cron_jobs SET enabled = ?, paused_at = ?, next_run_at = ?, anchor_at = COALESCE(?, anchor_at), updated_at = ? WHERE id = ?')
      .run(paused ? 0 : 1, paused ? now : null, nextRunAt, nextRunAt, now, id)
  }

  async due(now: number): Promise<CronJob[]> {
    return this.db().prepare('SELECT * FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at').all(now).map(toJob)
  }

  async nextDue(): Promise<number | undefined> {
    const row = this.db().prepare('SELECT min(next_run_at) AS at FROM cron_jobs WHERE enabled = 1 AND next_run_at IS NOT NULL').get() as { at: number | null }
    return row.at ?? undefined
  }

  async claim(job: CronJob, owner: string, leaseMs: number, occurrence?: Occurrence, now = Date.now()): Promise<boolean> {
    const lease = 'lease_until = @until, lease_owner = @owner, updated_at = @now'
    const free = 'id = @id AND (lease_until IS NULL OR lease_until < @now)'
    const params = { id: job.id, until: now + leaseMs, owner, now }
    const result = occurrence
      ? this.db()
          .prepare(`UPDATE cron_jobs SET ${lease}, next_run_at = @next, anchor_at = COALESCE(@next, anchor_at) WHERE ${free} AND next_run_at = @due`)
          .run({ ...params, next: occurrence.nextRunAt, due: occurrence.dueAt })
      : this.db().prepare(`UPDATE cron_jobs SET ${lease} WHERE ${free}`).run(params)
    return result.changes === 1
  }

  async advance(job: CronJob, nextRunAt: number | null, status: 'missed' | 'skipped', reason: string, now = Date.now()): Promise<boolean> {
    const db = this.db()
    return db.transaction(() => {
      const moved = db
        .prepare(
          `UPDATE cron_jobs SET next_run_at = ?, anchor_at = COALESCE(?, anchor_at), last_status = ?, last_error = ?, updated_at = ?, enabled = CASE WHEN ? IS NULL AND schedule_kind = 'once' THEN 0 ELSE enabled END
           WHERE id = ? AND next_run_at IS ?`,
        )
        .run(nextRunAt, nextRunAt, status, reason, now, nextRunAt, job.id, job.nextRunAt ?? null)
      if (moved.changes !== 1) return false
      db.prepare('INSERT INTO cron_runs (job_id, trigger, scheduled_for, started_at, finished_at, status, error) VALUES (?, ?, ?, ?, ?, ?, ?)').run(job.id, 'schedule', job.nextRunAt ?? null, now, now, status, reason)
      return true
    })()
  }

  async startRun(jobId: string, trigger: RunTrigger, scheduledFor: number | undefined, now = Date.now()): Promise<number> {
    return Number(this.db().prepare(`INSERT INTO cron_runs (job_id, trigger, scheduled_for, started_at, status) VALUES (?, ?, ?, ?, 'running')`).run(jobId, trigger, scheduledFor ?? null, now).lastInsertRowid)
  }

  async finishRun(runId: number, job: CronJob, outcome: RunRecord, now = Date.now()): Promise<void> {
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

  async runs(jobId?: string, limit = 20): Promise<CronRun[]> {
    const rows = jobId ? this.db().prepare('SELECT * FROM cron_runs WHERE job_id = ? ORDER BY id DESC LIMIT ?').all(jobId, limit) : this.db().prepare('SELECT * FROM cron_runs ORDER BY id DESC LIMIT ?').all(limit)
    return rows.map(toRun)
  }

  async releaseStale(now = Date.now()): Promise<number> {
    const db = this.db()
    return db.transaction(() => {
      db.prepare(`UPDATE cron_runs SET status = 'error', error = ?, finished_at = ? WHERE status = 'running' AND job_id IN (SELECT id FROM cron_jobs WHERE lease_until IS NOT NULL AND lease_until < ?)`).run(INTERRUPTED, now, now)
      return db.prepare('UPDATE cron_jobs SET lease_until = NULL, lease_owner = NULL WHERE lease_until IS NOT NULL AND lease_until < ?').run(now).changes
    })()
  }
}
