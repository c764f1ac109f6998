// Two gateways sharing one store (one PostgreSQL database with a home each, so only the database is
// shared; or one state.db): a code requested on one is approved on the other and pairs the user on
// both; the same code approved on both at once pairs once; racing requests issue one code; failed
// guesses on either count towards one lockout.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { GATEWAY_AUTH_SERVICE, type GatewayAuthService, type StorageBackend } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'

async function twoInstances(t: TestContext, backend: StorageBackend): Promise<[GatewayAuthService, GatewayAuthService]> {
  const storage = await testStorage(t, backend)
  const a = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], config: storage.config })
  // PostgreSQL: a home of its own (its own state.db); SQLite: the same home, so the same state.db.
  const b = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], config: storage.config, ...(backend === 'sqlite' ? { home: a.home } : {}) })
  t.after(async () => {
    await b.close()
    await a.close()
  })
  return [a, b].map((k) => k.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)) as [GatewayAuthService, GatewayAuthService]
}

const dm = (platform: string, userId: string) => ({ platform, userId, chatId: userId, chatType: 'dm' as const })
const wrongOf = (code: string) => (code.startsWith('A') ? 'B' : 'A') + code.slice(1)

for (const backend of STORAGE_BACKENDS) {
  describe(`pairing across two instances [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('a code requested on one instance is approved on the other; both then let the user in', async (t) => {
      const [a, b] = await twoInstances(t, backend)
      assert.deepEqual(await a.authorize(dm('fake', 'u1')), { allowed: false, reason: 'not in any allowlist', action: 'pair' })
      const offer = (await a.requestPairing(dm('fake', 'u1')))!
      assert.ok(offer)
      assert.deepEqual((await b.pending()).map((p) => p.userId), ['u1'], 'the other instance sees the pending request')
      assert.equal(await b.requestPairing(dm('fake', 'u1')), undefined, 'the rate limit is shared')
      assert.equal((await b.approve(offer.code)).userId, 'u1')
      assert.equal((await a.authorize(dm('fake', 'u1'))).allowed, true)
      assert.equal((await b.authorize(dm('fake', 'u1'))).allowed, true)
      assert.equal((await a.authorize(dm('fake', 'u2'))).allowed, false, 'another user is still refused')
      assert.deepEqual(await a.pending(), [])
      assert.equal(await a.revoke('fake', 'u1'), true)
      assert.equal((await b.authorize(dm('fake', 'u1'))).allowed, false, 'a revocation on one is seen by the other')
    })

    test('the same code approved on both at once pairs once; racing requests issue one code', async (t) => {
      const [a, b] = await twoInstances(t, backend)
      for (let i = 0; i < 5; i++) {
        const platform = `race${i}`
        const offers = await Promise.all([a.requestPairing(dm(platform, 'u')), b.requestPairing(dm(platform, 'u'))])
        assert.equal(offers.filter(Boolean).length, 1, `one code per user per interval (${i})`)
        const code = offers.find(Boolean)!.code
        const results = await Promise.allSettled([a.approve(code), b.approve(code)])
        assert.deepEqual(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'], `round ${i}`)
        const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
        assert.equal(refused.reason.code, 'E_NOT_FOUND')
      }
      assert.equal((await a.approved()).length, 5)
    })

    test('failed guesses on either instance count towards one lockout', async (t) => {
      const [a, b] = await twoInstances(t, backend)
      const offer = (await a.requestPairing(dm('fake', 'u1')))!
      const wrong = wrongOf(offer.code)
      await Promise.allSettled([a.approve(wrong), b.approve(wrong), a.approve(wrong), b.approve(wrong)])
      assert.equal((await b.pending())[0]!.lockedUntil, undefined, '4 failures lock nothing yet')
      await assert.rejects(b.approve(wrong))
      assert.ok((await a.pending())[0]!.lockedUntil, 'the fifth, on the other instance, locks it')
      await assert.rejects(a.approve(offer.code), (e: any) => e.code === 'E_BLOCKED')
      assert.equal((await b.authorize(dm('fake', 'u1'))).allowed, false)
    })
  })
}
