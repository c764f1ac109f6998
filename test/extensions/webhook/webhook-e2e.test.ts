// Against a running `agent gateway run` and the scripted model: a signed code-host push is accepted
// (202) and the model receives the rendered prompt; a replay, bad or missing signatures, an unknown
// route, a filtered event, a 2 MB body and the 31st request in a minute each get their answer and run
// nothing; each signature scheme accepts its valid form and rejects the others.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { eventually, startGateway } from '../gateway/harness.ts'
import { webhookClient } from './client.ts'

const hex = (secret: string, data: string) => createHmac('sha256', secret).update(data).digest('hex')
const github = (secret: string, body: string) => ({ 'X-Hub-Signature-256': `sha256=${hex(secret, body)}` })
const gitlab = (secret: string) => ({ 'X-Gitlab-Token': secret })
const generic = (secret: string, body: string, ts = Math.floor(Date.now() / 1000)) => ({ 'X-Webhook-Timestamp': String(ts), 'X-Webhook-Signature': hex(secret, `${ts}.${body}`) })

const config = {
  platforms: {
    webhook: {
      enabled: true,
      extra: {
        routes: {
          push: {
            secret: 'gh-secret',
            signature: 'github',
            events: ['push'],
            prompt: 'Push to {repository.full_name} by {pusher.name}: {head_commit.message} ({missing.key})',
            skills: ['code-review'],
            deliver: 'log',
          },
          gl: { secret: 'gl-secret', signature: 'gitlab' },
          gen: { secret: 'gen-secret', signature: 'generic' },
          auto: { secret: 'auto-secret' },
          limited: { secret: 'lim-secret', events: ['push'] },
        },
      },
    },
  },
}

const push = { ref: 'refs/heads/main', before: 'a1', after: 'b2', commits: [], repository: { full_name: 'octo/repo' }, pusher: { name: 'alice' }, head_commit: { message: 'fix the parser' } }
const issue = { action: 'opened', issue: { number: 7, title: 'broken' }, repository: { full_name: 'octo/repo' } }

test('webhook intake end to end', async (t) => {
  const gw = await startGateway(t, { config, skills: ['code-review'] })
  const { post, calls, ranNothing } = webhookClient(gw)

  const body = JSON.stringify(push)
  const delivery = { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'delivery-1' }

  await t.test('a signed push is accepted and the model gets the rendered prompt', async () => {
    const res = await post('push', body, { ...delivery, ...github('gh-secret', body) })
    assert.equal(res.status, 202)
    assert.deepEqual(res.body, { status: 'accepted', route: 'push', event: 'push', delivery_id: 'delivery-1' })
    assert.ok(await eventually(() => gw.prompts().includes("Push to octo/repo by alice: fix the parser ({missing.key})")), `prompts: ${JSON.stringify(gw.prompts())} stderr: ${gw.agent.stderr()}`)
  })

  await t.test('a replay of the same delivery is answered and not run again', async () => {
    const before = calls()
    const res = await post('push', body, { ...delivery, ...github('gh-secret', body) })
    assert.equal(res.status, 200)
    assert.deepEqual(res.body, { status: 'duplicate', delivery_id: 'delivery-1' })
    await ranNothing(before)
  })

  await t.test('bad and missing signatures get 401', async () => {
    const before = calls()
    const other = { ...delivery, 'X-GitHub-Delivery': 'delivery-2' }
    assert.equal((await post('push', body, { ...other, ...github('wrong-secret', body) })).status, 401)
    assert.equal((await post('push', body, { ...other, ...github('gh-secret', body + ' ') })).status, 401)
    assert.equal((await post('push', body, other)).status, 401)
    assert.equal((await post('push', body, { ...other, 'X-Hub-Signature-256': 'deadbeef' })).status, 401)
    await ranNothing(before)
  })

  await t.test('an unknown route gets 404, a filtered event 200 ignored', async () => {
    const before = calls()
    const unknown = await post('nope', body, { ...delivery, ...github('gh-secret', body) })
    assert.equal(unknown.status, 404)
    assert.ok(unknown.body.error.message)
    const issueBody = JSON.stringify(issue)
    const ignored = await post('push', issueBody, { 'X-GitHub-Event': 'issues', 'X-GitHub-Delivery': 'delivery-3', ...github('gh-secret', issueBody) })
    assert.equal(ignored.status, 200)
    assert.deepEqual(ignored.body, { status: 'ignored', event: 'issues' })
    await ranNothing(before)
  })

  await t.test('a 2 MB body gets 413 before it is read', async () => {
    const before = calls()
    const big = JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) })
    const res = await post('push', big, { ...delivery, ...github('gh-secret', big) })
    assert.equal(res.status, 413)
    await ranNothing(before)
  })

  await t.test('malformed JSON that is signed gets 400', async () => {
    const before = calls()
    const bad = '{"not json'
    assert.equal((await post('push', bad, { ...delivery, ...github('gh-secret', bad) })).status, 400)
    await ranNothing(before)
  })

  await t.test('the 31st signed request in a minute gets 429; unsigned ones do not count', async () => {
    const before = calls()
    const ping = JSON.stringify({ zen: 'hi' })
    for (let i = 0; i < 10; i++) assert.equal((await post('limited', ping, { 'X-GitHub-Event': 'ping', ...github('bad', ping) })).status, 401)
    for (let i = 0; i < 30; i++) {
      const res = await post('limited', ping, { 'X-GitHub-Event': 'ping', ...github('lim-secret', ping) })
      assert.equal(res.status, 200, `request ${i + 1}`)
      assert.equal(res.body.status, 'ignored')
    }
    const res = await fetch(`${gw.url}/webhooks/limited`, { method: 'POST', headers: { 'X-GitHub-Event': 'ping', ...github('lim-secret', ping) }, body: ping })
    assert.equal(res.status, 429)
    assert.ok(Number(res.headers.get('retry-after')) >= 1)
    await ranNothing(before)
  })

  await t.test('each scheme accepts its valid form and rejects the others', async () => {
    // Push-shaped, so the push route's filter (which checks the claimed event against the payload) lets it through.
    const payload = (id: string) => JSON.stringify({ type: 'build', id, ref: 'refs/heads/main', before: 'a', after: 'b', commits: [] })
    // Pinned schemes: only their own form passes.
    let n = 0
    const expectStatus = async (route: string, headers: (b: string) => Record<string, string>, status: number) => {
      const b = payload(`${route}-${++n}`)
      const res = await post(route, b, headers(b))
      assert.equal(res.status, status, `${route} with ${JSON.stringify(Object.keys(headers(b)))}`)
    }
    await expectStatus('push', (b) => ({ 'X-GitHub-Event': 'push', ...github('gh-secret', b) }), 202)
    await expectStatus('push', () => ({ 'X-GitHub-Event': 'push', ...gitlab('gh-secret') }), 401)
    await expectStatus('push', (b) => ({ 'X-GitHub-Event': 'push', ...generic('gh-secret', b) }), 401)
    await expectStatus('gl', () => gitlab('gl-secret'), 202)
    await expectStatus('gl', () => gitlab('gl-secre'), 401)
    await expectStatus('gl', (b) => github('gl-secret', b), 401)
    await expectStatus('gl', (b) => generic('gl-secret', b), 401)
    await expectStatus('gen', (b) => generic('gen-secret', b), 202)
    await expectStatus('gen', (b) => generic('gen-secret', b, Math.floor(Date.now() / 1000) - 301), 401)
    await expectStatus('gen', (b) => github('gen-secret', b), 401)
    await expectStatus('gen', () => gitlab('gen-secret'), 401)
    // No pinned scheme: any valid form passes, a wrong one does not.
    await expectStatus('auto', (b) => github('auto-secret', b), 202)
    await expectStatus('auto', () => gitlab('auto-secret'), 202)
    await expectStatus('auto', (b) => generic('auto-secret', b), 202)
    await expectStatus('auto', (b) => github('gl-secret', b), 401)
    await expectStatus('auto', () => ({}), 401)
  })

  await t.test('the push route ran with its skill loaded, and the gateway stops cleanly', async () => {
    const first = gw.model.requests.find((r) => JSON.stringify(r.body?.messages ?? []).includes('Push to octo/repo'))
    assert.ok(first, 'the push run reached the model')
    assert.match(JSON.stringify(first.body.messages), /Always answer in one line \(code-review\)/)
    assert.equal(await gw.agent.stop('SIGINT'), 0)
  })
})
