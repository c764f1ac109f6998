// `agent cron list|add|remove|pause|resume|run|runs`. Jobs live in the storage backend (state.db or
// PostgreSQL); a running gateway picks up changes within `cron.poll_seconds`. `run` runs a job now in
// this process and delivers its result.

import { snakeCaseKeys, UsageError, type CliContext, type CliSubcommand } from 'agent/sdk'
import { createJob, findJob, jobView, pauseJob, resumeJob, runView, type JobsContext } from './jobs.ts'
import { runJob, type RunnerContext } from './runner.ts'
import { FORMS } from './schedule.ts'

const json = { type: 'boolean' as const, describe: 'Print one JSON document' }

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n')
}

export function cronSubcommands(jobs: () => JobsContext, runner: (ctx: CliContext) => RunnerContext): Record<string, CliSubcommand> {
  return {
    list: {
      description: 'Every cron job: schedule, next run, skills, delivery and last result',
      options: { json },
      async run(ctx) {
        const list = (await jobs().store.list()).map(jobView)
        if (ctx.argv.json) return void ctx.json(list)
        if (list.length === 0) return void ctx.out('no cron jobs (agent cron add <schedule> <prompt>)')
        ctx.out(
          table([
            ['ID', 'NAME', 'STATE', 'NEXT RUN', 'SCHEDULE', 'SKILLS', 'DELIVER', 'LAST'],
            ...list.map((j) => [j.id, j.name, j.state, j.next_run_local ?? '-', j.schedule_display, j.skills.join(',') || '-', j.deliver, j.last_status ? `${j.last_status}${j.last_error ? `: ${j.last_error}` : ''}` : '-']),
          ]),
        )
      },
    },
    add: {
      description: 'Add a job: a schedule and a prompt, with skills to load and where to deliver the result',
      args: '<schedule> <prompt>',
      options: {
        name: { type: 'string', describe: 'Short name (default: the start of the prompt)' },
        skill: { type: 'array', alias: 's', describe: 'A skill to load for each run (repeatable)' },
        deliver: { type: 'string', default: 'local', describe: 'local (stored only), log, <platform> (home channel), <platform>:<chat_id>; comma-separated' },
        json,
      },
      examples: [
        ['agent cron add "0 9 * * 1-5" "Summarise open issues" -s triage --deliver sms:+15551234567', 'weekdays at 9 in the configured time zone'],
        ['agent cron add "every 2h" "Check the build"', 'every two hours'],
        ['agent cron add 30m "Remind me to stretch" --deliver sms', 'once, in 30 minutes, to the SMS home channel'],
        ['agent cron add 2026-03-01T08:00 "Happy birthday"', 'once at that time'],
      ],
      async run(ctx) {
        const skills = ((ctx.argv.skill as unknown[] | undefined) ?? []).filter((s): s is string | number => s !== undefined).flatMap((s) => String(s).split(','))
        const job = await createJob(jobs(), {
          schedule: String(ctx.argv.schedule ?? ''),
          prompt: String(ctx.argv.prompt ?? ''),
          name: ctx.argv.name as string | undefined,
          skills,
          deliver: String(ctx.argv.deliver ?? 'local'),
          createdBy: 'cli',
        })
        const view = jobView(job)
        if (ctx.argv.json) return void ctx.json(view)
        ctx.out(`added cron job ${job.id} "${job.name}": ${job.scheduleDisplay}, next run ${view.next_run_local} (${job.timezone})${job.skills.length ? `, skills ${job.skills.join(', ')}` : ''}, deliver ${job.deliver}`)
      },
    },
    remove: {
      description: 'Remove a job (and its run history)',
      args: '<job>',
      aliases: ['rm'],
      async run(ctx) {
        const j = jobs()
        const job = await findJob(j, String(ctx.argv.job))
        await j.store.remove(job.id)
        j.changed()
        ctx.out(`removed cron job ${job.id} "${job.name}"`)
      },
    },
    pause: {
      description: 'Stop a job from running until resumed',
      args: '<job>',
      async run(ctx) {
        const j = jobs()
        const job = await pauseJob(j, await findJob(j, String(ctx.argv.job)))
        ctx.out(`paused cron job ${job.id} "${job.name}"`)
      },
    },
    resume: {
      description: 'Resume a paused job (its next run is planned from now)',
      args: '<job>',
      async run(ctx) {
        const j = jobs()
        const job = await resumeJob(j, await findJob(j, String(ctx.argv.job)))
        ctx.out(`resumed cron job ${job.id} "${job.name}": next run ${jobView(job).next_run_local} (${job.timezone})`)
      },
    },
    run: {
      description: 'Run a job now, here, and deliver its result (the schedule is unchanged)',
      args: '<job>',
      options: { json },
      async run(ctx) {
        const j = jobs()
        const job = await findJob(j, String(ctx.argv.job))
        const runnerCtx = runner(ctx)
        const owner = `cli-${process.pid}`
        if (!(await j.store.claim(job, owner, runnerCtx.timeoutMs + 60_000))) throw new UsageError(`job ${job.id} is running right now; try again when it has finished`)
        const outcome = await runJob(runnerCtx, job, 'manual')
        if (ctx.argv.json) ctx.json(snakeCaseKeys({ job: job.id, ...outcome }))
        else {
          if (outcome.answer !== undefined) ctx.out(outcome.answer)
          for (const d of outcome.deliveries) ctx.err(d.ok ? `delivered to ${d.description}` : `delivery to ${d.target} failed: ${d.error}`)
          if (outcome.status === 'silent') ctx.err('the job answered [SILENT]: nothing delivered')
          if (outcome.error && outcome.deliveries.length === 0) ctx.err(`agent: job ${job.id} failed: ${outcome.error}`)
        }
        return outcome.status === 'error' ? 1 : 0
      },
    },
    runs: {
      description: 'Recent runs of one job, or of all jobs',
      args: '[job]',
      options: { limit: { type: 'number', default: 20, describe: 'How many' }, json },
      async run(ctx) {
        const j = jobs()
        const job = ctx.argv.job ? await findJob(j, String(ctx.argv.job)) : undefined
        const limit = Number(ctx.argv.limit)
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1-1000')
        const runs = await j.store.runs(job?.id, limit)
        if (ctx.argv.json) return void ctx.json(runs.map(runView))
        if (runs.length === 0) return void ctx.out('no runs yet')
        ctx.out(table([['RUN', 'JOB', 'STARTED', 'TRIGGER', 'STATUS', 'RESULT'], ...runs.map((r) => [String(r.id), r.jobId, new Date(r.startedAt).toISOString(), r.trigger, r.status, (r.error ?? r.answer ?? '').replace(/\s+/g, ' ').slice(0, 80)])]))
      },
    },
  }
}

export const SCHEDULE_HELP = FORMS
