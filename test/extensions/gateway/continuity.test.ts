// The gateway's continuity services in-process (fake adapter, real kernel with state.db): resume
// points persist across kernels, a backlog beyond its bound gets one notice per chat (never to a
// stranger), drops are logged at info and counted, the outbox keeps a deferred reply until the
// adapter is back and gives up a refused one with the chat and reason, and a message id is answered
// once across restarts. The store's tests run on both storage backends (SQLite state.db, PostgreSQL).

import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeEach, describe, test, type TestContext } from 'node:test'
import { AgentError, boundBacklog, DATABASE_SERVICE, type DatabaseService, STORAGE_SERVICE, type StorageBackend, type StorageService, DeliveryDeferred, DELIVERY_SERVICE, GATEWAY_SERVICE, isRetryableDelivery, type DeliveryService, type GatewayService } from '../../../sdk/index.ts'
import { backendSkip, createTestKernel, fakeAdapter, recordingRuntime, runGateway, STORAGE_BACKENDS, testStorage, type TestKernel, type TestStorage } from '../../../sdk/testing/index.ts'
import { PgContinuityStore } from '../../../extensions/gateway/continuity-store-pg.ts'
import { SqliteContinuityStore } from '../../../extensions/gateway/continuity-store-sqlite.ts'
import { Outbox } from '../../../extensions/gateway/outbox.ts'
import { until } from '../../helpers/until.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db']

function home(t: TestContext): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-continuity-test-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** Each test's storage on the backend of its describe: one PostgreSQL database per test, kept across its kernels. */
const perTest = new WeakMap<TestContext, { storage: Promise<TestStorage>; kernels: TestKernel[] }>()
let backend: StorageBackend = 'sqlite'

function testState(t: TestContext) {
  let state = perTest.get(t)
  if (state) return state
  const drops: Array<() => unknown> = []
  const current = (state = { storage: testStorage({ after: (fn: () => unknown) => void drops.push(fn) } as unknown as TestContext, backend), kernels: [] as TestKernel[] })
  perTest.set(t, state)
  // The first `after` of the test (they run in order): its kernels close before their database is dropped.
  t.after(async () => {
    for (const k of current.kernels) await k.close()
    for (const drop of drops) await drop()
  })
  return state
}

async function kernel(t: TestContext, dir: string, fake = fakeAdapter(), config: Record<string, unknown> = {}) {
  const runtime = recordingRuntime()
  const state = testState(t)
  const storage = await state.storage
  const k = await createTestKernel({ home: dir, builtins: CORE, extensions: [fake.definition, runtime.definition], env: { GATEWAY_ALLOWED_USERS: 'u1' }, config: { ...storage.config, gateway: { reconnect: { initial_ms: 50, max_ms: 100 }, ...config } }, kernel: { logLevel: 'info', logSink: { write() {} } } })
  state.kernels.push(k)
  t.after(() => k.close())
  return { k, fake, runtime, gateway: k.kernel.services.require<GatewayService>(GATEWAY_SERVICE) }
}

test('boundBacklog keeps the newest N within the age bound, in input order', () => {
  const now = 1_000_000
  const messages = [{ receivedAt: now - 90_000 }, { receivedAt: now - 50_000 }, { receivedAt: now - 40_000 }, { receivedAt: now - 30_000 }, {}]
  const { answer, summarise } = boundBacklog(messages, { maxMessages: 2, maxAgeMs: 60_000 }, now)
  assert.deepEqual(answer, [messages[3], messages[4]])
  assert.deepEqual(summarise, [messages[0], messages[1], messages[2]])
  assert.deepEqual(boundBacklog(messages, { maxMessages: 0, maxAgeMs: 60_000 }, now).answer, [])
})

test('retryable delivery errors: DeliveryDeferred, retryable codes on the error or its cause; others are not', () => {
  assert.ok(isRetryableDelivery(new DeliveryDeferred('offline')))
  assert.ok(isRetryableDelivery(new AgentError('E_DELIVERY', 'wrapped', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) })))
  assert.ok(!isRetryableDelivery(new AgentError('E_DELIVERY', 'room is encrypted')))
  assert.ok(!isRetryableDelivery(new Error('plain')))
})

test('state.db: an answer to a prompt answered already is dropped; the outbox says so once', async (t) => {
  const k = await createTestKernel({ builtins: ['state-db'] })
  t.after(() => k.close())
  const store = new SqliteContinuityStore(() => k.kernel.services.require<DatabaseService>(DATABASE_SERVICE))
  const id = (await store.claim('telegram', 'm-1'))!
  await store.markPending(id, { platform: 'telegram', userId: 'u1', chatId: 'c1' }, 'hello')
  assert.ok(await store.enqueue({ platform: 'telegram', chatId: 'c1', text: 'first' }, id))
  assert.equal(await store.enqueue({ platform: 'telegram', chatId: 'c1', text: 'second' }, id), undefined)
  assert.deepEqual((await store.queued('telegram')).map((r) => r.text), ['first'])
  const lines: string[] = []
  const sent: string[] = []
  const adapter = { name: 'telegram', enabled: () => true, start: async () => {}, stop: async () => {}, send: async (_chat: string, text: string) => void sent.push(text) }
  const log = { debug() {}, info: (l: string) => void lines.push(l), warn() {}, error() {} }
  const outbox = new Outbox({ store, adapter: () => adapter, available: () => true, log, safe: (s) => s, describe: (p, c) => `${p}:${c}`, maxAttempts: 3, maxAgeMs: 60_000 })
  t.after(() => outbox.close())
  await outbox.deliver({ platform: 'telegram', chatId: 'c1', text: 'third' }, id)
  await outbox.flush('telegram', true)
  assert.deepEqual(sent, ['first'])
  assert.match(lines.join('\n'), /a reply on telegram was not queued: its prompt was answered already/)
})

for (const each of STORAGE_BACKENDS) {
  describe(`continuity store [${each}]`, { skip: backendSkip(each) }, () => {
    // Tests of a describe run one after another: the backend is set before each.
    beforeEach(() => void (backend = each))
    test('a resume point persists across kernels; empty text is refused and changes nothing', async (t) => {
      const dir = home(t)
      const first = await kernel(t, dir)
      const point = first.gateway.resumePoint('fake')
      assert.equal(await point.get(), undefined)
      await point.set('s42_7')
      await assert.rejects(point.set(''), /must be non-empty text/)
      assert.equal(await point.get(), 's42_7')
      assert.equal(typeof (await point.savedAt()), 'number')
      await first.k.close()
      const second = await kernel(t, dir)
      assert.equal(await second.gateway.resumePoint('fake').get(), 's42_7')
      assert.equal(await second.gateway.resumePoint('other').get(), undefined)
      await second.gateway.resumePoint('fake').clear()
      assert.equal(await second.gateway.resumePoint('fake').get(), undefined)
    })

    test('catchUp: the newest N answered, older ones one notice per allowed chat, strangers told nothing, duplicates skipped', async (t) => {
      const { k, fake, runtime, gateway } = await kernel(t, home(t), fakeAdapter(), { backlog: { max_messages: 2, max_minutes: 60 } })
      const gw = await runGateway(k)
      t.after(() => gw.stop())
      const now = Date.now()
      const alice = { platform: 'fake', userId: 'u1', chatId: 'c1', chatType: 'dm' as const }
      const stranger = { platform: 'fake', userId: 'u9', chatId: 'c9', chatType: 'dm' as const }
      await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'seen before', 'x0')
      const result = await gateway.catchUp('fake', [
        { source: stranger, text: 'let me in', messageId: 'x1', receivedAt: now - 3 * 3_600_000 },
        { source: alice, text: 'very old', messageId: 'x2', receivedAt: now - 2 * 3_600_000 },
        { source: alice, text: 'old', messageId: 'x3', receivedAt: now - 50 * 60_000 },
        { source: alice, text: 'seen before', messageId: 'x0', receivedAt: now - 40 * 60_000 },
        { source: alice, text: 'recent one', messageId: 'x4', receivedAt: now - 20 * 60_000 },
        { source: alice, text: 'recent two', messageId: 'x5', receivedAt: now - 60_000 },
      ])
      assert.deepEqual(result, { dispatched: 2, summarised: 3, duplicates: 1 })
      await until(() => fake.sent.filter((s) => s.chatId === 'c1').length === 4, 10_000, () => JSON.stringify(fake.sent))
      const c1 = fake.sent.filter((s) => s.chatId === 'c1').map((s) => s.text)
      assert.equal(c1[0], 'echo: seen before')
      assert.match(c1[1]!, /^I was offline: 2 earlier messages here \(the oldest from \d{4}-\d\d-\d\d \d\d:\d\d UTC\) were not answered\. Please send again what still needs an answer\.$/)
      assert.deepEqual(c1.slice(2), ['echo: recent one', 'echo: recent two'])
      assert.equal(fake.sent.filter((s) => s.chatId === 'c9').length, 0, 'the stranger got no notice')
      assert.deepEqual(runtime.runs.map((r) => r.input), ['seen before', 'recent one', 'recent two'])
      // Summarised ids count as seen: delivered again, they are not answered either.
      assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'old', 'x3')).status, 'ignored')
      assert.ok(gw.lines.some((l) => /info.*dropped 2 fake message\(s\) from fake:c1: backlog beyond the bound/.test(l)), gw.lines.join('\n'))
      assert.equal(gateway.status().find((s) => s.name === 'fake')!.dropped, 3)
    })

    test('dropped: one info line with chat, id and reason; counted in status', async (t) => {
      const { k, gateway } = await kernel(t, home(t))
      const gw = await runGateway(k)
      t.after(() => gw.stop())
      gateway.dropped('fake', { reason: 'a DM from an uncached channel', chatId: '123', messageId: 'm9' })
      assert.ok(gw.lines.some((l) => l.includes('info') && l.includes('dropped a fake message from fake:123 (m9): a DM from an uncached channel')), gw.lines.join('\n'))
      assert.deepEqual(gateway.status().map((s) => [s.name, s.dropped, s.queued, s.failedDeliveries]), [['fake', 1, 0, 0]])
      // The status file `agent gateway status` reads gets the count within about a second.
      const file = join(k.home, 'gateway_state.json')
      await until(() => existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).adapters?.[0]?.dropped === 1, 5000, 'the count in gateway_state.json')
    })

    test('outbox: a refused send is given up at once with chat and reason; a deferred one waits for the reconnect', async (t) => {
      const fake = fakeAdapter()
      // The reconnect waits long enough for the turn to end with the adapter down, on either backend.
      const { k, gateway } = await kernel(t, home(t), fake, { reconnect: { initial_ms: 1000, max_ms: 1000 } })
      const gw = await runGateway(k)
      t.after(() => gw.stop())
      fake.loseConnection()
      const result = await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'answer me later', 'a1')
      await result.done
      assert.equal(fake.sent.length, 0)
      await until(() => fake.sent.length === 1, 10_000, () => gw.lines.join('\n'))
      assert.equal(fake.sent[0]!.text, 'echo: answer me later')
      assert.match(String(fake.sent[0]!.options?.idempotencyKey), /^\d+-\d+\.0$/)
      // A chat the adapter refuses for good: failed at once, logged with the chat and reason.
      fake.sendError = (chatId) => (chatId === 'gone' ? new AgentError('E_DELIVERY', 'no such chat') : undefined)
      await (await fake.inbound({ userId: 'u1', chatId: 'gone' }, 'hello?', 'a2')).done
      assert.ok(gw.lines.some((l) => /error.*gave up a reply to fake:gone after 1 attempt\(s\): no such chat/.test(l)), gw.lines.join('\n'))
      assert.equal(gateway.status()[0]!.failedDeliveries, 1)
    })

    test('the same message id is answered once, across a restart too', async (t) => {
      const dir = home(t)
      const fake = fakeAdapter()
      const first = await kernel(t, dir, fake)
      assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'once', 'id-1')).status, 'queued')
      assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'once', 'id-1')).status, 'ignored')
      await until(() => fake.sent.length === 1, 10_000, 'the answer')
      await first.k.close()
      await kernel(t, dir, fake)
      assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'once', 'id-1')).status, 'ignored')
      assert.equal(fake.sent.length, 1)
    })

    test('a delivery (cron, /background) the platform cannot take now waits in the outbox of a running gateway; elsewhere it fails', async (t) => {
      const fake = fakeAdapter()
      const { k } = await kernel(t, home(t), fake)
      const delivery = k.kernel.services.require<DeliveryService>(DELIVERY_SERVICE)
      fake.loseConnection()
      // No `gateway run` in this process: the caller gets the failure.
      await assert.rejects(delivery.send({ kind: 'chat', platform: 'fake', chatId: 'c1' }, 'from a CLI'), /not connected/)
      const gw = await runGateway(k)
      t.after(() => gw.stop())
      fake.loseConnection()
      const receipt = await delivery.send({ kind: 'chat', platform: 'fake', chatId: 'c1' }, 'cron result')
      assert.equal(receipt.queued, true)
      assert.equal(receipt.description, 'fake:c1 (queued)')
      await until(() => fake.sent.some((s) => s.text === 'cron result'), 10_000, () => gw.lines.join('\n'))
      assert.equal(fake.sent.filter((s) => s.text === 'cron result').length, 1)
      // Sent at once when the platform takes it.
      assert.equal((await delivery.send({ kind: 'chat', platform: 'fake', chatId: 'c1' }, 'direct')).queued, undefined)
    })
  })
}

describe('two instances on one PostgreSQL database', { skip: backendSkip('postgres') }, () => {
  async function twoStores(t: TestContext) {
    const storage = await testStorage(t, 'postgres')
    const kernels = await Promise.all([0, 1].map(() => createTestKernel({ builtins: ['state-db'], config: storage.config })))
    t.after(async () => {
      for (const k of kernels) await k.close()
    })
    return kernels.map((k) => new PgContinuityStore(() => k.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres()))
  }

  test('a message id is claimed by one instance; the resume point and pending prompts are shared', async (t) => {
    const [a, b] = await twoStores(t)
    const claims = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a! : b!).claim('telegram', 'm-1')))
    assert.equal(claims.filter((id) => id !== undefined).length, 1, JSON.stringify(claims))
    assert.equal(await a!.seen('telegram', 'm-1'), true)
    assert.notEqual(await a!.claim('telegram', 'm-2'), undefined, 'a look-alike id is new')
    await a!.setResume('telegram', '42:1001')
    assert.equal((await b!.resume('telegram'))?.cursor, '42:1001', 'the instance taking over reads it')
    const id = (await a!.claim('telegram', 'm-3'))!
    await a!.markPending(id, { platform: 'telegram', userId: 'u1', chatId: 'c1' }, 'hello')
    const other = (await a!.claim('sms', 's-1'))!
    await a!.markPending(other, { platform: 'sms', userId: 'u2', chatId: 'c2' }, 'hi')
    assert.deepEqual((await b!.pendingPrompts(['telegram'])).map((p) => [p.id, p.text]), [[id, 'hello']], 'only the platforms asked for')
    assert.equal((await b!.pendingPrompts()).length, 2)
  })

  test('a prompt both instances ran (its adapter moved mid-turn) gets the first answer only', async (t) => {
    const [a, b] = await twoStores(t)
    const id = (await a!.claim('telegram', 'm-9'))!
    await a!.markPending(id, { platform: 'telegram', userId: 'u1', chatId: 'c1' }, 'hello')
    const answers = await Promise.all([a!.enqueue({ platform: 'telegram', chatId: 'c1', text: 'from a' }, id), b!.enqueue({ platform: 'telegram', chatId: 'c1', text: 'from b' }, id)])
    assert.equal(answers.filter(Boolean).length, 1, 'one answer queued, the other dropped')
    assert.deepEqual((await a!.queued('telegram')).map((r) => r.text), [answers[0] ? 'from a' : 'from b'])
    assert.deepEqual(await b!.pendingPrompts(), [])
    assert.ok(await a!.enqueue({ platform: 'telegram', chatId: 'c1', text: 'a second part' }), 'replies that settle nothing are queued as always')
  })

  test('outbox drains of two instances send every row once', async (t) => {
    const [a, b] = await twoStores(t)
    const sent: string[] = []
    const adapter = { name: 'sms', enabled: () => true, start: async () => {}, stop: async () => {}, send: async (_chat: string, text: string) => void (await new Promise((r) => setTimeout(r, 5)), sent.push(text)) }
    const outbox = (store: PgContinuityStore) =>
      new Outbox({ store, adapter: () => adapter, available: () => true, log: { debug() {}, info() {}, warn() {}, error() {} }, safe: (s) => s, describe: (p, c) => `${p}:${c}`, maxAttempts: 3, maxAgeMs: 60_000 })
    const [oa, ob] = [outbox(a!), outbox(b!)]
    t.after(() => (oa.close(), ob.close()))
    for (let i = 0; i < 10; i++) await (i % 2 ? a! : b!).enqueue({ platform: 'sms', chatId: `c${i % 3}`, text: `reply ${i}` })
    await Promise.all([oa.flush('sms', true), ob.flush('sms', true), oa.flush('sms', true), ob.flush('sms', true)])
    assert.deepEqual([...sent].sort(), Array.from({ length: 10 }, (_, i) => `reply ${i}`).sort())
    assert.deepEqual(await a!.queued('sms'), [])
  })
})
