// Two real `agent gateway run` processes, each with its own home, sharing only a PostgreSQL
// database: one-shot jobs due at the same instant (both schedulers wake for it and race to claim
// it) each run exactly once — one run row, one model request — not once per gateway.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import YAML from 'yaml'
import { backendSkip, createTestKernel, lastUser, makeTempHome, startScriptedModel, testStorage } from 'agent/sdk/testing'
import { parseSchedule } from '../../../extensions/cron/schedule.ts'
import { jsonOf, runAgent, startAgent, type RunningAgent } from '../../helpers/agent-process.ts'
import { untilValue } from '../../helpers/until.ts'
import { cleanupStack, storeOf } from './backend.ts'

const JOBS = ['report alpha', 'report beta', 'report gamma', 'report delta']

test('a job due once runs once across two gateways on one database', { skip: backendSkip('postgres') }, async (t) => {
  const cleanup = cleanupStack(t)
  const storage = await testStorage(cleanup, 'postgres')
  // A little slow, so a run is still going when the other gateway's tick looks at the job.
  const model = await startScriptedModel({ respond: (body) => ({ text: `done: ${lastUser(body)}`, delayMs: 300 }) })
  cleanup.after(() => model.close())
  const env = { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test-key', AGENT_MODEL: 'scripted-model', WEBHOOK_PORT: '0', API_SERVER_PORT: '0' }
  const homes = [makeTempHome(), makeTempHome()]
  cleanup.after(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })))
  for (const home of homes) writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, ...storage.config, cron: { timezone: 'UTC', poll_seconds: 1 } }))

  const gateways: RunningAgent[] = homes.map((home) => startAgent(['gateway', 'run'], { home, env, logLevel: 'info' }))
  cleanup.after(async () => {
    for (const gateway of gateways) await gateway.stop('SIGKILL')
  })
  const logs = () => gateways.map((g, i) => `--- gateway ${i}\n${g.stderr().slice(-3000)}`).join('\n')
  await Promise.all(gateways.map((g) => g.waitFor(/cron scheduler started/, 60_000)))

  // The jobs are added through a third kernel on the same database (a CLI process per job is too
  // slow on a busy machine to land them all before they are due). Due to the second, a few seconds
  // on: each scheduler sees them by its next poll and sleeps until exactly that instant, so both
  // wake for them together.
  const adder = await createTestKernel({ builtins: ['state-db', 'storage'], config: storage.config })
  cleanup.after(() => adder.close())
  const due = Math.ceil((Date.now() + 6_000) / 1000) * 1000
  for (const [i, prompt] of JOBS.entries()) {
    await storeOf(adder).add({ name: `job-${i}`, prompt, schedule: parseSchedule(new Date(due).toISOString(), 'UTC'), skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: due })
  }
  assert.ok(Date.now() < due - 1_500, `the jobs were added too late to race (${due - Date.now()} ms before due)`)
  const ran = (prompt: string) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && lastUser(r.body) === prompt).length
  await untilValue('every job to run', () => JOBS.every((p) => ran(p) > 0), 30_000).catch((error) => assert.fail(`${error.message}\n${logs()}`))
  // Several more ticks of both schedulers: nothing runs a second time.
  await sleep(3_000)
  assert.deepEqual(JOBS.map(ran), JOBS.map(() => 1), logs())

  const runs = jsonOf(await runAgent(['cron', 'runs', '--json'], { home: homes[1]!, env, logLevel: 'error' }))
  assert.equal(runs.length, JOBS.length, JSON.stringify(runs))
  assert.deepEqual(new Set(runs.map((r: any) => r.job_id)).size, JOBS.length, 'one run per job')
  for (const run of runs) assert.deepEqual([run.status, run.trigger, run.scheduled_for], ['ok', 'schedule', new Date(due).toISOString()])
  const jobs = jsonOf(await runAgent(['cron', 'list', '--json'], { home: homes[0]!, env, logLevel: 'error' }))
  assert.deepEqual(jobs.map((j: any) => [j.state, j.runs]), JOBS.map(() => ['done', 1]))
  // Who ran what (both usually win some): the logs' lines add up to one per job.
  const wins = gateways.map((g) => (g.stderr().match(/cron job \w+ \(job-\d\): ok/g) ?? []).length)
  assert.equal(wins[0]! + wins[1]!, JOBS.length, logs())
  t.diagnostic(`runs per gateway: ${wins.join(' + ')}`)
})
