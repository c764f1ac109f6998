// Adapter leases under the real lifecycle, on both storage backends: a long-lived adapter runs on
// the one instance holding `adapter:<name>` while the other waits on standby (naming the holder), an
// HTTP-intake adapter (`everyInstance`) runs on both, a graceful stop hands the adapter over at once,
// a failed renewal stops it at once and the other instance takes it when the lease expires. The
// gateway itself holds the lease of its adapter and releases it when it stops; on PostgreSQL the
// instance taking an adapter over answers the prompts its last holder left pending.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { GATEWAY_SERVICE, STORAGE_SERVICE, type GatewayAdapter, type GatewayService, type LeaseService, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, fakeAdapter, recordingRuntime, runGateway, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { leaseTimings } from '../../../extensions/gateway/adapter-lease.ts'
import { PgContinuityStore } from '../../../extensions/gateway/continuity-store-pg.ts'
import { AdapterLifecycle } from '../../../extensions/gateway/lifecycle.ts'
import { until } from '../../helpers/until.ts'

const silent = { debug() {}, info() {}, warn() {}, error() {} }
const TIMINGS = { ttlMs: 1500, renewMs: 500, retryMs: 375 }
/** Timers run late on a loaded machine: bounds allow this much more. */
const SLACK_MS = 1000

/** An adapter that counts its starts and stops and says whether it runs now. */
function counted(name: string, everyInstance = false) {
  const counts = { starts: 0, stops: 0, running: false }
  const adapter: GatewayAdapter = {
    name,
    everyInstance,
    enabled: () => true,
    async start() {
      counts.starts++
      counts.running = true
    },
    async stop() {
      counts.stops++
      counts.running = false
    },
  }
  return { adapter, counts }
}

/** One instance: its own lease holder and adapters; `failing` makes every lease call throw. */
function instance(t: TestContext, leases: LeaseService, k: Awaited<ReturnType<typeof createTestKernel>>) {
  const poll = counted('poll')
  const http = counted('http', true)
  const switchable = { failing: false }
  const wrapped: LeaseService = {
    holder: leases.holder,
    acquire: (name, ttl) => (switchable.failing ? Promise.reject(new Error('database unreachable')) : leases.acquire(name, ttl)),
    release: (name) => leases.release(name),
    holderOf: (name) => leases.holderOf(name),
  }
  const lifecycle = new AdapterLifecycle({
    list: () => [poll.adapter, http.adapter],
    settings: k.kernel.settings,
    services: { ...k.kernel.services, provide: () => undefined },
    log: silent,
    adapterLog: () => silent,
    backoff: { initialMs: 20, maxMs: 40 },
    leases: () => wrapped,
    leaseTimings: TIMINGS,
  })
  t.after(() => lifecycle.stopAll())
  const state = (name: string) => lifecycle.status().find((s) => s.name === name)
  return { lifecycle, poll: poll.counts, http: http.counts, switchable, state, holder: leases.holder }
}

test('lease timings: ttl/3 renewals, ttl/4 retries, a minimum of 3 s', () => {
  assert.deepEqual(leaseTimings(), { ttlMs: 8000, renewMs: 2666, retryMs: 2000 })
  assert.deepEqual(leaseTimings(1), { ttlMs: 3000, renewMs: 1000, retryMs: 750 })
})

for (const backend of STORAGE_BACKENDS) {
  describe(`adapter leases [${backend}]`, { skip: backendSkip(backend) }, () => {
    async function twoInstances(t: TestContext) {
      const storage = await testStorage(t, backend)
      // One home: on SQLite the two kernels share its state.db, as instances share PostgreSQL.
      const ka = await createTestKernel({ builtins: ['state-db'], config: storage.config })
      const kb = await createTestKernel({ builtins: ['state-db'], config: storage.config, home: ka.home })
      t.after(async () => {
        await kb.close()
        await ka.close()
      })
      const leases = (k: typeof ka) => k.kernel.services.require<StorageService>(STORAGE_SERVICE).leases
      return [instance(t, leases(ka), ka), instance(t, leases(kb), kb)] as const
    }

    test('one instance runs the adapter, the other waits on standby; HTTP intake runs on both; a stop hands it over', async (t) => {
      const [a, b] = await twoInstances(t)
      assert.deepEqual(await a.lifecycle.startAll(), [])
      assert.deepEqual(await b.lifecycle.startAll(), [])
      assert.equal(a.state('poll')?.state, 'running')
      assert.equal(b.state('poll')?.state, 'standby')
      assert.equal(b.poll.starts, 0, 'never started on standby')
      await until(() => b.state('poll')?.heldBy === a.holder, 5000, () => `the holder in ${JSON.stringify(b.state('poll'))}`)
      assert.deepEqual([a.http.running, b.http.running], [true, true], 'everyInstance: no lease')
      assert.equal(b.lifecycle.available('poll'), false, 'replies to it wait in the outbox')

      // Renewals keep it: three ttls later it is still A's alone.
      await new Promise((r) => setTimeout(r, TIMINGS.ttlMs * 3))
      assert.deepEqual([a.state('poll')?.state, b.state('poll')?.state, b.poll.starts], ['running', 'standby', 0])

      const stoppedAt = Date.now()
      await a.lifecycle.stopAll()
      assert.equal(a.poll.running, false)
      await until(() => b.state('poll')?.state === 'running', 6000, () => JSON.stringify(b.lifecycle.status()))
      assert.ok(Date.now() - stoppedAt < TIMINGS.retryMs + SLACK_MS, `released: taken at the next retry (${Date.now() - stoppedAt} ms)`)
      assert.equal(b.poll.starts, 1)
    })

    test('a failed renewal stops the adapter at once; the other instance takes it when the lease expires', async (t) => {
      const [a, b] = await twoInstances(t)
      await a.lifecycle.startAll()
      await b.lifecycle.startAll()
      assert.equal(b.state('poll')?.state, 'standby')
      const failedAt = Date.now()
      a.switchable.failing = true
      await until(() => !a.poll.running, 5000, 'the adapter stopped on A')
      assert.ok(Date.now() - failedAt <= TIMINGS.renewMs + SLACK_MS, 'at the first failed renewal')
      assert.equal(a.state('poll')?.state, 'standby')
      assert.match(a.state('poll')?.lastError ?? '', /lost its lease: the renewal failed: database unreachable/)
      await until(() => b.state('poll')?.state === 'running', 6000, () => JSON.stringify(b.lifecycle.status()))
      assert.ok(Date.now() - failedAt <= TIMINGS.ttlMs + TIMINGS.retryMs + SLACK_MS, `within ttl + a retry (${Date.now() - failedAt} ms)`)
      assert.equal(a.http.running, true, 'HTTP intake is not affected')
      // A comes back but B holds it: A stays on standby and never runs it beside B.
      a.switchable.failing = false
      await new Promise((r) => setTimeout(r, TIMINGS.ttlMs * 2))
      assert.deepEqual([a.state('poll')?.state, a.poll.running, b.poll.running], ['standby', false, true])
    })
  })
}

test('gateway run holds the lease of its long-lived adapter, reports it, and releases it when it stops', async (t) => {
  const fake = fakeAdapter()
  const k = await createTestKernel({ builtins: ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db'], extensions: [fake.definition] })
  t.after(() => k.close())
  const leases = k.kernel.services.require<StorageService>(STORAGE_SERVICE).leases
  const gw = await runGateway(k)
  assert.equal((await leases.holderOf('adapter:fake'))?.holder, leases.holder)
  assert.equal(k.kernel.services.require<GatewayService>(GATEWAY_SERVICE).status()[0]?.state, 'running')
  await gw.stop()
  assert.equal(await leases.holderOf('adapter:fake'), undefined, 'released on a graceful stop')
})

test('PostgreSQL: taking an adapter over replays the prompts its last holder left unanswered, of that adapter only', { skip: backendSkip('postgres') }, async (t) => {
  const drops: Array<() => unknown> = []
  const storage = await testStorage({ after: (fn: () => unknown) => void drops.push(fn) } as unknown as TestContext, 'postgres')
  const instance = async () => {
    const fake = fakeAdapter()
    const k = await createTestKernel({ builtins: ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db'], extensions: [fake.definition, recordingRuntime().definition], env: { GATEWAY_ALLOWED_USERS: 'u1' }, config: { ...storage.config, gateway: { lease_seconds: 3 } } })
    return { fake, k, gw: await runGateway(k) }
  }
  const a = await instance()
  const b = await instance()
  t.after(async () => {
    for (const x of [b, a]) {
      await x.gw.stop()
      await x.k.close()
    }
    for (const drop of drops) await drop()
  })
  assert.equal(b.k.kernel.services.require<GatewayService>(GATEWAY_SERVICE).status()[0]?.state, 'standby')
  // What a holder killed mid-turn leaves behind: prompts recorded as pending, for its adapter and another.
  const store = new PgContinuityStore(() => a.k.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres())
  const source = { platform: 'fake', userId: 'u1', chatId: 'c1', chatType: 'dm' as const }
  await store.markPending((await store.claim('fake', 'cut-1'))!, source, 'answer me after the takeover')
  await store.markPending((await store.claim('sms', 'cut-2'))!, { ...source, platform: 'sms' }, 'not yours')
  await a.gw.stop()
  await until(() => b.fake.sent.some((s) => s.text === 'echo: answer me after the takeover'), 10_000, () => JSON.stringify(b.fake.sent))
  assert.equal(a.fake.sent.length, 0)
  assert.deepEqual((await store.pendingPrompts()).map((p) => p.text), ['not yours'], 'an adapter it does not hold is left to its holder')
})
