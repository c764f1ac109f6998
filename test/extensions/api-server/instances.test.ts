// Two real `agent gateway run` processes with the API server, each with its own home, sharing only a
// PostgreSQL database (and the API key): a response created on one is retrieved, listed, chained and
// deleted on the other; two requests racing for one conversation, one to each instance, never both
// run it (the loser is 409, its retry continues after the winner's turn); an idempotency key in
// flight on one is 409 on the other, and its answer replays there.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { backendSkip, makeTempHome, startScriptedModel, testStorage } from '../../../sdk/testing/index.ts'
import { startAgent, type RunningAgent } from '../../helpers/agent-process.ts'
import { post, until } from './harness.ts'

const API_KEY = 'instances-key-0123456789abcdef'
const auth = { authorization: `Bearer ${API_KEY}` }

const convo = (body: any): string[] => body.messages.filter((m: any) => m.role === 'user' || m.role === 'assistant').map((m: any) => `${m.role}:${m.content}`)

async function get(url: string): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { headers: auth })
  return { status: res.status, body: await res.json() }
}

test('two gateways on one database: one truth for responses, conversations and idempotency keys', { skip: backendSkip('postgres') }, async (t) => {
  // Cleanups last-registered first: the gateways stop before their database is dropped.
  const cleanups: Array<() => unknown> = []
  t.after(async () => {
    for (const fn of cleanups.reverse()) await fn()
  })
  const storage = await testStorage({ after: ((fn: () => unknown) => void cleanups.push(fn)) as TestContext['after'] }, 'postgres')
  const model = await startScriptedModel()
  cleanups.push(() => model.close())
  const env = {
    API_SERVER_ENABLED: 'true',
    API_SERVER_PORT: '0',
    API_SERVER_KEY: API_KEY,
    AGENT_INFERENCE_PROVIDER: 'custom',
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: 'sk-instances-model-key-0000',
    AGENT_MODEL: 'scripted-model',
  }
  const homes = [makeTempHome(), makeTempHome()]
  cleanups.push(() => homes.forEach((home) => rmSync(home, { recursive: true, force: true })))
  for (const home of homes) writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, ...storage.config }))
  const gateways: RunningAgent[] = homes.map((home) => startAgent(['gateway', 'run'], { home, env, logLevel: 'info' }))
  cleanups.push(async () => {
    for (const gateway of gateways) await gateway.stop('SIGKILL')
  })
  const logs = () => gateways.map((g, i) => `--- gateway ${i}\n${g.stderr().slice(-3000)}`).join('\n')
  const [a, b] = await Promise.all(gateways.map(async (g) => `${(await g.waitFor(/listening: api on (http:\/\/\S+)/, 60_000))[1]}/v1`))
  await Promise.all(gateways.map((g) => g.waitFor(/gateway running/, 60_000)))

  // Created on A; retrieved, listed and chained on B.
  const first = await post(`${a}/responses`, { input: 'My name is Ada.', instructions: 'Speak formally.' }, auth)
  assert.equal(first.status, 200, logs())
  const id = first.body.id
  const fetched = await get(`${b}/responses/${id}`)
  assert.equal(fetched.status, 200)
  assert.deepEqual(fetched.body, first.body)
  const items = await get(`${b}/responses/${id}/input_items`)
  assert.equal(items.body.data[0].content[0].text, 'My name is Ada.')
  const chained = await post(`${b}/responses`, { input: 'What is my name?', previous_response_id: id }, auth)
  assert.equal(chained.status, 200, logs())
  assert.equal(chained.body.instructions, 'Speak formally.', 'inherited across instances')
  assert.deepEqual(convo(model.requests.at(-1)!.body), ['user:My name is Ada.', 'assistant:echo: My name is Ada.', 'user:What is my name?'])
  // Deleted on B: gone on A.
  assert.equal((await fetch(`${b}/responses/${id}`, { method: 'DELETE', headers: auth })).status, 200)
  assert.equal((await get(`${a}/responses/${id}`)).status, 404)

  // A conversation started on B continues on A.
  assert.equal((await post(`${b}/responses`, { input: 'turn zero', conversation: 'race' }, auth)).status, 200)
  // One request to each instance at once; the first to reach the model answers slowly, so they overlap.
  model.enqueue({ text: 'slow answer', delayMs: 1_500 })
  const [onA, onB] = await Promise.all([post(`${a}/responses`, { input: 'from A', conversation: 'race' }, auth), post(`${b}/responses`, { input: 'from B', conversation: 'race' }, auth)])
  const statuses = [onA.status, onB.status].sort()
  assert.deepEqual(statuses, [200, 409], `one runs, the other is refused: ${JSON.stringify([onA.body, onB.body])}\n${logs()}`)
  const [winner, loser, loserUrl, loserInput] = onA.status === 200 ? [onA, onB, b, 'from B'] : [onB, onA, a, 'from A']
  assert.equal(loser.body.error.code, 'conversation_in_progress')
  assert.equal(winner.body.output[0].content[0].text, 'slow answer')
  const retried = await post(`${loserUrl}/responses`, { input: loserInput, conversation: 'race' }, auth)
  assert.equal(retried.status, 200, logs())
  assert.equal(retried.body.previous_response_id, winner.body.id, 'the retry continues after the winning turn')
  const winnerInput = loserInput === 'from A' ? 'from B' : 'from A'
  // Each turn's user and assistant messages adjacent, in order: nothing interleaved, nothing lost.
  assert.deepEqual(convo(model.requests.at(-1)!.body), ['user:turn zero', 'assistant:echo: turn zero', `user:${winnerInput}`, 'assistant:slow answer', `user:${loserInput}`])

  // An idempotency key in flight on A is 409 on B; once answered, B replays A's answer.
  model.enqueue({ text: 'answered once', delayMs: 1_000 })
  const keyed = { 'idempotency-key': 'key-across', ...auth }
  const body = { messages: [{ role: 'user', content: 'count me once' }] }
  const sent = model.requests.length
  const running = post(`${a}/chat/completions`, body, keyed)
  // A holds the key once its run reached the model (the key is taken before the run starts).
  await until(() => model.requests.length > sent, 'the keyed run on A to reach the model', 10_000)
  const during = await post(`${b}/chat/completions`, body, keyed)
  assert.equal(during.status, 409, JSON.stringify(during.body))
  assert.equal(during.body.error.code, 'idempotency_key_in_flight')
  const answered = await running
  assert.equal(answered.body.choices[0].message.content, 'answered once')
  const calls = model.requests.length
  const replayed = await post(`${b}/chat/completions`, body, keyed)
  assert.equal(replayed.headers.get('idempotent-replayed'), 'true')
  assert.deepEqual(replayed.body, answered.body)
  assert.equal(model.requests.length, calls, 'no second run')
  // Another body under the key, on either instance: 422.
  assert.equal((await post(`${a}/chat/completions`, { messages: [{ role: 'user', content: 'other' }] }, keyed)).status, 422)
})
