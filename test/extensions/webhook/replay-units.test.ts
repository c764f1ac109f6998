// Replay protection and event verification in isolation: the replay key covers exactly the signed
// bytes, the ledger (state.db or PostgreSQL) answers duplicates across a new handle or instance and
// forgets after the window (an injected clock), rate limits are shared on PostgreSQL and in memory
// on SQLite, and event names are checked against the payload per scheme.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type StorageBackend, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { githubShape, GITHUB_VERIFIED_EVENTS, resolveEvent } from '../../../extensions/webhook/events.ts'
import { REPLAY_WINDOW_MS } from '../../../extensions/webhook/ledger.ts'
import { PgDeliveryLedger } from '../../../extensions/webhook/ledger-pg.ts'
import { SqliteDeliveryLedger } from '../../../extensions/webhook/ledger-sqlite.ts'
import { RateLimiter } from '../../../extensions/webhook/limits.ts'
import { PgRateLimiter } from '../../../extensions/webhook/limits-pg.ts'
import { signedKey } from '../../../extensions/webhook/signature.ts'

const headers = (h: Record<string, string>) => (name: string) => h[name.toLowerCase()] ?? ''

test('the replay key covers what the signature covers and no header', () => {
  const body = Buffer.from('{"a":1}')
  const plain = signedKey('github', headers({}), body)
  assert.equal(signedKey('github', headers({ 'x-github-delivery': 'other', 'x-request-id': 'x' }), body), plain)
  assert.equal(signedKey('gitlab', headers({ 'x-gitlab-event-uuid': 'u' }), body), plain)
  assert.notEqual(signedKey('github', headers({}), Buffer.from('{"a":2}')), plain)
  const at = (ts: string) => signedKey('generic', headers({ 'x-webhook-timestamp': ts, 'x-request-id': ts }), body)
  assert.equal(at('1700000000'), signedKey('generic', headers({ 'x-webhook-timestamp': '1700000000' }), body))
  assert.notEqual(at('1700000000'), at('1700000001'), 'generic: the signed timestamp is part of the key')
})

/** A kernel on `backend`'s storage, closed before its test database is dropped; SQL run on that backend. */
async function backendKernel(t: TestContext, backend: StorageBackend) {
  const drops: Array<() => unknown> = []
  const storage = await testStorage({ after: (fn: () => unknown) => void drops.push(fn) } as unknown as TestContext, backend)
  const tk = await createTestKernel({ builtins: ['state-db'], config: storage.config })
  t.after(async () => {
    await tk.close()
    for (const drop of drops) await drop()
  })
  const services = tk.kernel.services
  const pg = () => services.require<StorageService>(STORAGE_SERVICE).postgres()
  return {
    ledger: (now?: () => number) =>
      backend === 'postgres' ? new PgDeliveryLedger(pg, REPLAY_WINDOW_MS, now) : new SqliteDeliveryLedger(() => services.require<DatabaseService>(DATABASE_SERVICE), REPLAY_WINDOW_MS, now),
    limiter: (now?: () => number) => (backend === 'postgres' ? new PgRateLimiter(pg, 60_000, now) : undefined),
    rows: async (sql: string) => (backend === 'postgres' ? await pg().query(sql) : services.require<DatabaseService>(DATABASE_SERVICE).db().prepare(sql).all()),
  }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`delivery ledger [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('the ledger keeps deliveries for the window, then forgets them', async (t) => {
      const k = await backendKernel(t, backend)
      const clock = { now: 1_700_000_000_000 }
      const ledger = k.ledger(() => clock.now)
      assert.deepEqual(await ledger.claim({ route: 'r', signedKey: 'k1', headerId: 'd1', deliveryId: 'd1' }), { duplicate: false })
      assert.deepEqual(await ledger.claim({ route: 'r', signedKey: 'k1', deliveryId: 'k1' }), { duplicate: true, deliveryId: 'd1' }, 'same signed bytes, header dropped')
      assert.deepEqual(await ledger.claim({ route: 'r', signedKey: 'k2', headerId: 'd1', deliveryId: 'd1' }), { duplicate: true, deliveryId: 'd1' }, 'a sender retry re-signed under the same delivery id')
      assert.deepEqual(await ledger.claim({ route: 'other', signedKey: 'k1', deliveryId: 'k1' }), { duplicate: false }, 'routes are separate')

      // A second ledger (as after a restart, or another instance) reads the same table.
      const after = k.ledger(() => clock.now)
      assert.equal((await after.claim({ route: 'r', signedKey: 'k1', headerId: 'new', deliveryId: 'new' })).duplicate, true)
      await after.settle('r', 'k1', 'failed')
      assert.deepEqual(await k.rows("SELECT status FROM webhook_deliveries WHERE route = 'r' AND signed_key = 'k1'"), [{ status: 'failed' }])

      clock.now += REPLAY_WINDOW_MS - 1
      assert.equal((await after.claim({ route: 'r', signedKey: 'k1', deliveryId: 'k1' })).duplicate, true, 'still inside the window')
      clock.now += 2
      assert.deepEqual(await after.claim({ route: 'r', signedKey: 'k1', deliveryId: 'k1' }), { duplicate: false }, 'past the window it is new again')
      clock.now += 60_000
      await after.claim({ route: 'r', signedKey: 'k3', deliveryId: 'k3' })
      const rows = await k.rows('SELECT route, signed_key FROM webhook_deliveries ORDER BY signed_key')
      assert.deepEqual(rows, [{ route: 'r', signed_key: 'k1' }, { route: 'r', signed_key: 'k3' }], 'expired rows are pruned (at most once a minute)')
    })

    test('copies arriving together, at one instance or two: exactly one is accepted', async (t) => {
      const k = await backendKernel(t, backend)
      const [one, two] = [k.ledger(), k.ledger()]
      // Warm: the pool's connections exist, so the copies below really run side by side.
      await Promise.all(Array.from({ length: 8 }, (_, i) => one.claim({ route: 'warm', signedKey: `w${i}`, deliveryId: `w${i}` })))
      for (let round = 0; round < 5; round++) {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? one : two).claim({ route: 'r', signedKey: `same-${round}`, headerId: `id-${round}-${i}`, deliveryId: `id-${round}-${i}` })))
        assert.equal(results.filter((r) => !r.duplicate).length, 1, JSON.stringify(results))
        const winner = results.findIndex((r) => !r.duplicate)
        assert.ok(results.every((r) => !r.duplicate || r.deliveryId === `id-${round}-${winner}`))
      }
      const other = await Promise.all([one.claim({ route: 'r', signedKey: 'else', deliveryId: 'x' }), two.claim({ route: 'r', signedKey: 'else2', deliveryId: 'y' })])
      assert.deepEqual(other, [{ duplicate: false }, { duplicate: false }], 'look-alikes with other keys and ids pass')
    })
  })
}

describe('shared rate limits [postgres]', { skip: backendSkip('postgres') }, () => {
  test('two instances share a route\'s limit per window; other routes and the next window are free', async (t) => {
    const k = await backendKernel(t, 'postgres')
    const clock = { now: 1_700_000_080_000 } // 40 s into a minute
    const [a, b] = [k.limiter(() => clock.now)!, k.limiter(() => clock.now)!]
    const taken = await Promise.all(Array.from({ length: 7 }, (_, i) => (i % 2 ? a : b).take('ci', 5)))
    assert.equal(taken.filter((s) => s === 0).length, 5, JSON.stringify(taken))
    assert.ok(taken.filter((s) => s > 0).every((s) => s === 20), `retry when the window ends: ${JSON.stringify(taken)}`)
    assert.equal(await a.take('deploy', 5), 0, 'another route has its own count')
    clock.now += 20_000
    assert.equal(await b.take('ci', 5), 0, 'a new window')
  })
})

test('in memory (SQLite): a sliding minute per route', async () => {
  const limiter = new RateLimiter()
  const at = 1_000_000
  for (let i = 0; i < 3; i++) assert.equal(await limiter.take('ci', 3, at + i), 0)
  assert.equal(await limiter.take('ci', 3, at + 10), 60)
  assert.equal(await limiter.take('other', 3, at + 10), 0)
  assert.equal(await limiter.take('ci', 3, at + 60_000), 0, 'the first hit left the window')
})

test('without state.db the ledger refuses (the intake then answers 503)', async () => {
  const ledger = new SqliteDeliveryLedger(() => undefined)
  await assert.rejects(ledger.claim({ route: 'r', signedKey: 'k', deliveryId: 'k' }), /state\.db/)
})

/** One payload per verified GitHub event, shaped as GitHub sends it (the keys that matter). */
const GITHUB_SAMPLES: Record<string, Record<string, unknown>> = {
  deployment_protection_rule: { action: 'requested', deployment: {}, deployment_callback_url: 'https://x', environment: 'prod' },
  deployment_status: { action: 'created', deployment_status: {}, deployment: {}, check_run: {}, workflow_run: {} },
  deployment_review: { action: 'approved', approver: {}, workflow_run: {}, workflow_job_runs: [] },
  workflow_job: { action: 'queued', workflow_job: {}, deployment: {} },
  deployment: { action: 'created', deployment: {}, workflow: {}, workflow_run: {} },
  workflow_run: { action: 'completed', workflow_run: {}, workflow: {} },
  check_run: { action: 'created', check_run: {} },
  check_suite: { action: 'completed', check_suite: {} },
  pull_request_review: { action: 'submitted', review: {}, pull_request: {} },
  pull_request_review_thread: { action: 'resolved', thread: {}, pull_request: {} },
  pull_request_review_comment: { action: 'created', comment: {}, pull_request: {} },
  pull_request: { action: 'opened', number: 1, pull_request: {} },
  issue_comment: { action: 'created', issue: {}, comment: {} },
  issues: { action: 'opened', issue: {} },
  discussion_comment: { action: 'created', discussion: {}, comment: {} },
  discussion: { action: 'created', discussion: {} },
  commit_comment: { action: 'created', comment: { commit_id: 'abc' } },
  release: { action: 'published', release: {} },
  fork: { forkee: {} },
  gollum: { pages: [] },
  push: { ref: 'refs/heads/main', before: 'a', after: 'b', commits: [], pusher: {} },
  create: { ref: 'v1', ref_type: 'tag', master_branch: 'main', pusher_type: 'user' },
  delete: { ref: 'v1', ref_type: 'tag', pusher_type: 'user' },
  status: { sha: 'abc', state: 'success', context: 'ci' },
  ping: { zen: 'Keep it logically awesome.', hook_id: 1 },
}

test('each verified GitHub event is recognised by its payload, and only as itself', () => {
  assert.deepEqual(Object.keys(GITHUB_SAMPLES).sort(), [...GITHUB_VERIFIED_EVENTS].sort())
  for (const [event, payload] of Object.entries(GITHUB_SAMPLES)) assert.equal(githubShape({ ...payload, repository: {}, sender: {} }), event)
  assert.equal(githubShape({ action: 'started', repository: {}, sender: {} }), undefined, 'watch: no shape of its own')
  assert.equal(githubShape([1, 2]), undefined)
})

test('GitHub: the claimed event must match the payload', () => {
  const gh = (event: string) => headers({ 'x-github-event': event })
  const { issues, push } = GITHUB_SAMPLES as Record<string, Record<string, unknown>>
  assert.deepEqual(resolveEvent('github', gh('push'), issues), { event: 'push', names: ['push'], mismatch: 'issues' }, 'relabelled issues → push')
  assert.deepEqual(resolveEvent('github', gh('watch'), issues), { event: 'watch', names: ['watch'], mismatch: 'issues' }, 'a known shape under an unknown name')
  assert.deepEqual(resolveEvent('github', gh('push'), { type: 'build' }), { event: 'push', names: ['push'], mismatch: 'unrecognised' })
  assert.deepEqual(resolveEvent('github', gh('push'), push), { event: 'push', names: ['push'] })
  assert.deepEqual(resolveEvent('github', gh('watch'), { action: 'started' }), { event: 'watch', names: ['watch'] }, 'an unknown event with no known shape passes as claimed')
  assert.deepEqual(resolveEvent('github', headers({}), { type: 'build' }), { event: 'build', names: ['build'] }, 'no header: the signed payload names it')
})

test('GitLab: the hook header must agree with object_kind; generic reads the payload only', () => {
  const gl = (event: string) => headers({ 'x-gitlab-event': event })
  assert.deepEqual(resolveEvent('gitlab', gl('Push Hook'), { object_kind: 'note', event_type: 'note' }), { event: 'Push Hook', names: ['Push Hook', 'push', 'note'], mismatch: 'note' })
  assert.deepEqual(resolveEvent('gitlab', gl('Deploy Hook'), { object_kind: 'push' }), { event: 'Deploy Hook', names: ['Deploy Hook', 'push'], mismatch: 'push' })
  assert.deepEqual(resolveEvent('gitlab', gl('Merge Request Hook'), { object_kind: 'merge_request', event_type: 'merge_request' }), { event: 'Merge Request Hook', names: ['Merge Request Hook', 'merge_request'] })
  assert.deepEqual(resolveEvent('gitlab', gl('Member Hook'), { event_name: 'user_add_to_group' }), { event: 'Member Hook', names: ['Member Hook', 'user_add_to_group'] })
  assert.deepEqual(resolveEvent('gitlab', gl('System Hook'), { object_kind: 'push' }), { event: 'System Hook', names: ['System Hook', 'push'] })
  assert.deepEqual(resolveEvent('gitlab', headers({}), { object_kind: 'push' }), { event: 'push', names: ['push'] })
  const generic = headers({ 'x-github-event': 'push', 'x-gitlab-event': 'Push Hook' })
  assert.deepEqual(resolveEvent('generic', generic, { type: 'build' }), { event: 'build', names: ['build'] }, 'unsigned headers are ignored')
  assert.deepEqual(resolveEvent('generic', generic, {}), { event: 'unknown', names: ['unknown'] })
})
