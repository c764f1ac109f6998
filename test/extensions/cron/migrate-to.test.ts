// Cron's PostgreSQL schema mirrors its SQLite one closely enough for `agent storage migrate-to` to
// copy it generically: jobs and runs read back from PostgreSQL exactly as they were in state.db, and
// the next run's id follows the copied ones.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { backendSkip, createTestKernel, makeTempHome, testStorage } from 'agent/sdk/testing'
import { parseSchedule } from '../../../extensions/cron/schedule.ts'
import { runAgent } from '../../helpers/agent-process.ts'
import { cleanupStack, storeOf } from './backend.ts'

test('agent storage migrate-to copies cron jobs and runs into PostgreSQL as they were', { skip: backendSkip('postgres') }, async (t) => {
  const cleanup = cleanupStack(t)
  const storage = await testStorage(cleanup, 'postgres')
  const home = makeTempHome()
  cleanup.after(() => rmSync(home, { recursive: true, force: true }))

  // A SQLite home with a recurring job (two runs, one missed), a finished one-shot and a paused job.
  const source = await createTestKernel({ builtins: ['state-db', 'storage', 'cron'], home })
  const local = storeOf(source)
  const due = Date.now() - 1000
  const every = await local.add({ name: 'hourly', prompt: 'check', schedule: parseSchedule('every 1h', 'UTC'), skills: ['a'], deliver: 'log', origin: { platform: 'fake', chatId: 'c' }, createdBy: 'agent', nextRunAt: due })
  assert.equal(await local.claim(every, 'x', 60_000, { dueAt: due, nextRunAt: due + 3_600_000 }), true)
  await local.finishRun(await local.startRun(every.id, 'schedule', due), every, { status: 'ok', answer: 'fine', sessionId: 's1', delivery: [{ target: 'log', ok: true }] })
  await local.advance((await local.get(every.id))!, due + 7_200_000, 'missed', 'gateway down')
  const once = await local.add({ prompt: 'once', schedule: parseSchedule('30m', 'UTC'), skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: due })
  assert.equal(await local.claim(once, 'x', 60_000, { dueAt: due, nextRunAt: null }), true)
  await local.finishRun(await local.startRun(once.id, 'schedule', due), once, { status: 'silent', answer: '[SILENT]' })
  const paused = await local.add({ prompt: 'paused', schedule: parseSchedule('0 9 * * *', 'Europe/Paris'), skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: due + 86_400_000 })
  await local.setPaused(paused.id, true, null)
  const jobs = await local.list()
  const runs = await local.runs(undefined, 100)
  await source.close()

  const migrate = await runAgent(['storage', 'migrate-to', storage.url!], { home, timeoutMs: 90_000 })
  assert.equal(migrate.code, 0, migrate.stderr)

  const target = await createTestKernel({ builtins: ['state-db', 'storage'], config: storage.config })
  cleanup.after(() => target.close())
  const shared = storeOf(target)
  assert.deepEqual(await shared.list(), jobs)
  assert.deepEqual(await shared.runs(undefined, 100), runs)
  assert.equal(runs.length, 3)
  const next = await shared.startRun(every.id, 'manual', undefined)
  assert.ok(next > Math.max(...runs.map((r) => r.id)), `run id ${next} after the copied ones`)
  assert.deepEqual((await shared.due(due + 7_200_000)).map((j) => j.id), [every.id], 'the plan carried over')
})
