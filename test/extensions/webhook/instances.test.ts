// Two real `agent gateway run` processes (each its own AGENT_HOME) on one PostgreSQL database: the
// same signed webhook delivered to both at once runs once (one model request, one answer) and the
// other gets the `duplicate` answer a single gateway gives a replay; a route's rate limit is shared,
// so the two together let through no more than the limit.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { backendSkip, startScriptedModel, testStorage } from '../../../sdk/testing/index.ts'
import { eventually, startGateway } from '../gateway/harness.ts'
import { webhookClient } from './client.ts'

const SECRET = 'gh-secret'
const signed = (body: string, delivery: string) => ({ 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': delivery, 'X-Hub-Signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` })
const pushOf = (after: string) => JSON.stringify({ ref: 'refs/heads/main', before: 'a0', after, commits: [], repository: { full_name: 'octo/repo' }, pusher: { name: 'alice' } })

test('a webhook delivered to two instances runs once; the rate limit is shared', { skip: backendSkip('postgres') }, async (t) => {
  const storage = await testStorage(t, 'postgres')
  const model = await startScriptedModel()
  t.after(() => model.close())
  const config = {
    ...storage.config,
    platforms: {
      webhook: {
        enabled: true,
        extra: {
          rate_limit: 5,
          routes: { push: { secret: SECRET, signature: 'github', events: ['push'], prompt: 'Push {after} to {repository.full_name}' }, ci: { secret: SECRET, signature: 'github', prompt: 'Build {after}' } },
        },
      },
    },
  }
  const [a, b] = await Promise.all([startGateway(t, { config, model }), startGateway(t, { config, model })])
  const [ca, cb] = [webhookClient(a), webhookClient(b)]
  const answered = (gw: typeof a) => (gw.agent.stderr().match(/delivery \S+ of route "push" \(push\) answered/g) ?? []).length

  const body = pushOf('c1')
  const both = await Promise.all([ca.post('push', body, signed(body, 'gh-1')), cb.post('push', body, signed(body, 'gh-1'))])
  assert.deepEqual(both.map((r) => r.status).sort(), [200, 202], JSON.stringify(both))
  const accepted = both.find((r) => r.status === 202)!
  const duplicate = both.find((r) => r.status === 200)!
  assert.equal(accepted.body.status, 'accepted')
  assert.deepEqual(duplicate.body, { status: 'duplicate', delivery_id: 'gh-1' }, 'what a single gateway answers a replay')
  assert.ok(await eventually(() => answered(a) + answered(b) === 1, 20_000), `one answer\nA: ${a.agent.stderr()}\nB: ${b.agent.stderr()}`)
  await sleep(500)
  assert.equal(ca.calls(), 1, 'one model request')
  assert.equal(answered(a) + answered(b), 1, 'one answer')
  // Later, at either instance: still a duplicate; a new delivery (a look-alike) runs.
  assert.equal((await cb.post('push', body, signed(body, 'gh-1'))).body.status, 'duplicate')
  const next = pushOf('c2')
  assert.equal((await ca.post('push', next, signed(next, 'gh-2'))).status, 202)
  await ca.ran('Push c2 to octo/repo')

  // The route `ci` lets 5 signed requests a minute through, counted across both instances (a
  // window of its own per minute: started well inside one, so the seven posts share it).
  if (Date.now() % 60_000 > 45_000) await sleep(60_000 - (Date.now() % 60_000) + 100)
  const posts = []
  for (const [client, n] of [[ca, 1], [cb, 2], [ca, 3], [cb, 4], [ca, 5], [cb, 6], [ca, 7]] as const) {
    const build = JSON.stringify({ type: 'build', ref: 'refs/heads/main', before: 'a0', after: `b${n}`, commits: [], repository: { full_name: 'octo/ci' } })
    posts.push((await client.post('ci', build, signed(build, `ci-${n}`))).status)
  }
  assert.deepEqual(posts, [202, 202, 202, 202, 202, 429, 429], 'the limit is shared')
})
