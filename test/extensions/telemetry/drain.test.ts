// Graceful drain of a real `agent gateway run` on SIGTERM: /ready turns 503 at once, a new run is
// refused with 503, the run under way finishes with its answer (not interrupted), then the process
// exits 0. With gateway.drain_timeout_seconds: 0 the same run is interrupted instead (the old way).

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { startScriptedModel } from 'agent/sdk/testing'
import { startAgent } from '../../helpers/agent-process.ts'
import { tempDir } from '../../helpers/temp.ts'
import { until } from '../../helpers/until.ts'

/** Every request to the agent gives up after 30 s: a wedged process fails the test instead of hanging it. */
const boundedFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })

// Long enough for the checks made while the run waits for the model (no assertion on time).
const MODEL_DELAY_MS = 6000

async function slowRunUnderWay(t: TestContext, config = '') {
  const model = await startScriptedModel({ respond: () => ({ text: 'finished in time', delayMs: MODEL_DELAY_MS }) })
  t.after(() => model.close())
  const home = tempDir(t, 'agent-home-')
  if (config) writeFileSync(join(home, 'config.yaml'), config)
  const agent = startAgent(['gateway', 'run'], {
    home,
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, AGENT_MODEL: 'scripted-model', OPENAI_API_KEY: 'sk-drain-test', API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0' },
  })
  t.after(() => agent.stop('SIGKILL'))
  const url = (await agent.waitFor(/listening: api on (http:\/\/\S+)/, 60_000))[1]!
  assert.equal((await boundedFetch(`${url}/ready`)).status, 200)
  const answer = boundedFetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'take your time' }] }) })
  answer.catch(() => undefined)
  await until(() => model.requests.some((r) => r.path.endsWith('/chat/completions')), 30_000, 'the run to reach the model')
  const exited = new Promise<number | null>((resolve) => agent.child.once('exit', (code) => resolve(code)))
  agent.child.kill('SIGTERM')
  return { agent, url, answer, exited }
}

test('SIGTERM drains: readiness 503, new runs 503, the running turn finishes, exit 0', async (t) => {
  const { agent, url, answer, exited } = await slowRunUnderWay(t)
  await agent.waitFor(/gateway stopping: draining/, 10_000)
  const ready = await boundedFetch(`${url}/ready`)
  assert.equal(ready.status, 503)
  assert.deepEqual(await ready.json(), { status: 'draining' })
  const refused = await boundedFetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'agent', messages: [{ role: 'user', content: 'one more' }] }) })
  assert.equal(refused.status, 503)
  assert.equal(((await refused.json()) as any).error.code, 'shutting_down')
  // Liveness stays up while draining.
  assert.equal((await boundedFetch(`${url}/health`)).status, 200)

  const finished = await answer
  const body = (await finished.json()) as any
  assert.equal(finished.status, 200, JSON.stringify(body))
  assert.equal(body.choices[0].message.content, 'finished in time')
  assert.equal(await exited, 0, agent.stderr())
})

test('gateway.drain_timeout_seconds: 0 interrupts the running turn at once (no drain)', async (t) => {
  const { answer, exited, agent } = await slowRunUnderWay(t, 'gateway:\n  drain_timeout_seconds: 0\n')
  const finished = await answer.catch((error) => error)
  // Interrupted: either an error answer or the connection closed; never the model's text.
  if (finished instanceof Response) assert.ok(!(await finished.text()).includes('finished in time'))
  assert.equal(await exited, 0, agent.stderr())
})
