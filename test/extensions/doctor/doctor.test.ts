// `agent doctor` and `agent status` through the real bin: a reachable endpoint (the scripted model),
// an unreachable one (a closed port) and a silent one (accepts, never answers) are each reported
// correctly, with a verdict per line and exit code 1 when something failed.

import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:net'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from '../../../sdk/testing/index.ts'
import { runAgent } from '../../helpers/agent-process.ts'

let model: ScriptedModelServer
let closedPort: number
let silent: Server
let silentPort: number
const homes: string[] = []

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

before(async () => {
  model = await startScriptedModel({ models: ['scripted-model', 'foo'] })
  closedPort = await freePort()
  silent = createServer(() => undefined) // accepts connections, never answers
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
  silentPort = (silent.address() as { port: number }).port
})
after(async () => {
  await model.close()
  silent.close()
  for (const h of homes) rmSync(h, { recursive: true, force: true })
})

function home(config: Record<string, unknown>): string {
  const dir = makeTempHome('agent-doctor-')
  homes.push(dir)
  writeFileSync(join(dir, 'config.yaml'), YAML.stringify({ _config_version: 10, ...config }))
  return dir
}

const env = () => ({ AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url })

test('a reachable endpoint is reported ok and the verdict is clean', async () => {
  const dir = home({})
  const r = await runAgent(['doctor'], { home: dir, env: env(), timeoutMs: 60_000 })
  assert.equal(r.code, 0, r.stdout + r.stderr)
  assert.match(r.stdout, /✓ custom \(selected\)\s+reachable in \d+ ms, 2 models/)
  assert.match(r.stdout, /✓ provider\s+custom \(from env\)/)
  assert.doesNotMatch(r.stdout, /✗/)
  assert.ok(model.requests.some((q) => q.method === 'GET' && q.path.endsWith('/models')))
})

test('an unreachable and a silent endpoint each fail on their own line, in bounded time', async () => {
  const dir = home({
    custom_providers: [
      { name: 'closed', base_url: `http://127.0.0.1:${closedPort}/v1` },
      { name: 'silent', base_url: `http://127.0.0.1:${silentPort}/v1` },
    ],
  })
  const r = await runAgent(['doctor', '--json', '--timeout', '2'], { home: dir, env: env(), timeoutMs: 60_000 })
  assert.equal(r.code, 1, r.stderr)
  const report = JSON.parse(r.stdout)
  assert.equal(report.healthy, false)
  const line = (subject: string) => report.checks.find((c: any) => c.section === 'Providers' && c.subject === subject)
  assert.equal(line('custom (selected)').verdict, 'ok')
  assert.equal(line('custom:closed').verdict, 'fail')
  assert.match(line('custom:closed').detail, /^unreachable: /)
  assert.equal(line('custom:silent').verdict, 'fail')
  assert.match(line('custom:silent').detail, /unreachable: .*(no answer within 2 s|timed out|timeout)/i)
  assert.ok(line('custom:closed').fix)
  assert.equal(report.failures, 2)
})

test('agent status is offline by default and --check adds connectivity', async () => {
  const dir = home({ custom_providers: [{ name: 'closed', base_url: `http://127.0.0.1:${closedPort}/v1` }] })
  const before = model.requests.length
  const plain = await runAgent(['status', '--json'], { home: dir, env: env(), timeoutMs: 60_000 })
  assert.equal(plain.code, 0, plain.stderr)
  const status = JSON.parse(plain.stdout)
  assert.deepEqual(status.model, { configured: true, provider: 'custom', model: null, source: 'env' })
  assert.equal(status.gateway.running, false)
  assert.equal(model.requests.length, before, 'status without --check makes no request')
  const checked = await runAgent(['status', '--check', '--timeout', '2'], { home: dir, env: env(), timeoutMs: 60_000 })
  assert.equal(checked.code, 1)
  assert.match(checked.stdout, /✓ custom \(selected\)\s+reachable/)
  assert.match(checked.stdout, /✗ custom:closed\s+unreachable/)
})

test('no provider at all is a failure with the fix named', async () => {
  const dir = home({})
  const r = await runAgent(['doctor', '--offline'], { home: dir, timeoutMs: 60_000 })
  assert.equal(r.code, 1)
  assert.match(r.stdout, /✗ provider\s+no model provider configured/)
  assert.match(r.stdout, /→ run `agent model`/)
})

test('a top-level section nothing reads is a warning with a did-you-mean; a section that is read is not', async () => {
  const dir = home({ aprovals: { mode: 'off' }, display: { theme: 'dark' }, my_plugin: { level: 1 } })
  const r = await runAgent(['doctor', '--offline'], { home: dir, env: env(), timeoutMs: 60_000 })
  assert.match(r.stdout, /aprovals\s+no loaded extension reads "aprovals" \(did you mean "approvals"\?\)/)
  assert.match(r.stdout, /my_plugin\s+no loaded extension reads "my_plugin"/)
  assert.doesNotMatch(r.stdout, /reads "display"/)
})
