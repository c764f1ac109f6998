// Cron's store on SQLite and on PostgreSQL, the same assertions on both: jobs added, found, paused
// and removed; a claim refused while a lease is held or once the occurrence has moved on (and taken
// when neither holds); runs recorded, a one-shot ended, old runs pruned; stale leases freed. Two
// kernels on one database race to claim the same due occurrence many times: exactly one wins each.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { parseSchedule } from '../../../extensions/cron/schedule.ts'
import { KEEP_RUNS, type CronStore, type NewJob } from '../../../extensions/cron/store.ts'
import { cleanupStack, storeOf } from './backend.ts'

const HOUR = 3_600_000
const newJob = (over: Partial<NewJob> = {}): NewJob => ({ prompt: 'check the build', schedule: parseSchedule('every 1h', 'UTC'), skills: ['alpha'], deliver: 'log', createdBy: 'cli', nextRunAt: Date.now() + HOUR, ...over })

for (const backend of STORAGE_BACKENDS) {
  describe(`cron store [${backend}]`, { skip: backendSkip(backend) }, () => {
    /** `count` stores, each in its own kernel, on one database (SQLite: one state.db; PostgreSQL: separate homes). */
    async function stores(t: TestContext, count = 1): Promise<CronStore[]> {
      const cleanup = cleanupStack(t)
      const storage = await testStorage(cleanup, backend)
      const out: CronStore[] = []
      let home: string | undefined
      for (let i = 0; i < count; i++) {
        const k = await createTestKernel({ builtins: ['state-db', 'storage'], config: storage.config, ...(backend === 'sqlite' && home ? { home } : {}) })
        home ??= k.home
        cleanup.after(() => k.close())
        out.push(storeOf(k))
      }
      return out
    }

    test('jobs: added, found by id or name, listed, paused, resumed and removed', async (t) => {
      const [store] = (await stores(t)) as [CronStore]
      const due = Date.now() + HOUR
      const a = await store.add(newJob({ name: ' nightly ', nextRunAt: due, origin: { platform: 'fake', chatId: 'c1' } }))
      assert.deepEqual([a.name, a.scheduleKind, a.intervalMs, a.skills, a.deliver, a.enabled, a.nextRunAt, a.anchorAt, a.runCount], ['nightly', 'interval', HOUR, ['alpha'], 'log', true, due, due, 0])
      assert.deepEqual(a.origin, { platform: 'fake', chatId: 'c1' })
      const b = await store.add(newJob({ prompt: 'a   long\nprompt', schedule: parseSchedule('30m', 'UTC'), nextRunAt: due + 1000 }))
      assert.equal(b.name, 'a long prompt', 'named from the prompt')
      assert.equal(typeof b.runAt, 'number')
      assert.deepEqual(await store.get(a.id), a)
      assert.deepEqual((await store.named('nightly')).map((j) => j.id), [a.id])
      assert.deepEqual(await store.named('nope'), [])
      assert.deepEqual((await store.list()).map((j) => j.id), [a.id, b.id])
      assert.equal(await store.count(), 2)
      assert.equal(await store.nextDue(), due)
      assert.deepEqual((await store.due(due)).map((j) => j.id), [a.id])
      assert.deepEqual(await store.due(due - 1), [])

      await store.setPaused(a.id, true, null)
      const paused = (await store.get(a.id))!
      assert.deepEqual([paused.enabled, paused.nextRunAt, typeof paused.pausedAt], [false, undefined, 'number'])
      assert.deepEqual((await store.due(due + 5000)).map((j) => j.id), [b.id], 'a paused job is never due')
      await store.setPaused(a.id, false, due + 2 * HOUR)
      assert.deepEqual([(await store.get(a.id))!.enabled, (await store.get(a.id))!.nextRunAt], [true, due + 2 * HOUR])

      assert.equal(await store.remove(a.id), true)
      assert.equal(await store.remove(a.id), false)
      assert.equal(await store.get(a.id), undefined)
      assert.equal(await store.count(), 1)
    })

    test('claim: refused while a lease is held or once the occurrence moved on; taken otherwise; a manual one keeps the plan', async (t) => {
      const [store] = (await stores(t)) as [CronStore]
      const due = Date.now() - 1000
      const job = await store.add(newJob({ nextRunAt: due }))
      assert.equal(await store.claim(job, 'x', 60_000, { dueAt: due - 1, nextRunAt: due + HOUR }, Date.now()), false, 'planned for another time')
      assert.equal(await store.claim(job, 'x', 60_000, { dueAt: due, nextRunAt: due + HOUR }, Date.now()), true, 'due as seen, no lease')
      const held = (await store.get(job.id))!
      assert.equal(held.nextRunAt, due + HOUR)
      assert.ok(held.leaseUntil! > Date.now() + 50_000)
      assert.equal(await store.claim(held, 'y', 60_000, { dueAt: due + HOUR, nextRunAt: due + 2 * HOUR }, Date.now()), false, 'the lease is held')
      assert.equal(await store.claim(held, 'y', 60_000), false, 'a manual run waits for the lease too')
      const run = await store.startRun(job.id, 'schedule', due)
      await store.finishRun(run, job, { status: 'ok', answer: 'done' })
      // The lease is free now, but the occurrence `job` saw has run: a late claimer gets nothing.
      assert.equal(await store.claim(job, 'late', 60_000, { dueAt: due, nextRunAt: due + HOUR }, Date.now()), false)
      // A manual run from a snapshot older than that run leaves the plan alone (no re-run of `due`).
      assert.equal(await store.claim(job, 'manual', 60_000), true, 'a manual run when free')
      assert.equal((await store.get(job.id))!.nextRunAt, due + HOUR)
      assert.deepEqual(await store.due(Date.now()), [])
    })

    test('runs: recorded, the lease freed, a one-shot ended, old runs pruned', async (t) => {
      const [store] = (await stores(t)) as [CronStore]
      const once = await store.add(newJob({ schedule: parseSchedule('30m', 'UTC'), nextRunAt: Date.now() - 10 }))
      assert.equal(await store.claim(once, 'x', 60_000, { dueAt: once.nextRunAt!, nextRunAt: null }, Date.now()), true)
      const id = await store.startRun(once.id, 'schedule', once.nextRunAt)
      assert.equal((await store.runs(once.id))[0]!.status, 'running')
      await store.finishRun(id, once, { status: 'ok', answer: 'hi', sessionId: 's1', delivery: [{ target: 'log', ok: true }] })
      const [run] = await store.runs(once.id)
      assert.deepEqual([run!.id, run!.status, run!.answer, run!.sessionId, run!.trigger, run!.scheduledFor, run!.delivery], [id, 'ok', 'hi', 's1', 'schedule', once.nextRunAt, [{ target: 'log', ok: true }]])
      assert.ok(run!.finishedAt! >= run!.startedAt)
      const ended = (await store.get(once.id))!
      assert.deepEqual([ended.enabled, ended.leaseUntil, ended.runCount, ended.lastStatus], [false, undefined, 1, 'ok'])

      const every = await store.add(newJob())
      for (let i = 0; i < KEEP_RUNS + 3; i++) await store.finishRun(await store.startRun(every.id, 'manual', undefined), every, { status: 'silent' })
      const kept = await store.runs(every.id, 1000)
      assert.equal(kept.length, KEEP_RUNS)
      assert.ok(kept[0]!.id > kept.at(-1)!.id, 'newest first, the oldest pruned')
      assert.equal((await store.get(every.id))!.enabled, true, 'a recurring job stays on')
      assert.equal((await store.runs(undefined, 5)).length, 5)
    })

    test('advance: records a skip or a miss once, only while the job is still planned as seen', async (t) => {
      const [a, b] = (await stores(t, 2)) as [CronStore, CronStore]
      const due = Date.now() - 1000
      const job = await a.add(newJob({ nextRunAt: due }))
      const seen = [(await a.get(job.id))!, (await b.get(job.id))!]
      const moved = await Promise.all([a.advance(seen[0]!, due + HOUR, 'skipped', 'busy'), b.advance(seen[1]!, due + HOUR, 'skipped', 'busy')])
      assert.equal(moved.filter(Boolean).length, 1, JSON.stringify(moved))
      assert.deepEqual((await a.runs(job.id)).map((r) => [r.status, r.error, r.scheduledFor]), [['skipped', 'busy', due]])
      const once = await a.add(newJob({ schedule: parseSchedule('30m', 'UTC'), nextRunAt: due }))
      assert.equal(await a.advance(once, null, 'missed', 'too late'), true)
      assert.deepEqual([(await a.get(once.id))!.enabled, (await a.get(once.id))!.lastStatus], [false, 'missed'], 'a missed one-shot is over')
    })

    test('stale leases are freed after they expire, and their runs marked interrupted; live ones stay', async (t) => {
      const [store] = (await stores(t)) as [CronStore]
      const stale = await store.add(newJob({ nextRunAt: Date.now() - 10 }))
      const live = await store.add(newJob({ nextRunAt: Date.now() - 10 }))
      assert.equal(await store.claim(stale, 'dead', 150), true)
      assert.equal(await store.claim(live, 'alive', 60_000), true)
      const staleRun = await store.startRun(stale.id, 'schedule', undefined)
      await store.startRun(live.id, 'schedule', undefined)
      assert.equal(await store.releaseStale(), 0, 'nothing has expired yet')
      await new Promise((r) => setTimeout(r, 400))
      assert.equal(await store.releaseStale(), 1)
      assert.equal(await store.releaseStale(), 0)
      const [run] = await store.runs(stale.id)
      assert.deepEqual([run!.id, run!.status, run!.error], [staleRun, 'error', 'interrupted (the agent stopped during the run)'])
      assert.equal((await store.runs(live.id))[0]!.status, 'running')
      assert.equal((await store.get(live.id))!.leaseUntil! > Date.now(), true)
      assert.equal(await store.claim(stale, 'next', 60_000), true, 'free again')
    })

    test('two instances racing for the same due occurrence: exactly one wins, every time', async (t) => {
      const [a, b] = (await stores(t, 2)) as [CronStore, CronStore]
      const start = Date.now() - 1000
      const { id } = await a.add(newJob({ nextRunAt: start }))
      const wins = { a: 0, b: 0 }
      for (let i = 0; i < 40; i++) {
        const due = start + i * HOUR
        const [seenA, seenB] = await Promise.all([a.get(id), b.get(id)])
        assert.equal(seenA!.nextRunAt, due)
        assert.equal(seenB!.nextRunAt, due)
        const now = Date.now()
        // Each goes first half the time (on SQLite, whose calls run one after the other, the second always loses).
        const claims = [() => a.claim(seenA!, 'a', 60_000, { dueAt: due, nextRunAt: due + HOUR }, now), () => b.claim(seenB!, 'b', 60_000, { dueAt: due, nextRunAt: due + HOUR }, now)]
        const won = i % 2 ? (await Promise.all([claims[1]!(), claims[0]!()])).reverse() : await Promise.all([claims[0]!(), claims[1]!()])
        assert.equal(won.filter(Boolean).length, 1, `occurrence ${i}: ${JSON.stringify(won)}`)
        const [winner, seen] = won[0] ? [a, seenA!] : [b, seenB!]
        wins[won[0] ? 'a' : 'b']++
        await winner.finishRun(await winner.startRun(id, 'schedule', due), seen, { status: 'ok' })
      }
      const runs = await a.runs(id, 1000)
      assert.equal(runs.length, 40, 'one run per occurrence')
      assert.deepEqual(new Set(runs.map((r) => r.scheduledFor)).size, 40)
      assert.equal((await b.get(id))!.runCount, 40)
      t.diagnostic(`wins: ${JSON.stringify(wins)}`)
    })
  })
}
