// `background: true` responses: answered at once as queued, polled through GET (in_progress, then
// completed), cancelled with POST /v1/responses/{id}/cancel; what cannot be backgrounded is a 400;
// past their own bound (max_background_runs) background requests get 429 while others still run.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { gateTool, post, startServer, until } from './harness.ts'
import { backendSkip, STORAGE_BACKENDS } from '../../../sdk/testing/index.ts'
import { resolveOptions } from '../../../extensions/api-server/options.ts'

for (const backend of STORAGE_BACKENDS) {
  describe(`background responses [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('background: queued at once, in_progress while it runs, completed when polled after; a chain waits for it', async (t) => {
      const g = gateTool()
      const server = await startServer(t, { storage: backend, extensions: [g.extension] })
      const client = server.client()
      server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'finished' })
      const created = await client.responses.create({ model: 'agent', input: 'slow job', background: true })
      assert.equal(created.status, 'queued')
      assert.equal(created.background, true)
      await until(() => g.state.started === 1, 'the run to reach its tool')
      assert.equal((await client.responses.retrieve(created.id)).status, 'in_progress')
      const early = await post(`${server.url}/v1/responses`, { input: 'next', previous_response_id: created.id })
      assert.equal(early.status, 400)
      assert.equal(early.body.error.code, 'response_in_progress')
      g.state.release()
      await until(async () => (await client.responses.retrieve(created.id)).status === 'completed', 'completion')
      const done = await client.responses.retrieve(created.id)
      assert.equal(done.output_text, 'finished')
      assert.equal(done.usage!.total_tokens > 0, true)
      const next = await client.responses.create({ model: 'agent', input: 'and then?', previous_response_id: created.id })
      assert.equal(next.status, 'completed')
    })

    test('background: cancel interrupts the run and stores it as cancelled; a plain response cannot be cancelled', async (t) => {
      const g = gateTool()
      const server = await startServer(t, { storage: backend, extensions: [g.extension] })
      const client = server.client()
      server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] })
      const created = await client.responses.create({ model: 'agent', input: 'long job', background: true })
      await until(() => g.state.started === 1, 'the run to reach its tool')
      const cancelled = await client.responses.cancel(created.id)
      assert.equal(cancelled.status, 'cancelled')
      assert.equal(g.state.aborted, 1)
      assert.equal((await client.responses.retrieve(created.id)).status, 'cancelled')
      // Cancelling again answers the same.
      assert.equal((await client.responses.cancel(created.id)).status, 'cancelled')

      const plain = await client.responses.create({ model: 'agent', input: 'quick' })
      const refused = await post(`${server.url}/v1/responses/${plain.id}/cancel`, {})
      assert.equal(refused.status, 400)
      assert.equal(refused.body.error.code, 'not_background')
      assert.equal((await post(`${server.url}/v1/responses/resp_unknown/cancel`, {})).status, 404)
      const noStore = await post(`${server.url}/v1/responses`, { input: 'x', background: true, store: false })
      assert.equal(noStore.status, 400)
      assert.equal(noStore.body.error.param, 'background')
      const streamed = await post(`${server.url}/v1/responses`, { input: 'x', background: true, stream: true })
      assert.equal(streamed.status, 400)
    })
  })
}

test('background runs have a bound of their own (half of max_concurrent_runs): past it 429, while a request waiting on its answer still gets through', async (t) => {
  const g = gateTool()
  const server = await startServer(t, { extensions: [g.extension], config: { platforms: { api_server: { extra: { max_concurrent_runs: 4 } } } } })
  const client = server.client()
  server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { toolCalls: [{ name: 'wait_gate', arguments: {} }] })
  const first = await client.responses.create({ model: 'agent', input: 'job 1', background: true })
  const second = await client.responses.create({ model: 'agent', input: 'job 2', background: true })
  await until(() => g.state.started === 2, 'both background runs to reach their tool')
  const calls = server.model.requests.length
  const refused = await post(`${server.url}/v1/responses`, { input: 'job 3', background: true })
  assert.equal(refused.status, 429)
  assert.equal(refused.headers.get('retry-after'), '1')
  assert.equal(refused.body.error.type, 'rate_limit_error')
  assert.equal(refused.body.error.param, 'background')
  assert.match(refused.body.error.message, /Too many background responses running \(limit 2; the other 2 of the 4 concurrent runs are kept for requests that wait on their answer\)/)
  assert.equal(server.model.requests.length, calls, 'the refused request reached no model')
  // Requests that wait on their answer keep the rest of the pool.
  const chat = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'me too' }] })
  assert.equal(chat.status, 200)
  const response = await client.responses.create({ model: 'agent', input: 'and me' })
  assert.equal(response.status, 'completed')
  g.state.release()
  for (const id of [first.id, second.id]) await until(async () => (await client.responses.retrieve(id)).status === 'completed', `${id} to complete`)
  // A finished background run frees its place.
  const later = await client.responses.create({ model: 'agent', input: 'job 4', background: true })
  await until(async () => (await client.responses.retrieve(later.id)).status === 'completed', 'the later background run')
})

test('max_background_runs: unset is half of max_concurrent_runs (at least 1; none when uncapped), set it wins, 0 means no bound of its own', () => {
  const settings = { env: () => undefined } as never
  const bound = (extra: Record<string, number>) => resolveOptions({ enabled: true, extra: { response_store_capacity: 1, keepalive_seconds: 1, max_request_bytes: 1024, max_concurrent_runs: 10, ...extra } }, settings).maxBackgroundRuns
  assert.equal(bound({}), 5)
  assert.equal(bound({ max_concurrent_runs: 3 }), 1)
  assert.equal(bound({ max_concurrent_runs: 1 }), 1)
  assert.equal(bound({ max_concurrent_runs: 0 }), 0)
  assert.equal(bound({ max_background_runs: 7 }), 7)
  assert.equal(bound({ max_background_runs: 0 }), 0)
})
