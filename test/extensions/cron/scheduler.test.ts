// The scheduler in a running kernel (gateway mode) with the real runtime, state.db, skills and
// delivery service, a scripted model and an in-memory platform adapter as the delivery target:
// jobs made by the agent's tool deliver to their chat, [SILENT] is not sent, missed runs beyond
// the grace are recorded (not run), a catch-up runs once, a job never overlaps itself, a run that
// takes too long is stopped, and invalid input is refused. On SQLite and on PostgreSQL.

import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { AgentError, type ToolDefinition } from 'agent/sdk'
import { backendSkip, createTestKernel, fakeAdapter, lastUser, STORAGE_BACKENDS, startScriptedModel, type FakeAdapter, type ScriptedModelServer, type TestKernel } from 'agent/sdk/testing'
import { untilValue } from '../../helpers/until.ts'
import { makeDue as makeDueIn, storeOf, suiteStorage } from './backend.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const until = <T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000) => untilValue(what, probe, timeoutMs)

for (const backend of STORAGE_BACKENDS) {
  describe(`cron scheduler (in a running agent) [${backend}]`, { skip: backendSkip(backend) }, () => {
    let t: TestKernel
    let model: ScriptedModelServer
    let fake: FakeAdapter
    let storage: Awaited<ReturnType<typeof suiteStorage>>
    const tool = () => t.kernel.registries.tools.get('cronjob') as ToolDefinition
    const callTool = (input: unknown, source: { platform: string; chatId?: string; userId?: string } = { platform: 'fake', chatId: 'chat-1', userId: 'u1' }) =>
      tool().execute({ input, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: t.home, source } }) as any
    const runsOf = async (id: string) => (await storeOf(t).runs(id, 1000)).reverse()
    const job = (id: string) => storeOf(t).get(id)
    const modelCalls = (prompt: string) => model.requests.filter((r) => r.path.endsWith('/chat/completions') && lastUser(r.body) === prompt).length
    const makeDue = (id: string, at = Date.now()) => makeDueIn(t, id, at)

    before(async () => {
      model = await startScriptedModel({
        respond: (body) => {
          const prompt = lastUser(body)
          if (prompt.includes('quiet')) return { text: '[SILENT]' }
          if (prompt.includes('slow')) return { text: 'slow answer', delayMs: 2_500 }
          if (prompt.includes('stuck')) return { text: 'too late', delayMs: 8_000 }
          return { text: `answer to: ${prompt}` }
        },
      })
      fake = fakeAdapter({ name: 'fake' })
      storage = await suiteStorage(backend)
      t = await createTestKernel({
        builtins: ['state-db', 'storage', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'skills', 'delivery', 'cron'],
        extensions: [fake.definition],
        config: { ...storage.config, cron: { timezone: 'UTC', poll_seconds: 1, missed_run_grace_minutes: 30, run_timeout_minutes: 0.05 } },
        env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
      })
      for (const info of t.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
      await t.kernel.start('gateway')
    })
    after(async () => {
      await t?.close()
      await model?.close()
      await storage?.drop()
    })

    it('the agent schedules a job with its tool; the result goes back to the chat it came from', async () => {
      const created = (await callTool({ action: 'create', schedule: 'every 1h', prompt: 'status of the build', name: 'build' })).created
      assert.equal(created.deliver, 'origin')
      assert.equal(created.created_by, 'agent')
      await makeDue(created.id)
      await until('the delivery', () => fake.sent.find((m) => m.text === 'answer to: status of the build'))
      assert.deepEqual(fake.sent.find((m) => m.text === 'answer to: status of the build'), { chatId: 'chat-1', text: 'answer to: status of the build' })
      await until('the run record', async () => (await runsOf(created.id)).find((r) => r.status === 'ok'))
      const after = (await job(created.id))!
      assert.ok(after.nextRunAt! > Date.now() + 59 * 60_000, 'planned an hour on')
      assert.deepEqual((await callTool({ action: 'list' })).jobs.map((j: any) => j.id), [created.id])
    })

    it('refuses bad input from the tool, and jobs made inside a job', async () => {
      await assert.rejects(async () => callTool({ action: 'create', schedule: 'sometimes', prompt: 'x' }), (e: unknown) => AgentError.isInstance(e) && /is not a schedule/.test(e.message))
      await assert.rejects(async () => callTool({ action: 'create', schedule: 'every 1h', prompt: 'x', skills: ['nope'] }), /unknown skill: nope/)
      await assert.rejects(async () => callTool({ action: 'create', schedule: 'every 1h', prompt: 'x', deliver: 'mars:1' }), /no platform adapter named "mars"/)
      await assert.rejects(async () => callTool({ action: 'create', schedule: 'every 1h', prompt: 'x' }, { platform: 'cron', chatId: 'j' }), /cannot create more jobs/)
      await assert.rejects(async () => callTool({ action: 'pause', job_id: 'missing' }), /no cron job "missing"/)
    })

    it('a [SILENT] answer is recorded and not delivered', async () => {
      const { created } = await callTool({ action: 'create', schedule: 'every 1h', prompt: 'stay quiet unless needed' })
      const sentBefore = fake.sent.length
      await makeDue(created.id)
      const run = await until('the silent run', async () => (await runsOf(created.id)).find((r) => r.status !== 'running'))
      assert.equal(run.status, 'silent')
      assert.equal(fake.sent.length, sentBefore)
    })

    it('a run missed by more than the grace period is recorded as missed, not run', async () => {
      const { created } = await callTool({ action: 'create', schedule: '0 6 * * *', prompt: 'missed morning report' })
      await makeDue(created.id, Date.now() - 2 * 3_600_000)
      const run = await until('the missed record', async () => (await runsOf(created.id))[0])
      assert.equal(run.status, 'missed')
      assert.match(run.error!, /beyond the 30 min grace/)
      assert.ok((await job(created.id))!.nextRunAt! > Date.now())
      await sleep(1_500)
      assert.equal(modelCalls('missed morning report'), 0)
    })

    it('several missed occurrences within the grace make one catch-up run', async () => {
      const { created } = await callTool({ action: 'create', schedule: 'every 5m', prompt: 'catch up once' })
      await makeDue(created.id, Date.now() - 17 * 60_000)
      await until('the catch-up run', async () => (await runsOf(created.id)).find((r) => r.status === 'ok'))
      await sleep(2_000)
      const runs = await runsOf(created.id)
      assert.deepEqual(runs.map((r) => [r.trigger, r.status]), [['catch-up', 'ok']])
      assert.equal(modelCalls('catch up once'), 1)
      const next = (await job(created.id))!.nextRunAt!
      assert.ok(next > Date.now() && next <= Date.now() + 5 * 60_000, 'the next run keeps the 5-minute rhythm')
    })

    it('a job never overlaps itself: a run due while the previous one is still going is skipped', async () => {
      const { created } = await callTool({ action: 'create', schedule: 'every 1h', prompt: 'slow job' })
      await makeDue(created.id)
      await until('the first run to start', () => modelCalls('slow job') === 1)
      await makeDue(created.id)
      await until('the skip record', async () => (await runsOf(created.id)).find((r) => r.status === 'skipped'))
      await until('the first run to finish', async () => (await runsOf(created.id)).find((r) => r.status === 'ok'))
      assert.equal(modelCalls('slow job'), 1)
      assert.match((await runsOf(created.id)).find((r) => r.status === 'skipped')!.error!, /previous run was still running/)
    })

    it('a run longer than run_timeout is stopped and recorded as an error', async () => {
      const { created } = await callTool({ action: 'create', schedule: 'every 1h', prompt: 'stuck job' })
      const sentBefore = fake.sent.length
      await makeDue(created.id)
      const run = await until('the timed-out run', async () => (await runsOf(created.id)).find((r) => r.status !== 'running'), 20_000)
      assert.equal(run.status, 'error')
      assert.match(run.error!, /timed out after 3 s/)
      assert.equal(fake.sent.length, sentBefore)
      assert.equal((await job(created.id))!.leaseUntil, undefined, 'the lease is released')
    })

    it('pause, resume and remove through the tool', async () => {
      const { created } = await callTool({ action: 'create', schedule: 'every 2h', prompt: 'pausable' })
      const paused = (await callTool({ action: 'pause', job_id: created.id })).paused
      assert.equal(paused.state, 'paused')
      assert.equal(paused.next_run_at, null)
      const resumed = (await callTool({ action: 'resume', job_id: created.id })).resumed
      assert.equal(resumed.state, 'scheduled')
      assert.ok(Date.parse(resumed.next_run_at) > Date.now())
      assert.deepEqual(await callTool({ action: 'remove', job_id: created.id }), { removed: created.id })
      assert.equal(await job(created.id), undefined)
    })
  })
}
