// Signed webhook deliveries accepted per second on loopback, against a running `agent gateway run`
// (real runtime, scripted model): unique GitHub-signed pushes, 16 in flight, each answered 202 while
// the agent runs go on in the background (each checked against and recorded in state.db). Then the
// same bodies replayed under new delivery ids, each answered 200 duplicate.

import { createHmac } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
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
  const send = async (n: number, delivery = `bench-${n}`, expected = 202) => {
    const body = JSON.stringify({ n, repository: { full_name: 'octo/repo' } })
    const res = await fetch(`${url}/webhooks/bench`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': delivery, 'X-Hub-Signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
      body,
    })
    await res.arrayBuffer()
    if (res.status !== expected) throw new Error(`delivery ${n} answered ${res.status}, not ${expected}`)
  }
  /** CPU seconds the gateway (the bin and the process it respawns) has used so far: Linux /proc, undefined elsewhere. */
  const cpu = (pid = agent.child.pid): number | undefined => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean)
      return children.reduce((sum, child) => sum + (cpu(Number(child)) ?? 0), (Number(fields[11]) + Number(fields[12])) / 100)
    } catch {
      return undefined
    }
  }
  /** Sends deliveries 0..TOTAL-1 with CONCURRENCY in flight; returns the seconds taken. */
  const round = async (delivery: (n: number) => string, expected: number) => {
    let next = 0
    const started = performance.now()
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        const n = next++
        await send(n, delivery(n), expected)
      }
    }))
    return (performance.now() - started) / 1000
  }
  for (let i = 0; i < 50; i++) await send(-1 - i) // warm-up
  const cpuBefore = cpu()
  const seconds = await round((n) => `bench-${n}`, 202)
  const cpuAfter = cpu()
  // CPU per delivery is steadier than the rate on a shared machine (it includes the part of the background runs done meanwhile).
  const perDelivery = cpuBefore !== undefined && cpuAfter !== undefined ? `, gateway CPU ${((cpuAfter - cpuBefore) * 1000 / TOTAL).toFixed(2)} ms per delivery` : ''
  console.log(`webhook: ${TOTAL} signed deliveries accepted (202) in ${seconds.toFixed(2)} s = ${Math.round(TOTAL / seconds)} deliveries/s (concurrency ${CONCURRENCY}, loopback, runs in the background${perDelivery})`)
  const replays = await round((n) => `replay-${n}`, 200)
  console.log(`webhook: ${TOTAL} replays under new delivery ids answered duplicate (200) in ${replays.toFixed(2)} s = ${Math.round(TOTAL / replays)} replays/s`)
} finally {
  await agent.stop('SIGINT')
  await model.close()
  rmSync(home, { recursive: true, force: true })
}
