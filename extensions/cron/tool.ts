// The `cronjob` tool: the agent schedules, lists, pauses, resumes and removes jobs itself. A job made
// in a chat delivers back to that chat by default (`origin`); jobs cannot be made from inside a job.

import { AgentError, defineTool, type ToolDefinition } from 'agent/sdk'
import { createJob, findJob, jobView, pauseJob, resumeJob, type JobsContext } from './jobs.ts'
import { FORMS } from './schedule.ts'

interface CronToolInput {
  action: 'create' | 'list' | 'pause' | 'resume' | 'remove'
  schedule?: string
  prompt?: string
  name?: string
  skills?: string[]
  deliver?: string
  job_id?: string
}

export function cronTool(jobs: () => JobsContext): ToolDefinition {
  return defineTool<CronToolInput>({
    name: 'cronjob',
    toolset: 'cron',
    description:
      `Schedule prompts to run later or repeatedly (jobs run while the gateway is running); results are delivered to a chat. Actions: create (schedule, prompt, optional name, skills, deliver), list, pause, resume, remove (job_id). Schedule: ${FORMS}. ` +
      'deliver: "origin" (this chat, the default in a chat), "local" (stored only), "<platform>" (its home channel) or "<platform>:<chat_id>"; comma-separate several.',
    parameters: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['create', 'list', 'pause', 'resume', 'remove'] },
        schedule: { type: 'string', description: 'When to run (create)' },
        prompt: { type: 'string', description: 'What the job asks the agent, self-contained: the run has no chat history (create)' },
        name: { type: 'string', description: 'Short name (create)' },
        skills: { type: 'array', items: { type: 'string' }, description: 'Skills to load for each run (create)' },
        deliver: { type: 'string', description: 'Where results go (create)' },
        job_id: { type: 'string', description: 'The job (pause, resume, remove)' },
      },
      required: ['action'],
      additionalProperties: false,
    },
    async execute({ input, session }) {
      const ctx = jobs()
      const source = session.source
      switch (input.action) {
        case 'create': {
          if (source?.platform === 'cron') throw new AgentError('E_BLOCKED', 'a scheduled job cannot create more jobs')
          const origin = source && source.platform !== 'cli' && source.platform !== 'mcp' ? { platform: source.platform, userId: source.userId, chatId: source.chatId } : undefined
          const job = await createJob(ctx, {
            schedule: String(input.schedule ?? ''),
            prompt: String(input.prompt ?? ''),
            name: input.name,
            skills: input.skills,
            deliver: input.deliver ?? (origin ? 'origin' : 'local'),
            origin,
            createdBy: 'agent',
          })
          return { created: jobView(job) }
        }
        case 'list':
          return { jobs: (await ctx.store.list()).map(jobView) }
        case 'pause':
          return { paused: jobView(await pauseJob(ctx, await findJob(ctx, String(input.job_id ?? '')))) }
        case 'resume':
          return { resumed: jobView(await resumeJob(ctx, await findJob(ctx, String(input.job_id ?? '')))) }
        case 'remove': {
          const job = await findJob(ctx, String(input.job_id ?? ''))
          await ctx.store.remove(job.id)
          ctx.changed()
          return { removed: job.id }
        }
        default:
          throw new AgentError('E_USAGE', `unknown action "${String((input as { action?: unknown }).action)}" (create, list, pause, resume, remove)`)
      }
    },
  })
}
