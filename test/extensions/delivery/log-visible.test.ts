// A webhook answer delivered to `log` is seen at the default log level of `agent gateway run` (info
// in the long-running gateway, warn for commands), without secrets. Driven end to end: the real
// gateway, a signed webhook, the scripted model.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { test } from 'node:test'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { eventually, startGateway } from '../gateway/harness.ts'
import { webhookClient } from '../webhook/client.ts'

const KEY = 'sk-live0123456789abcdefghijklmn'

test('gateway run: a webhook answer delivered to the log is printed at the default level, secrets redacted', async (t) => {
  const model = await startScriptedModel({ respond: () => ({ text: `The build is green. Key ${KEY} was not needed.` }) })
  t.after(() => model.close())
  const config = { platforms: { webhook: { enabled: true, extra: { routes: { ci: { secret: 'ci-secret', signature: 'generic', prompt: 'CI says {status}', deliver: 'log' } } } } } }
  // No AGENT_LOG_LEVEL: the gateway's own default.
  const gw = await startGateway(t, { config, model })
  const { post } = webhookClient(gw)
  const body = JSON.stringify({ status: 'passed' })
  const ts = Math.floor(Date.now() / 1000)
  const res = await post('ci', body, { 'X-Webhook-Timestamp': String(ts), 'X-Webhook-Signature': createHmac('sha256', 'ci-secret').update(`${ts}.${body}`).digest('hex') })
  assert.equal(res.status, 202)
  assert.ok(await eventually(() => gw.agent.stderr().includes('delivered to the log: The build is green.'), 20_000), gw.agent.stderr())
  assert.match(gw.agent.stderr(), /\[delivery\] info: delivered to the log: The build is green\. Key \*\*\* was not needed\./)
  assert.ok(!gw.agent.stderr().includes(KEY), 'the key is not in the log')
})
