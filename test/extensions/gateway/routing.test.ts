// Chat routes (which session a chat continues) on both storage backends: the store itself (set,
// replace, delete, one key apart from another), a restarted gateway continuing the chat's session,
// and two gateways sharing one store: a chat started on one continues on the other, and a reset
// (/new) on one is seen by the other.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, GATEWAY_SERVICE, type DatabaseService, type GatewayService, type StorageBackend } from 'agent/sdk'
import { backendSkip, createTestKernel, fakeAdapter, makeTempHome, recordingRuntime, STORAGE_BACKENDS, testStorage, type TestStorage } from 'agent/sdk/testing'
import { openRoutingStore } from '../../../extensions/gateway/routing.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'slash-commands']
const ENV = { FAKE_ALLOWED_USERS: 'u1,u2' }

/** A gateway kernel on `storage`; PostgreSQL gets a home of its own (only the database is shared), SQLite shares `home`. */
async function gateway(t: TestContext, storage: TestStorage, home?: string) {
  const runtime = recordingRuntime()
  const k = await createTestKernel({ builtins: CORE, extensions: [fakeAdapter({ name: 'fake' }).definition, runtime.definition], env: ENV, config: storage.config, ...(home ? { home } : {}) })
  t.after(() => k.close())
  const service = k.kernel.services.require<GatewayService>(GATEWAY_SERVICE)
  let n = 0
  /** Dispatches a DM from `userId` and waits for its turn; the session the run was given. */
  const say = async (userId: string, text: string) => {
    const result = await service.dispatch({ source: { platform: 'fake', userId, chatId: userId, chatType: 'dm' }, text, messageId: `${++n}-${Math.random()}` })
    await result.done
    return runtime.runs.at(-1)
  }
  return { k, service, say, runs: runtime.runs }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`gateway routing [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('the store: a route is set, replaced and deleted; keys stay apart', async (t) => {
      const storage = await testStorage(t, backend)
      const { k } = await gateway(t, storage)
      const routes = openRoutingStore(k.kernel.services, () => k.kernel.services.get<DatabaseService>(DATABASE_SERVICE))
      assert.equal(await routes.get('agent:main:fake:dm:u1'), undefined)
      await routes.set('agent:main:fake:dm:u1', { sessionId: 's1', lastActivity: 1_700_000_000_123 })
      await routes.set('agent:main:fake:dm:u2', { sessionId: 's2', lastActivity: 1 })
      assert.deepEqual(await routes.get('agent:main:fake:dm:u1'), { sessionId: 's1', lastActivity: 1_700_000_000_123 }, 'epoch milliseconds come back as numbers')
      await routes.set('agent:main:fake:dm:u1', { sessionId: 's3', lastActivity: 1_700_000_000_999 })
      assert.deepEqual(await routes.get('agent:main:fake:dm:u1'), { sessionId: 's3', lastActivity: 1_700_000_000_999 })
      await routes.delete('agent:main:fake:dm:u1')
      assert.equal(await routes.get('agent:main:fake:dm:u1'), undefined)
      assert.deepEqual(await routes.get('agent:main:fake:dm:u2'), { sessionId: 's2', lastActivity: 1 }, 'another chat keeps its route')
    })

    test('a restarted gateway continues the chat where it was', async (t) => {
      const storage = await testStorage(t, backend)
      const home = makeTempHome()
      t.after(() => rmSync(home, { recursive: true, force: true }))
      const first = await gateway(t, storage, home)
      const started = await first.say('u1', 'hello')
      assert.equal(started?.sessionId, undefined, 'a new chat starts a session')
      assert.equal((await first.say('u1', 'again'))?.sessionId, 's1')
      assert.equal(await first.service.sessionFor({ platform: 'fake', userId: 'u1', chatId: 'u1', chatType: 'dm' }), 's1')
      await first.k.close()
      const second = await gateway(t, storage, home)
      assert.equal(await second.service.sessionFor({ platform: 'fake', userId: 'u1', chatId: 'u1', chatType: 'dm' }), 's1', 'read from the store')
      assert.equal((await second.say('u1', 'after the restart'))?.sessionId, 's1')
      assert.equal((await second.say('u2', 'someone else'))?.sessionId, undefined, 'another chat starts its own')
    })

    test('two gateways on one store: a chat started on one continues on the other; /new on one resets both', async (t) => {
      const storage = await testStorage(t, backend)
      const a = await gateway(t, storage)
      const b = await gateway(t, storage, backend === 'sqlite' ? a.k.home : undefined)
      await a.say('u1', 'hello from a')
      assert.equal((await b.say('u1', 'hello from b'))?.sessionId, 's1', 'b continues the session a started')
      const reset = await b.service.dispatch({ source: { platform: 'fake', userId: 'u1', chatId: 'u1', chatType: 'dm' }, text: '/new', messageId: 'new-1' })
      await reset.done
      assert.equal(await a.service.sessionFor({ platform: 'fake', userId: 'u1', chatId: 'u1', chatType: 'dm' }), undefined, 'a sees the reset')
      const fresh = await a.say('u1', 'fresh')
      assert.equal(fresh?.sessionId, undefined, 'a starts afresh, not the session it had before')
    })
  })
}
