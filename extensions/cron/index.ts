// Cron: jobs (a prompt, a schedule, skills, a delivery target) stored in state.db or PostgreSQL
// (the storage backend), run by the scheduler in gateway mode and delivered through the gateway's delivery service; `agent cron …`
// and the `cronjob` tool create and manage them.

import { CRON_SERVICE, defineExtension, snakeCaseKeys, STORAGE_SERVICE, UsageError, type CronService, type StorageService } from 'agent/sdk'
import { cronSubcommands } from './cli.ts'
import { configuredZone, findJob, jobView, pauseJob, resumeJob, type JobsContext } from './jobs.ts'
import type { RunnerContext } from './runner.ts'
import type { Scheduler } from './scheduler.ts'
import { cronStoreFor } from './pick-store.ts'
import { PG_MIGRATIONS } from './store-pg.ts'
import { cronTool } from './tool.ts'

interface CronConfig {
  timezone?: string
  poll_seconds: number
  missed_run_grace_minutes: number
  run_timeout_minutes: number
  max_jobs: number
}

export default defineExtension<CronConfig>({
  name: 'cron',
  version: '1.0.0',
  description: 'Scheduled jobs: prompts with skills on a schedule, results delivered to a platform',
  // Loaded after (so unloaded before) the database its runs are recorded in.
  dependsOn: ['state-db', 'storage'],
  configKey: 'cron',
  // The top-level zone, used when cron.timezone is unset.
  settings: { timezone: { type: 'string', minLength: 1 } },
  config: {
    type: 'object',
    properties: {
      timezone: { type: 'string', description: 'IANA zone for cron expressions and times without an offset (default: top-level timezone, else the system zone)' },
      poll_seconds: { type: 'number', minimum: 1, default: 15 },
      missed_run_grace_minutes: { type: 'number', minimum: 0, default: 60 },
      run_timeout_minutes: { type: 'number', exclusiveMinimum: 0, default: 30 },
      max_jobs: { type: 'integer', minimum: 1, default: 100 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config
    api.services.require<StorageService>(STORAGE_SERVICE).declare('cron', PG_MIGRATIONS)
    // Chosen and opened on first use: setup stays free of the database.
    const store = cronStoreFor(api.services)
    let scheduler: Scheduler | undefined

    const jobs = (): JobsContext => ({
      store: store(),
      services: api.services,
      settings: api.settings,
      adapters: api.adapters,
      timezone: () => configuredZone(api.settings, config.timezone),
      maxJobs: config.max_jobs,
      changed: () => scheduler?.wake(),
    })
    const runner = (signal: AbortSignal = api.signal): RunnerContext => ({
      services: api.services,
      settings: api.settings,
      store: store(),
      timeoutMs: config.run_timeout_minutes * 60_000,
      signal,
    })

    api.tools.register(cronTool(jobs))
    // The same operations for other surfaces (the dashboard's Gateway page).
    api.services.provide<CronService>(CRON_SERVICE, {
      list: async () => (await store().list()).map(jobView),
      async run(idOrName) {
        const j = jobs()
        const job = await findJob(j, idOrName)
        const ctx = runner()
        if (!(await j.store.claim(job, `run-now-${process.pid}`, ctx.timeoutMs + 60_000))) throw new UsageError(`job ${job.id} is running right now; try again when it has finished`)
        const { runJob } = await import('./runner.ts')
        return snakeCaseKeys({ job: job.id, ...(await runJob(ctx, job, 'manual')) }) as Record<string, unknown>
      },
      pause: async (idOrName) => jobView(await pauseJob(jobs(), await findJob(jobs(), idOrName))),
      resume: async (idOrName) => jobView(await resumeJob(jobs(), await findJob(jobs(), idOrName))),
    })
    api.commands.register({
      name: 'cron',
      category: 'Automation',
      description: 'Scheduled jobs: list, add, remove, pause, resume, run',
      cli: { subcommands: cronSubcommands(jobs, (ctx) => runner(AbortSignal.any([api.signal, ctx.signal]))) },
    })

    const stopping = new AbortController()
    const stop = async () => {
      // Runs in progress are interrupted and recorded as such while the database is still open.
      stopping.abort()
      await scheduler?.stop()
      scheduler = undefined
    }
    api.hooks.ready.tapPromise(async ({ mode }) => {
      if (mode !== 'gateway' || scheduler) return
      const { Scheduler } = await import('./scheduler.ts')
      scheduler = new Scheduler({ ...runner(AbortSignal.any([api.signal, stopping.signal])), log: api.log, pollMs: config.poll_seconds * 1000, graceMs: config.missed_run_grace_minutes * 60_000 })
      scheduler.start()
      api.log.info('cron scheduler started')
    })
    api.hooks.shutdown.tapPromise(stop)
    api.onDispose(stop)
  },
})
