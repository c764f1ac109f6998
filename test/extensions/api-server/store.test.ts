// The API server's stores on both backends, driven directly: a session head is claimed once however
// many claim it at once, a conversation is held by one request at a time, and an idempotency key by
// one run (a second is in flight, another body reused, the answer replayed once settled, a failed
// run frees it). On PostgreSQL "at once" is two instances: two kernels, each its own pool, on one
// database; an in-flight key its instance stopped renewing is free again.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type Services, type StorageService } from '../../../sdk/index.ts'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage, type TestKernel } from '../../../sdk/testing/index.ts'
import { createIdempotencyStore, type IdempotencyStore } from '../../../extensions/api-server/idempotency.ts'
import { IN_FLIGHT_STALE_MS } from '../../../extensions/api-server/idempotency-pg.ts'
import { createApiStore, type ApiStoreService } from '../../../extensions/api-server/store.ts'

const CAPACITY = 12
const OPTIONS = { capacity: CAPACITY, onFlushError: () => {}, redactor: () => (text: string) => text }
const answer = { status: 200, contentType: 'application/json; charset=utf-8', sessionId: 'sess-1', body: '{"ok":true}' }

for (const backend of STORAGE_BACKENDS) {
  describe(`api-server stores [${backend}]`, { skip: backendSkip(backend) }, () => {
    /** Two instances' stores: on PostgreSQL two kernels on one database; on SQLite one process's store twice. */
    async function instances(t: TestContext) {
      const cleanups: Array<() => Promise<void>> = []
      t.after(async () => {
        for (const fn of cleanups.reverse()) await fn()
      })
      const storage = await testStorage({ after: ((fn: () => Promise<void>) => void cleanups.push(fn)) as TestContext['after'] }, backend)
      const kernels: TestKernel[] = []
      for (let i = 0; i < (backend === 'postgres' ? 2 : 1); i++) {
        const k = await createTestKernel({ builtins: ['state-db'], config: storage.config })
        cleanups.push(() => k.close())
        kernels.push(k)
      }
      const stores: ApiStoreService[] = kernels.map((k) => createApiStore(k.kernel.services as Services, OPTIONS))
      const keys: IdempotencyStore[] = kernels.map((k) => createIdempotencyStore(k.kernel.services as Services, () => {}, OPTIONS.redactor))
      const pg = backend === 'postgres' ? kernels[0]!.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres() : undefined
      const count = async () =>
        pg
          ? Number((await pg.query<{ n: string }>('SELECT COUNT(*) AS n FROM api_server_responses'))[0]!.n)
          : (kernels[0]!.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().prepare('SELECT COUNT(*) AS n FROM api_server_responses').get() as { n: number }).n
      return { a: stores[0]!, b: stores.at(-1)!, keyA: keys[0]!, keyB: keys.at(-1)!, pg, count }
    }

    test('a head is claimed once, however many claim it at once; a peek takes nothing', async (t) => {
      const { a, b } = await instances(t)
      await a.setHead('resp_head1', 'sess-1')
      assert.equal(await b.peekHead('resp_head1'), 'sess-1')
      assert.equal(await a.peekHead('resp_head1'), 'sess-1', 'still there after a peek')
      const claims = await Promise.all([a.claimHead('resp_head1'), b.claimHead('resp_head1'), a.claimHead('resp_head1'), b.claimHead('resp_head1')])
      assert.deepEqual(claims.filter(Boolean), ['sess-1'], JSON.stringify(claims))
      assert.equal(await b.peekHead('resp_head1'), undefined)
      // A new head of the same session replaces its old one; another session's head stands.
      await a.setHead('resp_head2', 'sess-1')
      await a.setHead('resp_other', 'sess-2')
      await b.setHead('resp_head3', 'sess-1')
      // SQLite writes heads behind (one process owns them); what it keeps is the same once written.
      await a.flush()
      assert.deepEqual([await a.peekHead('resp_head2'), await a.peekHead('resp_head3'), await a.peekHead('resp_other')], [undefined, 'sess-1', 'sess-2'])
    })

    test('a response stored on one is read, listed and deleted on the other; its conversation lost', async (t) => {
      const { a, b } = await instances(t)
      await a.put({ id: 'resp_1', response: { id: 'resp_1', status: 'completed' }, transcript: [{ role: 'user', content: 'hi' }], conversation: 'c1', input: [{ type: 'message', id: 'msg_1_i0' }] }, 1)
      assert.deepEqual((await b.get('resp_1'))?.transcript, [{ role: 'user', content: 'hi' }])
      assert.deepEqual(await b.inputItems('resp_1'), [{ type: 'message', id: 'msg_1_i0' }])
      assert.equal(await b.conversationHead('c1'), 'resp_1')
      assert.equal(await b.conversationHead('c2'), undefined)
      assert.equal(await b.delete('resp_1'), true)
      assert.equal(await a.delete('resp_1'), false)
      assert.equal(await a.get('resp_1'), undefined)
      assert.equal(await a.conversationHead('c1'), 'lost')
    })

    test('past capacity, instances storing at once evict the least recently used without failing', async (t) => {
      const { a, b, count } = await instances(t)
      const record = (id: string) => ({ id, response: { id }, transcript: [], conversation: `conv-${id}` })
      for (let i = 0; i < CAPACITY; i++) await a.put(record(`resp_old${i}`), i)
      // Read: no longer the least recently used.
      assert.ok(await b.get('resp_old0'))
      await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).put(record(`resp_new${i}`), 100 + i)))
      await b.put(record('resp_last'), 200)
      const kept = await count()
      assert.ok(kept <= CAPACITY && kept >= CAPACITY - 4, `${kept} kept of ${CAPACITY}`)
      assert.ok(await a.get('resp_last'), 'the latest is kept')
      assert.equal(await a.get('resp_old1'), undefined, 'the least recently used went')
      assert.equal(await b.conversationHead('conv-resp_old1'), 'lost')
    })

    test('a conversation is held by one request at a time; another name is not', async (t) => {
      const { a, b } = await instances(t)
      const release = await a.holdConversation('trip')
      assert.ok(release)
      assert.equal(await a.holdConversation('trip'), undefined, 'not twice in one process')
      assert.equal(await b.holdConversation('trip'), undefined, 'nor on another instance')
      const other = await b.holdConversation('other trip')
      assert.ok(other, 'another conversation is free')
      await release()
      const next = await b.holdConversation('trip')
      assert.ok(next, 'free once released')
      await next()
      await other!()
    })

    test('an idempotency key runs once: in flight, reused, replayed, freed by a failure', async (t) => {
      const { keyA, keyB, pg } = await instances(t)
      assert.deepEqual(await keyA.claim('k1', '/v1/chat/completions', 'hash-1'), { kind: 'run' })
      assert.deepEqual(await keyB.claim('k1', '/v1/chat/completions', 'hash-1'), { kind: 'in_flight' })
      assert.deepEqual(await keyB.claim('k1', '/v1/chat/completions', 'hash-2'), { kind: 'reused' })
      assert.deepEqual(await keyB.claim('k1', '/v1/responses', 'hash-1'), { kind: 'run' }, 'another endpoint is another key')
      await keyA.settle('k1', '/v1/chat/completions', 'hash-1', answer)
      assert.deepEqual(await keyB.claim('k1', '/v1/chat/completions', 'hash-1'), { kind: 'replay', answer })
      assert.deepEqual(await keyB.claim('k1', '/v1/chat/completions', 'hash-2'), { kind: 'reused' })
      // A run that failed keeps nothing: the retry runs.
      assert.deepEqual(await keyA.claim('k2', '/v1/chat/completions', 'hash-1'), { kind: 'run' })
      await keyA.settle('k2', '/v1/chat/completions', 'hash-1', undefined)
      assert.deepEqual(await keyB.claim('k2', '/v1/chat/completions', 'hash-1'), { kind: 'run' })
      if (!pg) return
      // An instance that died holding a key stops renewing it: once stale, the key is free; a fresh one is not.
      await pg.query('UPDATE api_server_idempotency SET created_at = created_at - $1 WHERE key = $2', [IN_FLIGHT_STALE_MS + 1000, 'k2'])
      assert.deepEqual(await keyA.claim('k2', '/v1/chat/completions', 'hash-1'), { kind: 'run' }, 'stale: taken over')
      assert.deepEqual(await keyB.claim('k2', '/v1/chat/completions', 'hash-1'), { kind: 'in_flight' }, 'renewed by the take-over')
    })
  })
}
