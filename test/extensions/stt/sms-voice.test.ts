// An MMS voice note through a real `agent gateway run`: the media is fetched from the provider's API
// host with the account's Basic credentials and transcribed (loopback fakes) before the agent reads
// it; media on any other host is never requested.
import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { eventually, startGateway } from '../gateway/harness.ts'
import { OGG_HEADER } from './audio-fixtures.ts'
import { startFakeTranscriptionApi } from './fake-stt.ts'

const SID = 'AC0123456789abcdef0123456789abcdef'
const TOKEN = 'twilio-auth-token-voice'
const OURS = '+15550001111'
const ALLOWED = '+15551234567'
const PUBLIC_URL = 'https://agent.example.test/sms/twilio'
const STT_KEY = 'sk-stt-sms-key-0123456789'

function sign(params: Record<string, string>): string {
  return createHmac('sha1', TOKEN).update(PUBLIC_URL + Object.keys(params).sort().map((k) => k + params[k]).join('')).digest('base64')
}

async function server(t: TestContext, handler: Parameters<typeof createServer>[1]) {
  const s = createServer(handler)
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  t.after(() => new Promise<void>((r) => (s.closeAllConnections(), s.close(() => r()))))
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`
}

test('an MMS voice note is transcribed before the agent reads it; media elsewhere is not fetched', async (t) => {
  const media: Array<{ path: string; auth: string }> = []
  const provider = await server(t, async (req, res) => {
    for await (const _ of req) void _
    if (req.method === 'GET') {
      media.push({ path: req.url ?? '', auth: req.headers.authorization ?? '' })
      return res.writeHead(200, { 'content-type': 'audio/ogg' }).end(OGG_HEADER)
    }
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ sid: 'SM1', status: 'queued' }))
  })
  const elsewhere: string[] = []
  const other = await server(t, (req, res) => void (elsewhere.push(req.url ?? ''), res.end(OGG_HEADER)))
  const stt = await startFakeTranscriptionApi(STT_KEY, { text: 'book a table for two' })
  t.after(() => stt.close())
  const model = await startScriptedModel({ respond: () => ({ text: 'done' }) })
  t.after(() => model.close())
  const gw = await startGateway(t, {
    model,
    config: { platforms: { sms: { enabled: true } }, stt: { provider: 'api', api: { base_url: `${stt.url}/v1` } } },
    env: { TWILIO_ACCOUNT_SID: SID, TWILIO_AUTH_TOKEN: TOKEN, TWILIO_PHONE_NUMBER: OURS, TWILIO_API_BASE_URL: provider, SMS_WEBHOOK_URL: PUBLIC_URL, SMS_ALLOWED_USERS: ALLOWED, STT_API_KEY: STT_KEY },
  })
  const prompts = () => model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => String(r.body.messages.filter((m: any) => m.role === 'user').at(-1)?.content))
  const inbound = (params: Record<string, string>) => fetch(`${gw.url}/sms/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'X-Twilio-Signature': sign(params) }, body: new URLSearchParams(params).toString() })

  const mediaPath = `/2010-04-01/Accounts/${SID}/Messages/MM1/Media/ME1`
  assert.equal((await inbound({ MessageSid: 'MM1', From: ALLOWED, To: OURS, Body: '', NumMedia: '2', MediaUrl0: `${provider}${mediaPath}`, MediaContentType0: 'audio/ogg', MediaUrl1: `${provider}/image`, MediaContentType1: 'image/jpeg' })).status, 200)
  assert.ok(await eventually(() => prompts().length === 1, 20_000), gw.agent.stderr())
  assert.equal(prompts()[0], '[voice message, transcribed]: book a table for two')
  assert.deepEqual(media, [{ path: mediaPath, auth: `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}` }], 'only the audio, with the account credentials')

  assert.equal((await inbound({ MessageSid: 'MM2', From: ALLOWED, To: OURS, Body: 'listen', NumMedia: '1', MediaUrl0: `${other}/voice.ogg`, MediaContentType0: 'audio/ogg' })).status, 200)
  assert.ok(await eventually(() => prompts().length === 2, 20_000), gw.agent.stderr())
  assert.equal(prompts()[1], 'listen\n[voice message: mms-audio-1 could not be downloaded]')
  assert.deepEqual(elsewhere, [], 'a URL on another host is never requested')
  assert.equal(stt.requests.length, 1)
})
