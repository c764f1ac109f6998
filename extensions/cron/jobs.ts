// Creating and changing jobs, shared by `agent cron …` and the `cronjob` tool: every input is checked
// before anything is stored (schedule, skills, delivery targets), with one clear line when it is bad.

import { AgentError, DELIVERY_SERVICE, SKILLS_SERVICE, UsageError, type AdapterDefinition, type DeliveryService, type RegistryHandle, type Services, type Settings, type SkillsService } from 'agent/sdk'
import { deliveryTargets } from './runner.ts'
import { checkTimezone, formatInZone, nextRun, parseSchedule } from './schedule.ts'
import type { CronJob, CronRun, CronStore } from './store.ts'

export interface JobsContext {
  store: CronStore
  services: Services
  settings: Settings
  adapters: Pick<RegistryHandle<AdapterDefinition>, 'get'>
  timezone: () => string
  maxJobs: number
  /** Called after a change so a running scheduler re-plans. */
  changed: () => void
}

export interface JobInput {
  schedule: string
  prompt: string
  name?: string
  skills?: string[]
  deliver?: string
  origin?: CronJob['origin']
  createdBy: 'cli' | 'agent'
}

/** The configured time zone: cron.timezone, else the top-level `timezone`, else the system's. */
export function configuredZone(settings: Settings, fromConfig?: string): string {
  const zone = fromConfig ?? settings.get<string>('timezone') ?? Intl.DateTimeFormat().resolvedOptions().timeZone ?? 'UTC'
  return checkTimezone(zone)
}

export function checkDeliver(ctx: JobsContext, deliver: string, origin: CronJob['origin']): string {
  const value = deliver.trim() || 'local'
  const targets = deliveryTargets(value)
  if (targets.length === 0) return 'local'
  const delivery = ctx.services.get<DeliveryService>(DELIVERY_SERVICE)
  if (!delivery) throw new UsageError(`delivering to "${value}" needs the gateway's delivery service, which is not loaded (use --deliver local)`)
  for (const target of targets) {
    if (target === 'origin' && !origin) throw new UsageError('deliver "origin" means the chat the job was created from; a job created here has none (name a platform, e.g. sms:+15551234567)')
    let parsed
    try {
      parsed = delivery.parse(target, {}, origin)
    } catch (error) {
      throw new UsageError(`delivery target "${target}": ${(error as Error).message}`)
    }
    if (parsed.kind === 'code-comment') throw new UsageError(`delivery target "${target}" needs details cron jobs do not carry; use a chat or "log"`)
    if (parsed.kind === 'chat' && !ctx.adapters.get(parsed.platform)) throw new UsageError(`delivery target "${target}": no platform adapter named "${parsed.platform}" is installed`)
  }
  return targets.join(',')
}

export async function createJob(ctx: JobsContext, input: JobInput): Promise<CronJob> {
  const prompt = input.prompt.trim()
  if (!prompt) throw new UsageError('a job needs a prompt')
  if (prompt.length > 20_000) throw new UsageError('the prompt is longer than 20,000 characters')
  const schedule = parseSchedule(input.schedule, ctx.timezone())
  const skills = [...new Set((input.skills ?? []).map((s) => s.trim()).filter(Boolean))]
  if (skills.length) {
    const service = ctx.services.get<SkillsService>(SKILLS_SERVICE)
    if (!service) throw new UsageError('skills were given but the skills extension is not loaded')
    const missing = service.missing(skills)
    if (missing.length) throw new UsageError(`unknown skill${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (agent skills list)`)
  }
  const deliver = checkDeliver(ctx, input.deliver ?? 'local', input.origin)
  if ((await ctx.store.count()) >= ctx.maxJobs) throw new AgentError('E_LIMIT', `there are already ${ctx.maxJobs} cron jobs (cron.max_jobs); remove some first`)
  const now = Date.now()
  const first = schedule.kind === 'once' ? schedule.runAt! : nextRun(schedule, now)
  if (first === undefined) throw new UsageError(`"${input.schedule}" never runs`)
  const job = await ctx.store.add({ name: input.name, prompt, schedule, skills, deliver, origin: input.origin, createdBy: input.createdBy, nextRunAt: first })
  ctx.changed()
  return job
}

/** A job by id or unique name; a one-line error otherwise. */
export async function findJob(ctx: Pick<JobsContext, 'store'>, idOrName: string): Promise<CronJob> {
  const key = idOrName.trim()
  const byId = await ctx.store.get(key)
  if (byId) return byId
  const named = await ctx.store.named(key)
  if (named.length === 0) throw new UsageError(`no cron job "${idOrName}" (agent cron list)`)
  if (named.length > 1) throw new UsageError(`several jobs are named "${idOrName}": use an id (${named.map((j) => j.id).join(', ')})`)
  return named[0]!
}

export async function pauseJob(ctx: JobsContext, job: CronJob): Promise<CronJob> {
  await ctx.store.setPaused(job.id, true, null)
  ctx.changed()
  return (await ctx.store.get(job.id))!
}

export async function resumeJob(ctx: JobsContext, job: CronJob): Promise<CronJob> {
  const now = Date.now()
  const schedule = { kind: job.scheduleKind, text: job.schedule, timezone: job.timezone, intervalMs: job.intervalMs, runAt: job.runAt }
  const next = job.scheduleKind === 'once' ? job.runAt : nextRun(schedule, now)
  if (next === undefined || (job.scheduleKind === 'once' && (job.runCount > 0 || next < now))) {
    throw new UsageError(`job ${job.id} was a one-shot that is over; add a new job instead`)
  }
  await ctx.store.setPaused(job.id, false, next)
  ctx.changed()
  return (await ctx.store.get(job.id))!
}

/** A job as shown by `agent cron list --json` and the tool. */
export function jobView(job: CronJob) {
  return {
    id: job.id,
    name: job.name,
    prompt: job.prompt,
    schedule: job.schedule,
    schedule_display: job.scheduleDisplay,
    timezone: job.timezone,
    skills: job.skills,
    deliver: job.deliver,
    state: job.enabled ? (job.leaseUntil && job.leaseUntil > Date.now() ? 'running' : 'scheduled') : job.pausedAt ? 'paused' : 'done',
    next_run_at: job.nextRunAt ? new Date(job.nextRunAt).toISOString() : null,
    next_run_local: job.nextRunAt ? formatInZone(job.nextRunAt, job.timezone) : null,
    last_run_at: job.lastRunAt ? new Date(job.lastRunAt).toISOString() : null,
    last_status: job.lastStatus ?? null,
    last_error: job.lastError ?? null,
    runs: job.runCount,
    created_by: job.createdBy,
  }
}

/** A run as shown by `agent cron runs --json`. */
export function runView(run: CronRun) {
  const iso = (ms?: number) => (ms === undefined ? null : new Date(ms).toISOString())
  return {
    id: run.id,
    job_id: run.jobId,
    trigger: run.trigger,
    status: run.status,
    scheduled_for: iso(run.scheduledFor),
    started_at: iso(run.startedAt),
    finished_at: iso(run.finishedAt),
    session_id: run.sessionId ?? null,
    answer: run.answer ?? null,
    error: run.error ?? null,
    delivery: run.delivery ?? [],
  }
}
