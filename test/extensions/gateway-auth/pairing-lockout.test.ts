// The pairing lockout: wrong codes are recorded (not rolled back with the refusal), 5 of them lock
// that platform and user's pairing so its right code is refused, the lock lifts after 15 minutes
// (an injected clock, no sleeping), and a look-alike: a user with no failures is not locked. Plus the
// CLI path the issue reproduced: 8 wrong `agent gateway pair approve` leave rows in state.db.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, GATEWAY_AUTH_SERVICE, type DatabaseService, type GatewayAuthService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { DEFAULT_LIMITS, PairingStore } from '../../../extensions/gateway-auth/pairing.ts'
import { runAgent } from '../../helpers/agent-process.ts'

async function store(t: TestContext) {
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'] })
  t.after(() => tk.close())
  const database = tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE)
  const clock = { now: 1_700_000_000_000 }
  const pairing = new PairingStore(() => database, DEFAULT_LIMITS, () => clock.now)
  const failures = (platform: string, user: string) =>
    (database.db().prepare('SELECT count(*) AS n FROM gateway_pairing_failures WHERE platform = ? AND user_id = ?').get(platform, user) as { n: number }).n
  return { tk, database, clock, pairing, failures }
}

/** A code that is not `code` (same alphabet, so only the hash comparison refuses it). */
const wrongOf = (code: string) => (code.startsWith('A') ? 'B' : 'A') + code.slice(1)

test('5 wrong codes lock the pairing: the right code is refused until the lock lifts', async (t) => {
  const { clock, pairing, failures } = await store(t)
  const offer = pairing.request({ platform: 'fake', userId: 'u1', chatId: 'c1' })!
  assert.ok(offer)
  for (let i = 0; i < DEFAULT_LIMITS.maxFailures; i++) {
    clock.now += 1_000
    assert.throws(() => pairing.approve(wrongOf(offer.code)), (e: any) => e.code === 'E_NOT_FOUND' || e.code === 'E_BLOCKED')
  }
  assert.equal(failures('fake', 'u1'), 5, 'every failure is kept')
  const [pending] = pairing.pending()
  assert.ok(pending!.lockedUntil && pending!.lockedUntil > clock.now, 'pair list shows the lock')

  clock.now += 1_000
  assert.throws(() => pairing.approve(offer.code), (e: any) => e.code === 'E_BLOCKED' && /open again at/.test(e.message), 'the right code is refused while locked')
  assert.throws(() => pairing.approve(wrongOf(offer.code)), (e: any) => e.code === 'E_BLOCKED', 'a wrong code gets the same answer as the right one')
  assert.equal(failures('fake', 'u1'), 5, 'guesses against a locked pairing do not extend its lock')

  clock.now += DEFAULT_LIMITS.lockoutMs
  assert.equal(pairing.pending()[0]!.lockedUntil, undefined)
  const approved = pairing.approve(offer.code.toLowerCase())
  assert.deepEqual({ platform: approved.platform, userId: approved.userId }, { platform: 'fake', userId: 'u1' })
  assert.equal(failures('fake', 'u1'), 0, 'a successful approval clears the user\'s failures')
})

test('a lock is per platform and user: another pending user with fewer failures still pairs', async (t) => {
  const { clock, pairing, failures } = await store(t)
  const first = pairing.request({ platform: 'fake', userId: 'u1', chatId: 'c1' })!
  for (let i = 0; i < 4; i++) assert.throws(() => pairing.approve(wrongOf(first.code)))
  clock.now += 1_000
  const second = pairing.request({ platform: 'other', userId: 'u2', chatId: 'c2' })!
  assert.throws(() => pairing.approve('ZZZZZZZZ' === second.code ? 'YYYYYYYY' : 'ZZZZZZZZ'))
  assert.equal(failures('fake', 'u1'), 5)
  assert.equal(failures('other', 'u2'), 1)
  assert.throws(() => pairing.approve(first.code), (e: any) => e.code === 'E_BLOCKED')
  assert.equal(pairing.approve(second.code).userId, 'u2', 'a user with one failure is not locked')
})

test('8 wrong `agent gateway pair approve` codes are recorded and lock the pairing', async (t) => {
  const tk = await createTestKernel({ builtins: ['state-db', 'gateway-auth'] })
  t.after(() => tk.close())
  const auth = tk.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  const offer = auth.requestPairing({ platform: 'fake', userId: 'u-stranger', chatId: 'c1' })!
  for (let i = 0; i < 8; i++) {
    const wrong = await runAgent(['gateway', 'pair', 'approve', wrongOf(offer.code)], { home: tk.home })
    assert.equal(wrong.code, 2, wrong.stderr)
  }
  const db = tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db()
  const count = (where: string) => (db.prepare(`SELECT count(*) AS n FROM gateway_pairing_failures WHERE ${where}`).get() as { n: number }).n
  assert.equal(count("platform = 'fake' AND user_id = 'u-stranger'"), 5, '5 counted against the user, then locked')
  assert.equal(count("platform = ''"), 3, 'the 3 guesses with nothing open to compare are on record too')
  const right = await runAgent(['gateway', 'pair', 'approve', offer.code], { home: tk.home })
  assert.equal(right.code, 2)
  assert.match(right.stderr, /locked after 5 failed approvals/)
  assert.equal(auth.approved().length, 0)
})
