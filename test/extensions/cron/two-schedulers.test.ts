// Two running agents (gateway mode, each with its scheduler polling every second) on one database,
// on SQLite (one state.db) and on PostgreSQL (separate homes): each occurrence of a recurring job
// runs once, and an occurrence that comes due while the previous run is still going is recorded as
// skipped once, not once per scheduler.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { backendSkip, createTestKernel, lastUser, STORAGE_BACKENDS, startScriptedModel, testStorage, type TestKernel } from 'agent/sdk/testing'
import { parseSchedule } from '../../../extensions/cron/schedule.ts'
import { untilValue } from '../../helpers/until.ts'
import { cleanupStack, makeDue, storeOf } from './backend.ts'

const BUILTINS = ['state-db', 'storage', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'cron']

for (const backend of STORAGE_BACKENDS) {
  describe(`two schedulers on one database [${backend}]`, { skip: backendSkip(backend) }, () => {
    async function twoAgents(t: TestContext) {
      const cleanup = cleanupStack(t)
      const storage = await testStorage(cleanup, backend)
      const model = await startScriptedModel({ respond: (body) => ({ text: `done: ${lastUser(body)}`, delayMs: lastUser(body).includes('slow') ? 4_000 : 0 }) })
      cleanup.after(() => model.close())
      const agents: TestKernel[] = []
      for (let i = 0; i < 2; i++) {
        const k = await createTestKernel({
          builtins: BUILTINS,
          config: { ...storage.config, cron: { timezone: 'UTC', poll_seconds: 1 } },
          env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
          ...(backend === 'sqlite' && agents[0] ? { home: agents[0].home } : {}),
        })
        cleanup.after(() => k.close())
        for (const info of k.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
        await k.kernel.start('gateway')
        agents.push(k)
      }
      const calls = (prompt: string) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && lastUser(r.body) === prompt).length
      return { agents, store: storeOf(agents[0]!), calls }
    }
    // Due a moment ahead: both schedulers see it at their next poll and wake for it together.
    const soon = () => Date.now() + 1_500

    test('each occurrence of a recurring job runs once', async (t) => {
      const { agents, store, calls } = await twoAgents(t)
      const job = await store.add({ prompt: 'hourly check', schedule: parseSchedule('every 1h', 'UTC'), skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: Date.now() + 3_600_000 })
      for (let i = 1; i <= 3; i++) {
        await makeDue(agents[i % 2]!, job.id, soon())
        await untilValue(`run ${i}`, async () => (await store.runs(job.id, 100)).filter((r) => r.status === 'ok').length === i, 15_000)
      }
      await sleep(2_500)
      const runs = await store.runs(job.id, 100)
      assert.deepEqual(runs.map((r) => r.status), ['ok', 'ok', 'ok'])
      assert.equal(calls('hourly check'), 3)
      assert.ok((await store.get(job.id))!.nextRunAt! > Date.now() + 59 * 60_000, 'planned an hour on')
    })

    test('an occurrence due while the previous run still goes is skipped once', async (t) => {
      const { agents, store, calls } = await twoAgents(t)
      const job = await store.add({ prompt: 'slow report', schedule: parseSchedule('every 1h', 'UTC'), skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: Date.now() + 3_600_000 })
      await makeDue(agents[0]!, job.id, soon())
      await untilValue('the first run to start', () => calls('slow report') === 1, 15_000)
      await makeDue(agents[1]!, job.id, soon())
      await untilValue('the run to finish', async () => (await store.runs(job.id, 100)).some((r) => r.status === 'ok'), 15_000)
      await sleep(1_500)
      const runs = await store.runs(job.id, 100)
      assert.deepEqual(runs.map((r) => r.status).sort(), ['ok', 'skipped'])
      assert.equal(calls('slow report'), 1)
    })
  })
}
