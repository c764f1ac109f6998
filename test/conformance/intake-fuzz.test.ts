// Every network intake against 500 generated hostile bodies each (test/conformance/fuzz-bodies.ts,
// seeded): the API server's chat completions and responses, a signed webhook (the HMAC computed
// here, so bodies reach parsing), the capability IPC (a real token) and the SMS form. One real
// `agent gateway run` serves them all; no answer is a 5xx, every intake also answers some bodies
// 200 (the fuzz reaches past the gates), and afterwards the process is up, /health answers and its
// log shows no stray error the process guard had to catch.

import assert from 'node:assert/strict'
import { createHmac } from 'node:crypto'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { issueToken, loadSecret } from '../../extensions/capabilities/token.ts'
import { makeTempHome, startScriptedModel } from '../../sdk/testing/index.ts'
import { startAgent } from '../helpers/agent-process.ts'
import { formBody, jsonBody, seeded, type JsonIntake } from './fuzz-bodies.ts'
import { deferrals } from '../helpers/teardown.ts'

const CASES = 500
const WEBHOOK_SECRET = 'fuzz-webhook-secret-0123456789'

interface Intake {
  name: string
  url: string
  /** Largest body generated: below the intake's limit, so every body is read (no 413 races). */
  maxBytes: number
  body(i: number): Buffer
  headers(body: Buffer, i: number): Record<string, string>
}

function prepareHome(home: string): string {
  writeFileSync(
    join(home, 'config.yaml'),
    YAML.stringify({
      platforms: {
        // Events other than `push` are parsed, then ignored: the fuzz exercises intake, not runs.
        webhook: { enabled: true, extra: { rate_limit: 1_000_000, routes: { fuzz: { secret: WEBHOOK_SECRET, signature: 'github', events: ['push'], prompt: 'Event: {action}' } } } },
      },
    }),
  )
  mkdirSync(join(home, 'capabilities'))
  writeFileSync(join(home, 'capabilities', 'main.json'), JSON.stringify({ identifier: 'main', windows: ['main'], permissions: ['default'] }))
  const ext = join(home, 'extensions', 'fuzz-frontend')
  mkdirSync(ext, { recursive: true })
  writeFileSync(
    join(ext, 'index.ts'),
    `import { defineExtension, exposeToFrontends } from 'agent/sdk'
export default defineExtension({ name: 'fuzz-frontend', dependsOn: ['capabilities'], setup(api) {
  exposeToFrontends(api, [{ name: 'echo_args', default: true, handler: (call) => ({ keys: Object.keys(call.args).length }) }])
} })\n`,
  )
  return issueToken(loadSecret(home), { window: 'main', ttlSeconds: 3600 }).token
}

test('500 hostile bodies to each intake: no 5xx, and the gateway stays up and healthy', { timeout: 120_000 }, async (t) => {
  const home = makeTempHome()
  const defer = deferrals(t)
  defer(() => rmSync(home, { recursive: true, force: true }))
  const token = prepareHome(home)
  const model = await startScriptedModel({ respond: () => ({ text: 'ok' }), record: false })
  defer(() => model.close())
  // The SMS provider's REST API, for the pairing replies the gateway sends to unknown numbers.
  const twilio = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SMfuzz"}'))
  })
  await new Promise<void>((resolve) => twilio.listen(0, '127.0.0.1', resolve))
  defer(() => new Promise<void>((resolve) => twilio.close(() => resolve())))
  const twilioPort = (twilio.address() as { port: number }).port

  const gateway = startAgent(['gateway', 'run'], {
    home,
    env: {
      API_SERVER_ENABLED: 'true',
      API_SERVER_PORT: '0',
      WEBHOOK_PORT: '0',
      AGENT_INFERENCE_PROVIDER: 'custom',
      OPENAI_BASE_URL: model.url,
      OPENAI_API_KEY: 'sk-fuzz-model-key-0000',
      AGENT_MODEL: 'scripted-model',
      TWILIO_ACCOUNT_SID: 'ACfuzz',
      TWILIO_AUTH_TOKEN: 'fuzz-twilio-token',
      TWILIO_PHONE_NUMBER: '+15550000000',
      TWILIO_API_BASE_URL: `http://127.0.0.1:${twilioPort}`,
      SMS_INSECURE_NO_SIGNATURE: 'true',
    },
  })
  defer(() => gateway.stop())
  const api = (await gateway.waitFor(/listening: api on (http:\/\/\S+)/))[1]!
  const webhook = (await gateway.waitFor(/listening: webhook on (http:\/\/\S+)/))[1]!
  await gateway.waitFor(/gateway running/)

  const json = { 'content-type': 'application/json' }
  const jsonIntake = (name: string, kind: JsonIntake, url: string, maxBytes: number, headers: Intake['headers']): Intake => {
    const rng = seeded(0x5eed + name.length * 7919)
    return { name, url, maxBytes, body: (i) => jsonBody(rng, kind, i, maxBytes), headers }
  }
  const smsRng = seeded(0xf0f0)
  const intakes: Intake[] = [
    jsonIntake('chat completions', 'chat', `${api}/v1/chat/completions`, 400_000, () => json),
    jsonIntake('responses', 'responses', `${api}/v1/responses`, 400_000, () => json),
    jsonIntake('webhook', 'webhook', `${webhook}/webhooks/fuzz`, 400_000, (body, i) => ({
      ...json,
      'x-github-event': 'ping',
      'x-github-delivery': `fuzz-${i}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex')}`,
    })),
    jsonIntake('capability ipc', 'ipc', `${api}/ipc/echo_args`, 400_000, () => ({ ...json, authorization: `Bearer ${token}` })),
    { name: 'sms form', url: `${webhook}/sms/twilio`, maxBytes: 60_000, body: (i) => formBody(smsRng, i, 60_000), headers: () => ({ 'content-type': 'application/x-www-form-urlencoded' }) },
  ]

  const statuses = new Map<string, Map<number, number>>()
  const failures: string[] = []
  await Promise.all(
    intakes.map(async (intake) => {
      const counts = new Map<number, number>()
      statuses.set(intake.name, counts)
      for (let i = 0; i < CASES; i++) {
        const body = intake.body(i)
        let status: number
        try {
          const res = await fetch(intake.url, { method: 'POST', headers: intake.headers(body, i), body })
          status = res.status
          const text = await res.text()
          if (status >= 500) failures.push(`${intake.name} #${i}: ${status} ${text.slice(0, 200)} for ${JSON.stringify(body.subarray(0, 120).toString('latin1'))}`)
        } catch (error) {
          status = 0
          failures.push(`${intake.name} #${i}: no answer (${(error as Error).message}) for ${JSON.stringify(body.subarray(0, 120).toString('latin1'))}`)
        }
        counts.set(status, (counts.get(status) ?? 0) + 1)
      }
    }),
  )
  const summary = [...statuses].map(([name, counts]) => `${name}: ${[...counts].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(' ')}`).join('\n')
  assert.deepEqual(failures.slice(0, 10), [], summary)
  // Not vacuous: every intake let some bodies through its gates (signature, token, parsing).
  for (const [name, counts] of statuses) assert.ok((counts.get(200) ?? 0) > 0, `${name} never answered 200:\n${summary}`)
  for (const [name, counts] of statuses) assert.ok((counts.get(400) ?? 0) > 0, `${name} never answered 400:\n${summary}`)

  const health = await fetch(`${api}/health`)
  assert.equal(health.status, 200)
  assert.equal(gateway.child.exitCode, null)
  assert.doesNotMatch(gateway.stderr(), /uncaught exception|unhandled rejection/)
})
