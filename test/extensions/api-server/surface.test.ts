// The smaller parts of issue 15's surface: `GET /v1/models/{model}`, `X-Agent-Session-Id` on streamed
// answers too, no URL in any error a client sees, and `Idempotency-Key` (replay for the same body,
// 422 for another body, 409 while the first runs, kept across a restart, 24 h).

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { describe, test } from 'node:test'
import { backendSkip, makeTempHome, startScriptedModel, STORAGE_BACKENDS, testStorage } from '../../../sdk/testing/index.ts'
import { defineExtension, type DatabaseService, type StorageService } from '../../../sdk/index.ts'
import { post, startServer } from './harness.ts'

async function sse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ ...(body as object), stream: true }) })
  return { status: res.status, headers: res.headers, text: await res.text() }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`surface and Idempotency-Key [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('GET /v1/models/{model}: the agent, or 404 model_not_found; the official client retrieves it', async (t) => {
      const server = await startServer(t, { storage: backend, env: { API_SERVER_MODEL_NAME: 'my-helper' } })
      const model = await server.client().models.retrieve('my-helper')
      assert.equal(model.id, 'my-helper')
      assert.equal(model.object, 'model')
      assert.equal(model.owned_by, 'agent')
      const missing = await fetch(`${server.url}/v1/models/gpt-4o`)
      assert.equal(missing.status, 404)
      const body: any = await missing.json()
      assert.equal(body.error.code, 'model_not_found')
      assert.equal(body.error.param, 'model')
    })

    test('streamed answers carry X-Agent-Session-Id, the same session as a plain answer names', async (t) => {
      const server = await startServer(t, { storage: backend })
      const chat = await sse(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hello' }] })
      assert.equal(chat.status, 200)
      const chatSession = chat.headers.get('x-agent-session-id')
      assert.ok(chatSession, 'chat stream names its session')
      assert.match(chat.text, /"content":"echo: he"/)
      // The resent conversation continues that very session.
      const resent = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'echo: hello' }, { role: 'user', content: 'again' }] })
      assert.equal(resent.headers.get('x-agent-session-id'), chatSession)

      const first = await sse(`${server.url}/v1/responses`, { input: 'one' })
      const responseSession = first.headers.get('x-agent-session-id')
      assert.ok(responseSession, 'responses stream names its session')
      const id = /"type":"response.completed","response":\{"id":"(resp_[^"]+)"/.exec(first.text)?.[1]
      assert.ok(id, first.text)
      const chained = await sse(`${server.url}/v1/responses`, { input: 'two', previous_response_id: id })
      assert.equal(chained.headers.get('x-agent-session-id'), responseSession)
    })

    test('a failure names no URL: not the model endpoint, not one in the upstream message', async (t) => {
      const server = await startServer(t, { storage: backend })
      const upstream = 'Unauthorized at http://10.1.2.3:8000/v1/chat/completions (see https://internal.example/help?token=x)'
      for (let i = 0; i < 3; i++) server.model.enqueue({ status: 401, error: upstream })
      const modelHost = new URL(server.model.url).host
      const plain = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'boom' }] })
      assert.equal(plain.status, 500)
      const streamed = await sse(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'boom' }] })
      const responses = await post(`${server.url}/v1/responses`, { input: 'boom' })
      assert.equal(responses.status, 500)
      for (const text of [JSON.stringify(plain.body), streamed.text, JSON.stringify(responses.body)]) {
        assert.doesNotMatch(text, /https?:\/\//, text)
        assert.ok(!text.includes(modelHost), text)
        assert.ok(!text.includes('10.1.2.3'), text)
      }
      // Still a useful message: what failed, with the URL replaced.
      assert.match(plain.body.error.message, /Unauthorized at <url>/)
      // A harmless look-alike stays: text without a scheme is not a URL.
      server.model.enqueue({ status: 401, error: 'quota exceeded for project example.com/billing' })
      const lookalike = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'boom' }] })
      assert.match(lookalike.body.error.message, /example\.com\/billing/)
    })

    test('Idempotency-Key: the same key and body replay the answer without a second run', async (t) => {
      const server = await startServer(t, { storage: backend })
      const url = `${server.url}/v1/chat/completions`
      const body = { messages: [{ role: 'user', content: 'count me once' }] }
      const first = await post(url, body, { 'idempotency-key': 'key-plain-1' })
      assert.equal(first.status, 200)
      const calls = server.model.requests.length
      const again = await post(url, body, { 'idempotency-key': 'key-plain-1' })
      assert.equal(again.status, 200)
      assert.deepEqual(again.body, first.body)
      assert.equal(again.headers.get('idempotent-replayed'), 'true')
      assert.equal(again.headers.get('x-agent-session-id'), first.headers.get('x-agent-session-id'))
      assert.equal(server.model.requests.length, calls, 'no second model call')
      // Another body under the same key: 422, nothing run.
      const other = await post(url, { messages: [{ role: 'user', content: 'something else' }] }, { 'idempotency-key': 'key-plain-1' })
      assert.equal(other.status, 422)
      assert.equal(other.body.error.code, 'idempotency_key_reused')
      assert.equal(server.model.requests.length, calls)
      // The same key on another endpoint is another key; without a key every request runs.
      const responses = await post(`${server.url}/v1/responses`, { input: 'count me once' }, { 'idempotency-key': 'key-plain-1' })
      assert.equal(responses.status, 200)
      assert.equal((await post(url, body)).status, 200)
      assert.equal(server.model.requests.length, calls + 2)
      // A malformed key is refused.
      const bad = await post(url, body, { 'idempotency-key': 'x'.repeat(256) })
      assert.equal(bad.status, 400)
      assert.equal(bad.body.error.code, 'invalid_idempotency_key')
    })

    test('Idempotency-Key: a streamed answer is replayed whole; a failed one is not stored', async (t) => {
      const server = await startServer(t, { storage: backend })
      server.model.enqueue({ text: 'streamed once, replayed later', chunkSize: 5 })
      const body = { input: 'stream it' }
      const first = await sse(`${server.url}/v1/responses`, body, { 'idempotency-key': 'key-stream-1' })
      assert.match(first.text, /event: response.completed/)
      const calls = server.model.requests.length
      const again = await sse(`${server.url}/v1/responses`, body, { 'idempotency-key': 'key-stream-1' })
      assert.equal(again.text, first.text)
      assert.match(again.headers.get('content-type') ?? '', /text\/event-stream/)
      assert.equal(again.headers.get('x-agent-session-id'), first.headers.get('x-agent-session-id'))
      assert.equal(server.model.requests.length, calls)

      // A failure is not kept: the retry runs (and succeeds).
      server.model.enqueue({ status: 401, error: 'denied' })
      const failed = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'retry me' }] }, { 'idempotency-key': 'key-fail-1' })
      assert.equal(failed.status, 500)
      const retried = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'retry me' }] }, { 'idempotency-key': 'key-fail-1' })
      assert.equal(retried.status, 200)
      assert.equal(retried.body.choices[0].message.content, 'echo: retry me')
      assert.equal(retried.headers.get('idempotent-replayed'), null)
    })

    test('Idempotency-Key: 409 while the first request runs', async (t) => {
      // The first run waits in an agent tool until released: deterministic, whatever the machine's load.
      let started = false
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const gate = defineExtension({
        name: 'test-idempotency-gate',
        setup(api) {
          api.tools.register({ name: 'wait_gate', description: 'Waits', parameters: { type: 'object' }, execute: async () => ((started = true), await released, 'released') })
        },
      })
      const server = await startServer(t, { storage: backend, extensions: [gate] })
      server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'slow answer' })
      const url = `${server.url}/v1/chat/completions`
      const body = { messages: [{ role: 'user', content: 'slow' }] }
      const first = post(url, body, { 'idempotency-key': 'key-slow' })
      for (let i = 0; i < 500 && !started; i++) await new Promise((r) => setTimeout(r, 10))
      assert.ok(started, 'the first run reached its tool')
      const during = await post(url, body, { 'idempotency-key': 'key-slow' })
      assert.equal(during.status, 409)
      assert.equal(during.body.error.code, 'idempotency_key_in_flight')
      assert.equal(during.headers.get('retry-after'), '1')
      // Another body under the running key is 422, as it would be after.
      assert.equal((await post(url, { messages: [{ role: 'user', content: 'other' }] }, { 'idempotency-key': 'key-slow' })).status, 422)
      release()
      assert.equal((await first).status, 200)
      const after = await post(url, body, { 'idempotency-key': 'key-slow' })
      assert.equal(after.body.choices[0].message.content, 'slow answer')
      assert.equal(after.headers.get('idempotent-replayed'), 'true')
    })

    test('Idempotency-Key: kept across a restart, for 24 hours', async (t) => {
      const home = makeTempHome()
      const storage = await testStorage(t, backend)
      t.after(() => rmSync(home, { recursive: true, force: true }))
      const model = await startScriptedModel()
      t.after(() => model.close())
      const body = { messages: [{ role: 'user', content: 'remember me' }] }
      const first = await startServer(t, { storage, home, modelServer: model })
      const answer = await post(`${first.url}/v1/chat/completions`, body, { 'idempotency-key': 'key-durable' })
      await first.stop()
      const second = await startServer(t, { storage, home, modelServer: model })
      const calls = model.requests.length
      const replayed = await post(`${second.url}/v1/chat/completions`, body, { 'idempotency-key': 'key-durable' })
      assert.deepEqual(replayed.body, answer.body)
      assert.equal(model.requests.length, calls)
      // Older than 24 hours: forgotten, the request runs again.
      const day = 24 * 60 * 60 * 1000 + 1000
      if (backend === 'postgres') await second.test.kernel.services.require<StorageService>('storage').postgres().query('UPDATE api_server_idempotency SET created_at = created_at - $1', [day])
      else second.test.kernel.services.require<DatabaseService>('database').db().prepare('UPDATE api_server_idempotency SET created_at = created_at - ?').run(day)
      const expired = await post(`${second.url}/v1/chat/completions`, body, { 'idempotency-key': 'key-durable' })
      assert.equal(expired.status, 200)
      assert.equal(expired.headers.get('idempotent-replayed'), null)
      assert.equal(model.requests.length, calls + 1)
    })
  })
}
