// `background: true` responses: answered at once as queued, polled through GET (in_progress, then
// completed), cancelled with POST /v1/responses/{id}/cancel; what cannot be backgrounded is a 400.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { gateTool, post, startServer, until } from './harness.ts'
import { backendSkip, STORAGE_BACKENDS } from '../../../sdk/testing/index.ts'

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
