// Against a running `agent gateway run`: one hostile signed body cannot take the gateway down (5,000
// nested arrays → 400; with the bound raised, the run that overflows is caught and marked failed),
// and a captured signed delivery is answered `duplicate` however its unsigned headers are changed,
// on the generic scheme inside its timestamp window, and after a restart. A relabelled event is
// refused. Look-alikes pass: a genuinely new delivery, and the same body newly signed by its sender.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { tempDir } from '../../helpers/temp.ts'
import { eventually, startGateway } from '../gateway/harness.ts'
import { webhookClient } from './client.ts'

const hex = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex')
const github = (body: string) => ({ 'X-Hub-Signature-256': `sha256=${hex('gh-secret', body)}` })
const generic = (body: string, ts: number) => ({ 'X-Webhook-Timestamp': String(ts), 'X-Webhook-Signature': hex('gen-secret', `${ts}.${body}`) })

const config = (extra: Record<string, unknown> = {}) => ({
  platforms: {
    webhook: {
      enabled: true,
      extra: {
        ...extra,
        routes: {
          push: { secret: 'gh-secret', signature: 'github', events: ['push'], prompt: 'Push {after} to {repository.full_name}' },
          gen: { secret: 'gen-secret', signature: 'generic' },
          glpush: { secret: 'gl-secret', signature: 'gitlab', events: ['push'], prompt: 'GitLab push {checkout_sha}' },
        },
      },
    },
  },
})

const pushOf = (after: string) => JSON.stringify({ ref: 'refs/heads/main', before: 'a0', after, commits: [], repository: { full_name: 'octo/repo' }, pusher: { name: 'alice' } })
const issues = JSON.stringify({ action: 'opened', issue: { number: 7, title: 'run me' }, repository: { full_name: 'octo/repo' } })

test('hostile bodies and replays against a running gateway, across a restart', async (t) => {
  const home = tempDir(t)
  const model = await startScriptedModel()
  t.after(() => model.close())
  const first = await startGateway(t, { config: config(), home, model })
  const { post, calls, ranNothing, ran } = webhookClient(first)

  const captured = pushOf('c1')
  const genBody = JSON.stringify({ type: 'build', id: 'b-1' })
  const genTs = Math.floor(Date.now() / 1000)

  await t.test('a signed body of 5,000 nested arrays gets 400, and the gateway keeps serving', async () => {
    const before = calls()
    const nested = '['.repeat(5000) + ']'.repeat(5000)
    const res = await post('push', nested, { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'deep-1', ...github(nested) })
    assert.equal(res.status, 400)
    assert.equal(res.body.error.code, 'json_too_deep')
    await ranNothing(before)
    const ok = await post('push', pushOf('after-deep'), { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'ok-1', ...github(pushOf('after-deep')) })
    assert.equal(ok.status, 202)
    await ran('Push after-deep to octo/repo')
  })

  await t.test('a captured GitHub delivery is a duplicate whatever its unsigned headers say', async () => {
    const signed = github(captured)
    const res = await post('push', captured, { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'd-1', ...signed })
    assert.equal(res.status, 202)
    await ran('Push c1 to octo/repo')
    const before = calls()
    const variants: Array<[string, Record<string, string>]> = [
      ['a new X-GitHub-Delivery', { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'd-2', ...signed }],
      ['the delivery header dropped', { 'X-GitHub-Event': 'push', ...signed }],
      ['an X-Request-ID instead', { 'X-GitHub-Event': 'push', 'X-Request-ID': 'r-1', ...signed }],
      ['both headers new', { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'd-3', 'X-Request-ID': 'r-2', ...signed }],
    ]
    for (const [what, headers] of variants) {
      const replay = await post('push', captured, headers)
      assert.equal(replay.status, 200, what)
      assert.deepEqual(replay.body, { status: 'duplicate', delivery_id: 'd-1' }, what)
    }
    await ranNothing(before)
  })

  await t.test('generic scheme: a new request id inside the timestamp window is a duplicate; a new signature is not', async () => {
    const signed = generic(genBody, genTs)
    assert.equal((await post('gen', genBody, { 'X-Request-ID': 'g-1', ...signed })).status, 202)
    await ran('"id": "b-1"')
    const before = calls()
    for (const headers of [{ 'X-Request-ID': 'g-2', ...signed }, signed, { 'X-Request-ID': 'g-1', ...generic(genBody, genTs + 1) }]) {
      assert.deepEqual((await post('gen', genBody, headers)).body, { status: 'duplicate', delivery_id: 'g-1' })
    }
    await ranNothing(before)
    // Look-alike: the sender signs the same body anew (another timestamp, no id it used before): a new delivery.
    const fresh = await post('gen', genBody, generic(genBody, genTs + 2))
    assert.equal(fresh.status, 202)
    assert.ok(await eventually(() => calls() > before), 'the new delivery ran')
  })

  await t.test('a signed issues payload relabelled as push is refused; the genuine push passes', async () => {
    const before = calls()
    const relabelled = await post('push', issues, { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'i-1', ...github(issues) })
    assert.equal(relabelled.status, 400)
    assert.equal(relabelled.body.error.code, 'event_mismatch')
    const honest = await post('push', issues, { 'X-GitHub-Event': 'issues', 'X-GitHub-Delivery': 'i-2', ...github(issues) })
    assert.deepEqual(honest.body, { status: 'ignored', event: 'issues' })
    const note = JSON.stringify({ object_kind: 'note', event_type: 'note', object_attributes: { note: 'run me' } })
    const glRelabelled = await post('glpush', note, { 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': 'gl-secret' })
    assert.equal(glRelabelled.status, 400)
    assert.equal(glRelabelled.body.error.code, 'event_mismatch')
    await ranNothing(before)
    const glPush = JSON.stringify({ object_kind: 'push', event_name: 'push', checkout_sha: 'gl-sha-1', commits: [] })
    const accepted = await post('glpush', glPush, { 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': 'gl-secret' })
    assert.equal(accepted.status, 202)
    await ran('GitLab push gl-sha-1')
  })

  await t.test('after a restart nothing is forgotten; a raised depth bound makes the overflow a failed delivery, not a crash', async () => {
    assert.equal(await first.agent.stop('SIGINT'), 0)
    const second = await startGateway(t, { config: config({ max_json_depth: 100_000, max_json_keys: 100_000 }), home, model })
    const again = webhookClient(second)
    const before = again.calls()
    assert.deepEqual((await again.post('push', captured, { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'd-9', ...github(captured) })).body, { status: 'duplicate', delivery_id: 'd-1' })
    assert.deepEqual((await again.post('gen', genBody, { 'X-Request-ID': 'g-9', ...generic(genBody, genTs) })).body, { status: 'duplicate', delivery_id: 'g-1' })
    await again.ranNothing(before)

    const nested = '['.repeat(50_000) + ']'.repeat(50_000)
    const deep = await again.post('gen', nested, { 'X-Request-ID': 'deep-2', ...generic(nested, Math.floor(Date.now() / 1000)) })
    assert.equal(deep.status, 202, `within the raised bounds: ${JSON.stringify(deep.body)}`)
    assert.ok(await eventually(() => /delivery deep-2 of route "gen" failed: Maximum call stack/.test(second.agent.stderr())), second.agent.stderr())
    const db = new Database(join(home, 'state.db'), { readonly: true })
    try {
      assert.ok(await eventually(() => (db.prepare("SELECT status FROM webhook_deliveries WHERE delivery_id = 'deep-2'").get() as any)?.status === 'failed'), 'marked failed')
    } finally {
      db.close()
    }
    const ok = await again.post('push', pushOf('after-restart'), { 'X-GitHub-Event': 'push', ...github(pushOf('after-restart')) })
    assert.equal(ok.status, 202)
    await again.ran('Push after-restart to octo/repo')
    assert.equal(second.agent.child.exitCode, null, 'still running')
    assert.equal(await second.agent.stop('SIGINT'), 0)
  })
})
