// Against a running `agent gateway run`: an inbound SMS from an allowed number gets the model's answer
// as several ≤1600-character parts without markdown, posted with Basic auth to a loopback fake of the
// provider's REST API; our own number, a stranger and a bad signature run nothing; no phone number
// appears unredacted in the debug log.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { eventually, startGateway } from '../gateway/harness.ts'

const SID = 'AC0123456789abcdef0123456789abcdef'
const TOKEN = 'twilio-auth-token-123'
const OURS = '+15550001111'
const ALLOWED = '+15551234567'
const STRANGER = '+15559876543'
const PUBLIC_URL = 'https://agent.example.test/sms/twilio'

function sign(url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((k) => k + params[k]).join('')
  return createHmac('sha1', TOKEN).update(data).digest('base64')
}

async function fakeProvider(t: { after(fn: () => unknown): void }) {
  const posts: Array<{ path: string; auth: string; form: URLSearchParams }> = []
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    posts.push({ path: req.url ?? '', auth: req.headers.authorization ?? '', form: new URLSearchParams(raw) })
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ sid: `SM${posts.length}`, status: 'queued' }))
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  t.after(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, posts }
}

const LONG_ANSWER = [
  '# Weather report',
  ...Array.from({ length: 40 }, (_, i) => `Line ${i}: the **forecast** for day ${i} is *mild* with \`light_wind\` and a [map](https://example.test/${i}); snake_case_stays.`),
  '```js\nconsole.log("code kept")\n```',
].join('\n\n')

test('SMS intake and replies end to end', async (t) => {
  const provider = await fakeProvider(t)
  const model = await startScriptedModel({ respond: () => ({ text: LONG_ANSWER }) })
  t.after(() => model.close())
  const gw = await startGateway(t, {
    model,
    config: { platforms: { sms: { enabled: true } } },
    env: {
      TWILIO_ACCOUNT_SID: SID,
      TWILIO_AUTH_TOKEN: TOKEN,
      TWILIO_PHONE_NUMBER: OURS,
      TWILIO_API_BASE_URL: provider.url,
      SMS_WEBHOOK_URL: PUBLIC_URL,
      SMS_ALLOWED_USERS: ALLOWED,
      AGENT_LOG_LEVEL: 'debug',
    },
  })
  const calls = () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).length
  const inbound = async (params: Record<string, string>, signature = sign(PUBLIC_URL, params)) => {
    const res = await fetch(`${gw.url}/sms/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': signature }, body: new URLSearchParams(params).toString() })
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() }
  }

  await t.test('an allowed number gets the answer in ≤1600-character parts without markdown', async () => {
    const res = await inbound({ MessageSid: 'SM-in-1', From: ALLOWED, To: OURS, Body: 'weather?' })
    assert.equal(res.status, 200)
    assert.match(res.type ?? '', /xml/)
    assert.match(res.body, /<Response><\/Response>/)
    assert.ok(await eventually(() => provider.posts.length >= 3, 15_000), `posts: ${provider.posts.length}; stderr: ${gw.agent.stderr()}`)
    await sleep(300)
    const expectedAuth = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`
    const text = provider.posts.map((p) => p.form.get('Body') ?? '')
    for (const post of provider.posts) {
      assert.equal(post.path, `/2010-04-01/Accounts/${SID}/Messages.json`)
      assert.equal(post.auth, expectedAuth)
      assert.equal(post.form.get('From'), OURS)
      assert.equal(post.form.get('To'), ALLOWED)
    }
    for (const part of text) {
      assert.ok(part.length <= 1600, `part of ${part.length} characters`)
      assert.doesNotMatch(part, /\*\*|`|^#|\]\(/m)
    }
    const joined = text.join('\n')
    assert.match(joined, /Weather report/)
    assert.match(joined, /the forecast for day 39 is mild with light_wind and a map; snake_case_stays\./)
    assert.match(joined, /console\.log\("code kept"\)/)
    assert.equal(calls(), 1)
  })

  await t.test('our own number, a stranger and a bad signature run nothing', async () => {
    const before = { calls: calls(), posts: provider.posts.length }
    assert.equal((await inbound({ MessageSid: 'SM-in-2', From: OURS, To: OURS, Body: 'echo' })).status, 200)
    assert.equal((await inbound({ MessageSid: 'SM-in-3', From: STRANGER, To: OURS, Body: 'hi there' })).status, 200)
    const forged = await inbound({ MessageSid: 'SM-in-4', From: ALLOWED, To: OURS, Body: 'forged' }, sign('https://other.example/sms', { From: ALLOWED }))
    assert.equal(forged.status, 403)
    const unsigned = await fetch(`${gw.url}/sms/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `From=${encodeURIComponent(ALLOWED)}&Body=x` })
    assert.equal(unsigned.status, 403)
    await sleep(500)
    assert.equal(calls(), before.calls, 'no agent run')
    assert.equal(provider.posts.length, before.posts, 'nothing sent')
  })

  await t.test('no phone number appears unredacted in the log', async () => {
    assert.equal(await gw.agent.stop('SIGINT'), 0)
    const log = gw.agent.stderr() + gw.agent.stdout()
    assert.match(log, /\[sms\]|sms/, 'the adapter logged at debug level')
    for (const number of [OURS, ALLOWED, STRANGER]) {
      const digits = number.slice(1)
      assert.ok(!log.includes(digits), `${number} appears in the log:\n${log.split('\n').filter((l) => l.includes(digits)).join('\n')}`)
    }
    assert.match(log, /\+155\*\*\*\*4567/, 'numbers are shown redacted')
  })
})
