// No SMS lost (inbound webhooks to the running gateway's listener, replies to a loopback fake of the
// provider's REST API): the conformance cases with a provider outage as the dropped connection
// (answers failing with 503 wait in the gateway's outbox and go out once the provider is back), and
// a refusal that is final (400) given up at once.

import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { HTTP_SERVICE, type ExtensionDefinition, type HttpService } from '../../../sdk/index.ts'
import { adapterConformance, createTestKernel, recordingRuntime, runGateway, type TestKernel } from '../../../sdk/testing/index.ts'
import { tempDir } from '../../helpers/temp.ts'
import { until } from '../../helpers/until.ts'

const CORE = ['http', 'gateway', 'gateway-auth', 'delivery', 'state-db', 'sms']
const OURS = '+15550001111'
const ALICE = '+15551234567'

interface Provider {
  url: string
  /** Bodies sent to each number, in order. */
  sent(to: string): string[]
  /** The next `count` sends answer `status`. */
  fail(count: number, status?: number): void
}

async function fakeProvider(t: TestContext): Promise<Provider> {
  const posts: Array<{ to: string; body: string }> = []
  let failing = { count: 0, status: 503 }
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const form = new URLSearchParams(raw)
    if (failing.count > 0) {
      failing.count--
      res.writeHead(failing.status, { 'content-type': 'application/json' })
      return res.end(JSON.stringify({ code: 20500, message: 'Service unavailable', status: failing.status }))
    }
    posts.push({ to: form.get('To') ?? '', body: form.get('Body') ?? '' })
    res.writeHead(201, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ sid: `SM${posts.length}`, status: 'queued' }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sent: (to) => posts.filter((p) => p.to === to).map((p) => p.body),
    fail(count, status = 503) {
      failing = { count, status }
    },
  }
}

function env(provider: Provider): Record<string, string> {
  return {
    TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
    TWILIO_AUTH_TOKEN: 'twilio-auth-token-123',
    TWILIO_PHONE_NUMBER: OURS,
    TWILIO_API_BASE_URL: provider.url,
    SMS_INSECURE_NO_SIGNATURE: 'true',
    SMS_ALLOWED_USERS: ALICE,
    WEBHOOK_PORT: '0',
    API_SERVER_PORT: '0',
  }
}

test('SMS conformance: no message lost across a provider outage and restarts', async (t) => {
  const provider = await fakeProvider(t)
  let current: TestKernel | undefined
  let sid = 0
  await adapterConformance(t, {
    adapter: 'sms',
    enabled: () => createTestKernel({ builtins: CORE, env: env(provider) }),
    disabled: () => createTestKernel({ builtins: CORE, env: env(provider), config: { platforms: { sms: { enabled: false } } } }),
    continuity: {
      async kernel({ home, extensions }: { home: string; extensions: ExtensionDefinition[] }) {
        current = await createTestKernel({ home, builtins: CORE, extensions, env: env(provider), config: { gateway: { outbox: { retry_initial_ms: 100 } } }, kernel: { logLevel: 'info', logSink: { write() {} } } })
        return current
      },
      async say(text) {
        // While the gateway is down nobody listens: the provider keeps nothing for it.
        const address = current?.kernel.services.get<HttpService>(HTTP_SERVICE)?.address('webhook')
        if (!address) return
        const response = await fetch(`${address.url}/sms/twilio`, { method: 'POST', body: new URLSearchParams({ From: ALICE, To: OURS, Body: text, MessageSid: `SM${++sid}` }) }).catch(() => undefined)
        await response?.arrayBuffer()
      },
      said: () => provider.sent(ALICE),
      // The provider's outage: the next two sends answer 503.
      drop: () => provider.fail(2),
      keepsHistory: false,
    },
  })
})

test('a final refusal (400) is given up at once; the next answer goes out', async (t) => {
  const provider = await fakeProvider(t)
  const runtime = recordingRuntime()
  const k = await createTestKernel({ home: tempDir(t), builtins: CORE, extensions: [runtime.definition], env: env(provider), kernel: { logLevel: 'info', logSink: { write() {} } } })
  t.after(() => k.close())
  const gateway = await runGateway(k)
  t.after(() => gateway.stop())
  const url = k.kernel.services.require<HttpService>(HTTP_SERVICE).address('webhook')!.url
  const post = (body: string, id: string) => fetch(`${url}/sms/twilio`, { method: 'POST', body: new URLSearchParams({ From: ALICE, To: OURS, Body: body, MessageSid: id }) }).then((r) => r.arrayBuffer())
  provider.fail(1, 400)
  await post('refused', 'SMa')
  await until(() => gateway.lines.some((l) => /gave up a reply to sms:\+155\*+4567 after 1 attempt\(s\): SMS provider 400/.test(l)), 5000, () => gateway.lines.join('\n'))
  await post('next', 'SMb')
  await until(() => provider.sent(ALICE).includes('echo: next'), 5000, 'the next answer')
  assert.deepEqual(provider.sent(ALICE), ['echo: next'])
})
