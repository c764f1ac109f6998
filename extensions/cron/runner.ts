// One run of a cron job: the prompt through the runtime with the job's skills loaded, then the
// answer delivered to each target through the gateway's delivery service. `[SILENT]` answers are
// recorded, not sent. The run and its outcome are stored whatever happens.

import { DELIVERY_SERVICE, errorMessage, linkAbortWithTimeout, redactSecrets, RUNTIME_SERVICE, SKILLS_SERVICE, type AgentRuntime, type DeliveryService, type LinkedAbort, type Services, type Settings, type SkillsService } from 'agent/sdk'
import type { CronJob, CronStore, RunStatus, RunTrigger } from './store.ts'

export interface RunnerContext {
  services: Services
  settings: Settings
  store: CronStore
  timeoutMs: number
  signal: AbortSignal
}

export interface RunOutcome {
  status: RunStatus
  answer?: string
  error?: string
  sessionId?: string
  deliveries: Array<{ target: string; ok: boolean; description?: string; error?: string }>
}

const SILENT = /^\s*\[?(SILENT|NO[_ ]REPLY)\]?\s*$|^\s*\[SILENT\]/i

/** The targets of a `deliver` setting: comma-separated; `local` (or nothing) means stored only. */
export function deliveryTargets(deliver: string): string[] {
  return deliver
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s && s !== 'local')
}

function cronPrompt(job: CronJob): string {
  const targets = deliveryTargets(job.deliver)
  return [
    `You are running the scheduled job "${job.name}" (${job.scheduleDisplay}); no person is waiting in a chat.`,
    targets.length ? `Your final answer is delivered as a message to: ${targets.join(', ')}. Write it for that reader.` : 'Your final answer is stored with the job run.',
    'If there is nothing worth reporting this time, answer exactly [SILENT] and nothing else.',
  ].join(' ')
}

export async function runJob(ctx: RunnerContext, job: CronJob, trigger: RunTrigger, scheduledFor?: number): Promise<RunOutcome> {
  const runId = await ctx.store.startRun(job.id, trigger, scheduledFor)
  const secrets = () => ctx.settings.secretValues()
  let outcome: RunOutcome
  let deadline: LinkedAbort | undefined
  try {
    const runtime = ctx.services.get<AgentRuntime>(RUNTIME_SERVICE)
    if (!runtime) throw new Error('the agent runtime is not loaded')
    if (job.skills.length) {
      const skills = ctx.services.get<SkillsService>(SKILLS_SERVICE)
      if (!skills) throw new Error(`the job loads skills (${job.skills.join(', ')}) but the skills extension is not loaded`)
      const missing = skills.missing(job.skills)
      if (missing.length) throw new Error(`unknown skill${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`)
    }
    deadline = linkAbortWithTimeout(ctx.timeoutMs, ctx.signal)
    const signal = deadline.signal
    const result = await runtime.run({
      input: job.prompt,
      skills: job.skills,
      systemPrompt: cronPrompt(job),
      source: { platform: 'cron', userId: job.id, chatId: job.id },
      // A job does not schedule more jobs.
      disableTools: ['cronjob'],
      signal,
      extra: { cronJobId: job.id },
    })
    const answer = result.answer
    if (result.exitReason === 'interrupted') {
      const why = ctx.signal.aborted ? 'interrupted (the agent is stopping)' : `timed out after ${Math.round(ctx.timeoutMs / 1000)} s`
      outcome = { status: 'error', error: why, sessionId: result.sessionId, ...(answer ? { answer } : {}), deliveries: [] }
    } else if (!answer.trim()) {
      outcome = { status: 'error', error: 'the run produced no answer', sessionId: result.sessionId, deliveries: [] }
    } else if (SILENT.test(answer)) {
      outcome = { status: 'silent', answer, sessionId: result.sessionId, deliveries: [] }
    } else {
      const deliveries = await deliver(ctx, job, answer)
      const failed = deliveries.filter((d) => !d.ok)
      const problems = [
        ...(result.exitReason === 'max_iterations' ? ['the run stopped at the iteration cap (partial answer)'] : []),
        ...(failed.length ? [`delivery failed: ${failed.map((d) => `${d.target}: ${d.error}`).join('; ')}`] : []),
      ]
      outcome = { status: problems.length ? 'error' : 'ok', answer, sessionId: result.sessionId, deliveries, ...(problems.length ? { error: problems.join('; ') } : {}) }
    }
  } catch (error) {
    const aborted = ctx.signal.aborted ? 'interrupted (the agent is stopping)' : undefined
    const message = /timeout|timed out|aborted/i.test(errorMessage(error)) && !aborted ? `timed out after ${Math.round(ctx.timeoutMs / 1000)} s` : (aborted ?? errorMessage(error))
    outcome = { status: 'error', error: redactSecrets(message, secrets()), deliveries: [] }
  } finally {
    deadline?.dispose()
  }
  await ctx.store.finishRun(runId, job, { status: outcome.status, sessionId: outcome.sessionId, answer: outcome.answer, error: outcome.error, delivery: outcome.deliveries })
  return outcome
}

async function deliver(ctx: RunnerContext, job: CronJob, text: string): Promise<RunOutcome['deliveries']> {
  const targets = deliveryTargets(job.deliver)
  if (targets.length === 0) return []
  const delivery = ctx.services.get<DeliveryService>(DELIVERY_SERVICE)
  if (!delivery) return targets.map((target) => ({ target, ok: false, error: 'the delivery service is not loaded' }))
  const seen = new Set<string>()
  const out: RunOutcome['deliveries'] = []
  for (const target of targets) {
    try {
      const parsed = delivery.parse(target, {}, job.origin ? { platform: job.origin.platform, userId: job.origin.userId, chatId: job.origin.chatId } : undefined)
      const key = JSON.stringify(parsed)
      if (seen.has(key)) continue
      seen.add(key)
      const receipt = await delivery.send(parsed, `${text}`)
      out.push({ target, ok: true, description: receipt.description })
    } catch (error) {
      out.push({ target, ok: false, error: redactSecrets(errorMessage(error), ctx.settings.secretValues()) })
    }
  }
  return out
}
