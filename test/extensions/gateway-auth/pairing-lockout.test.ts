// The pairing lockout, on both storage backends: wrong codes are recorded (not rolled back with the
// refusal), 5 of them lock that platform and user's pairing so its right code is refused, the lock
// lifts after 15 minutes (an injected clock, no sleeping), and a look-alike: a user with no failures
// is not locked. Plus the CLI path the issue reproduced: 8 wrong `agent gateway pair approve` leave
// rows in the store.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, GATEWAY_AUTH_SERVICE, STORAGE_SERVICE, type DatabaseService, type GatewayAuthService, type StorageBackend, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { DEFAULT_LIMITS } from '../../../extensions/gateway-auth/pairing.ts'
import { openPairingStore } from '../../../extensions/gateway-auth/pairing-store.ts'
import { runAgent } from '../../helpers/agent-process.ts'

/** A kernel on `backend`, and how many failure rows match `where` (SQL with ? placeholders) in its store. */
async function pairingKernel(t: TestContext, backend: StorageBackend) {
  const storage = await testStorage(t, backend)
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], config: storage.config })
  t.after(() => tk.close())
  const shared = tk.kernel.services.require<StorageService>(STORAGE_SERVICE)
  const count = async (where: string, ...params: string[]): Promise<number> => {
    const sql = `SELECT count(*) AS n FROM gateway_pairing_failures WHERE ${where}`
    if (backend === 'sqlite') return (tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().prepare(sql).get(...params) as { n: number }).n
    let i = 0
    const [row] = await shared.postgres().query<{ n: string }>(sql.replace(/\?/g, () => `$${++i}`), params)
    return Number(row!.n)
  }
  return { tk, count }
}

async function store(t: TestContext, backend: StorageBackend) {
  const { tk, count } = await pairingKernel(t, backend)
  const clock = { now: 1_700_000_000_000 }
  const pairing = openPairingStore(tk.kernel.services, DEFAULT_LIMITS, () => clock.now)
  const failures = (platform: string, user: string) => count('platform = ? AND user_id = ?', platform, user)
  return { clock, pairing, failures }
}

/** A code that is not `code` (same alphabet, so only the hash comparison refuses it). */
const wrongOf = (code: string) => (code.startsWith('A') ? 'B' : 'A') + code.slice(1)

for (const backend of STORAGE_BACKENDS) {
  describe(`pairing lockout [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('5 wrong codes lock the pairing: the right code is refused until the lock lifts', async (t) => {
      const { clock, pairing, failures } = await store(t, backend)
      const offer = (await pairing.request({ platform: 'fake', userId: 'u1', chatId: 'c1' }))!
      assert.ok(offer)
      for (let i = 0; i < DEFAULT_LIMITS.maxFailures; i++) {
        clock.now += 1_000
        await assert.rejects(pairing.approve(wrongOf(offer.code)), (e: any) => e.code === 'E_NOT_FOUND' || e.code === 'E_BLOCKED')
      }
      assert.equal(await failures('fake', 'u1'), 5, 'every failure is kept')
      const [pending] = await pairing.pending()
      assert.ok(pending!.lockedUntil && pending!.lockedUntil > clock.now, 'pair list shows the lock')

      clock.now += 1_000
      await assert.rejects(pairing.approve(offer.code), (e: any) => e.code === 'E_BLOCKED' && /open again at/.test(e.message), 'the right code is refused while locked')
      await assert.rejects(pairing.approve(wrongOf(offer.code)), (e: any) => e.code === 'E_BLOCKED', 'a wrong code gets the same answer as the right one')
      assert.equal(await failures('fake', 'u1'), 5, 'guesses against a locked pairing do not extend its lock')

      clock.now += DEFAULT_LIMITS.lockoutMs
      assert.equal((await pairing.pending())[0]!.lockedUntil, undefined)
      const approved = await pairing.approve(offer.code.toLowerCase())
      assert.deepEqual({ platform: approved.platform, userId: approved.userId, approvedAt: approved.approvedAt }, { platform: 'fake', userId: 'u1', approvedAt: clock.now })
      assert.equal(await failures('fake', 'u1'), 0, 'a successful approval clears the user\'s failures')
      assert.equal(await pairing.isApproved('fake', 'u1'), true)
      assert.equal(await pairing.isApproved('fake', 'u2'), false, 'another user of the platform is not paired')
    })

    test('a lock is per platform and user: another pending user with fewer failures still pairs', async (t) => {
      const { clock, pairing, failures } = await store(t, backend)
      const first = (await pairing.request({ platform: 'fake', userId: 'u1', chatId: 'c1' }))!
      for (let i = 0; i < 4; i++) await assert.rejects(pairing.approve(wrongOf(first.code)))
      clock.now += 1_000
      const second = (await pairing.request({ platform: 'other', userId: 'u2', chatId: 'c2' }))!
      await assert.rejects(pairing.approve('ZZZZZZZZ' === second.code ? 'YYYYYYYY' : 'ZZZZZZZZ'))
      assert.equal(await failures('fake', 'u1'), 5)
      assert.equal(await failures('other', 'u2'), 1)
      await assert.rejects(pairing.approve(first.code), (e: any) => e.code === 'E_BLOCKED')
      assert.equal((await pairing.approve(second.code)).userId, 'u2', 'a user with one failure is not locked')
    })

    test('requests are rate limited per user and bounded per platform; expired codes approve nothing', async (t) => {
      const { clock, pairing } = await store(t, backend)
      const first = await pairing.request({ platform: 'fake', userId: 'u1', userName: 'Ann' })
      assert.ok(first)
      assert.equal(await pairing.request({ platform: 'fake', userId: 'u1' }), undefined, 'one request per user per 10 minutes')
      assert.equal(await pairing.request({ platform: 'fake' }), undefined, 'no stable user id, no code')
      for (const user of ['u2', 'u3']) assert.ok(await pairing.request({ platform: 'fake', userId: user }))
      assert.equal(await pairing.request({ platform: 'fake', userId: 'u4' }), undefined, 'at most 3 pending per platform')
      assert.ok(await pairing.request({ platform: 'other', userId: 'u4' }), 'another platform has room')
      assert.deepEqual((await pairing.pending()).map((p) => [p.platform, p.userId, p.userName]).sort(), [['fake', 'u1', 'Ann'], ['fake', 'u2', undefined], ['fake', 'u3', undefined], ['other', 'u4', undefined]])
      clock.now += DEFAULT_LIMITS.codeTtlMs
      await assert.rejects(pairing.approve(first!.code), (e: any) => e.code === 'E_NOT_FOUND', 'expired')
      assert.ok(await pairing.request({ platform: 'fake', userId: 'u1' }), 'a new code once the interval has passed')
    })

    test('revoke removes an approved pairing, and only that one', async (t) => {
      const { pairing } = await store(t, backend)
      const offer = (await pairing.request({ platform: 'fake', userId: '+1 (555) 000-1111' }))!
      await pairing.approve(offer.code)
      assert.deepEqual((await pairing.approved()).map((a) => a.userId), ['+15550001111'])
      assert.equal(await pairing.isApproved('fake', '+1 555 000 1111'), true, 'phone numbers compare without punctuation')
      assert.equal(await pairing.revoke('fake', 'someone-else'), false)
      assert.equal(await pairing.revoke('fake', '+15550001111'), true)
      assert.deepEqual(await pairing.approved(), [])
      assert.equal(await pairing.isApproved('fake', '+15550001111'), false)
    })

    test('8 wrong `agent gateway pair approve` codes are recorded and lock the pairing', async (t) => {
      const { tk, count } = await pairingKernel(t, backend)
      const auth = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
      const offer = (await auth.requestPairing({ platform: 'fake', userId: 'u-stranger', chatId: 'c1' }))!
      for (let i = 0; i < 8; i++) {
        const wrong = await runAgent(['gateway', 'pair', 'approve', wrongOf(offer.code)], { home: tk.home })
        assert.equal(wrong.code, 2, wrong.stderr)
      }
      assert.equal(await count("platform = 'fake' AND user_id = 'u-stranger'"), 5, '5 counted against the user, then locked')
      assert.equal(await count("platform = ''"), 3, 'the 3 guesses with nothing open to compare are on record too')
      const right = await runAgent(['gateway', 'pair', 'approve', offer.code], { home: tk.home })
      assert.equal(right.code, 2)
      assert.match(right.stderr, /locked after 5 failed approvals/)
      assert.equal((await auth.approved()).length, 0)
    })
  })
}

test('a pairing store that cannot answer lets nobody in by pairing; allowlisted users still pass', async (t) => {
  // Nothing listens on port 1: every query fails at once.
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'], env: { FAKE_ALLOWED_USERS: 'friend' }, config: { storage: { url: 'postgres://agent@127.0.0.1:1/agent', connect_timeout_seconds: 2 } } })
  t.after(() => tk.close())
  const auth = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  assert.deepEqual(await auth.authorize({ platform: 'fake', userId: 'stranger', chatId: 'c1', chatType: 'dm' }), { allowed: false, reason: 'not in any allowlist', action: 'ignore' })
  assert.equal((await auth.authorize({ platform: 'fake', userId: 'friend', chatId: 'c2', chatType: 'dm' })).allowed, true)
  await assert.rejects(auth.requestPairing({ platform: 'fake', userId: 'stranger' }))
  await assert.rejects(auth.approve('AAAAAAAA'), (e: any) => e.code !== 'E_NOT_FOUND', 'an unreachable store is not "no such code"')
})
