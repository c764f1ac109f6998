// Signed webhook deliveries accepted per second on loopback, against a running `agent gateway run`
// (real runtime, scripted model): unique GitHub-signed pushes, 16 in flight, each answered 202 while
// the agent runs go on in the background.

import { createHmac } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'
import { startScriptedModel } from '../../sdk/testing/index.ts'
import { startAgent } from '../helpers/agent-process.ts'

const TOTAL = 1000
const CONCURRENCY = 16
const SECRET = 'bench-secret'

const home = mkdtempSync(join(tmpdir(), 'agent-bench-webhook-'))
const model = await startScriptedModel({ record: false, respond: () => ({ text: 'ok' }) })
writeFileSync(
  join(home, 'config.yaml'),
  YAML.stringify({ _config_version: 10, platforms: { webhook: { enabled: true, extra: { rate_limit: 1_000_000, routes: { bench: { secret: SECRET, prompt: 'Push {n}', deliver: 'log' } } } } } }),
)
const agent = startAgent(['gateway', 'run'], { home, env: { WEBHOOK_PORT: '0', AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'k', AGENT_MODEL: 'scripted-model' } })
try {
  const [, url] = await agent.waitFor(/listening: webhook on (http:\/\/\S+)/, 30_000)
  const send = async (n: number) => {
    const body = JSON.stringify({ n, repository: { full_name: 'octo/repo' } })
    const res = await fetch(`${url}/webhooks/bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': `bench-${n}`, 'X-Hub-Signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
      body,
    })
    await res.arrayBuffer()
    if (res.status !== 202) throw new Error(`delivery ${n} answered ${res.status}`)
  }
  for (let i = 0; i < 50; i++) await send(-1 - i) // warm-up
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < TOTAL) await send(next++)
  }))
  const seconds = (performance.now() - started) / 1000
  console.log(`webhook: ${TOTAL} signed deliveries accepted (202) in ${seconds.toFixed(2)} s = ${Math.round(TOTAL / seconds)} deliveries/s (concurrency ${CONCURRENCY}, loopback, runs in the background)`)
} finally {
  await agent.stop('SIGINT')
  await model.close()
  rmSync(home, { recursive: true, force: true })
}
