// Bad input and hard conditions get the right status and the OpenAI error envelope, change nothing,
// and leave the server healthy: malformed JSON, missing messages, a 12 MB body (declared and
// chunked), wrong key, unknown response id, a refused origin, the concurrency cap (429 +
// Retry-After), an agent failure (500, secrets redacted), shutting down (503).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import OpenAI from 'openai'
import { gateTool, post, startServer, until } from './harness.ts'

function assertEnvelope(body: any, code?: string): void {
  assert.equal(typeof body?.error?.message, 'string', JSON.stringify(body))
  assert.equal(typeof body.error.type, 'string')
  assert.ok('param' in body.error && 'code' in body.error, JSON.stringify(body))
  if (code) assert.equal(body.error.code, code, JSON.stringify(body))
}

async function assertHealthy(url: string): Promise<void> {
  const health = await fetch(`${url}/health`)
  assert.equal(health.status, 200)
  assert.equal(((await health.json()) as any).status, 'ok')
  const ok = await post(`${url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'still there?' }] })
  assert.equal(ok.status, 200)
  assert.equal(ok.body.choices[0].message.content, 'echo: still there?')
}

test('bad bodies: 400 with the envelope (malformed JSON, not an object, missing or empty messages, no user message, bad parts, bad input)', async (t) => {
  const server = await startServer(t)
  const chat = `${server.url}/v1/chat/completions`
  const cases: Array<[unknown, string, string | null]> = [
    ['{"messages": [', 'invalid_json', null],
    ['[1,2]', 'invalid_body', null],
    [{}, 'invalid_messages', 'messages'],
    [{ messages: [] }, 'invalid_messages', 'messages'],
    [{ messages: 'hi' }, 'invalid_messages', 'messages'],
    [{ messages: [{ role: 'system', content: 'only system' }] }, 'missing_user_message', 'messages'],
    [{ messages: [{ role: 'wizard', content: 'x' }] }, 'invalid_messages', 'messages[0].role'],
    [{ messages: [{ role: 'user', content: [{ type: 'file', file: {} }] }] }, 'unsupported_content_type', 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'file:///etc/passwd' } }] }] }, 'invalid_image_url', 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: '   ' }] }, 'empty_input', 'messages[0].content'],
    ['{"messages":' + '['.repeat(100_000), 'json_too_deep', null],
    [`{"messages":[${'{"role":"user","content":"x"},'.repeat(70_000)}{}]}`, 'json_too_large', null],
  ]
  for (const [body, code, param] of cases) {
    const res = await post(chat, body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assertEnvelope(res.body, code)
    assert.equal(res.body.error.param, param)
  }
  const responses = `${server.url}/v1/responses`
  for (const [body, code] of [
    [{}, 'invalid_input'],
    [{ input: '' }, 'empty_input'],
    [{ input: [{ role: 'assistant', content: 'no user' }] }, 'missing_user_message'],
    [{ input: 'x', instructions: 42 }, 'invalid_type'],
    [{ input: 'x', conversation: '' }, 'invalid_conversation'],
  ] as Array<[unknown, string]>) {
    const res = await post(responses, body)
    assert.equal(res.status, 400, JSON.stringify(body))
    assertEnvelope(res.body, code)
  }
  // The official client surfaces them as BadRequestError.
  await assert.rejects(server.client().chat.completions.create({ model: 'agent', messages: [] }), (e: unknown) => e instanceof OpenAI.BadRequestError)
  assert.equal(server.model.requests.length, 0, 'no bad request reached the model')
  await assertHealthy(server.url)
})

test('a 12 MB body is refused with 413 before it is read, declared or chunked', async (t) => {
  const server = await startServer(t)
  const big = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(12 * 1024 * 1024) }] })
  const declared = await post(`${server.url}/v1/chat/completions`, big)
  assert.equal(declared.status, 413)
  assertEnvelope(declared.body, 'body_too_large')
  const chunk = new TextEncoder().encode('x'.repeat(1024 * 1024))
  let sent = 0
  const body = new ReadableStream({
    pull(controller) {
      if (sent++ < 12) controller.enqueue(chunk)
      else controller.close()
    },
  })
  const chunked = await fetch(`${server.url}/v1/responses`, { method: 'POST', body, duplex: 'half', headers: { 'content-type': 'application/json' } } as RequestInit)
  assert.equal(chunked.status, 413)
  assertEnvelope(await chunked.json(), 'body_too_large')
  assert.equal(server.model.requests.length, 0)
  await assertHealthy(server.url)
})

test('with API_SERVER_KEY: wrong or missing key is 401; /health needs none; unknown response ids are 404', async (t) => {
  const server = await startServer(t, { env: { API_SERVER_KEY: 'the-right-key-0123456789' } })
  await assert.rejects(server.client('wrong-key').models.list(), (e: unknown) => e instanceof OpenAI.AuthenticationError)
  const missing = await fetch(`${server.url}/v1/models`)
  assert.equal(missing.status, 401)
  assertEnvelope(await missing.json(), 'invalid_api_key')
  const client = server.client('the-right-key-0123456789')
  assert.equal((await client.models.list()).data.length, 1)
  assert.equal((await fetch(`${server.url}/health`)).status, 200)
  for (const method of ['GET', 'DELETE']) {
    const res = await fetch(`${server.url}/v1/responses/resp_nope`, { method, headers: { authorization: 'Bearer the-right-key-0123456789' } })
    assert.equal(res.status, 404)
    assertEnvelope(await res.json(), 'response_not_found')
  }
  const chained = await post(`${server.url}/v1/responses`, { input: 'x', previous_response_id: 'resp_nope' }, { authorization: 'Bearer the-right-key-0123456789' })
  assert.equal(chained.status, 404)
  assert.equal(chained.body.error.param, 'previous_response_id')
  assert.equal(server.model.requests.length, 0)
})

test('a browser origin that is not allowed gets 403; an allowed one gets CORS headers', async (t) => {
  const server = await startServer(t, { env: { API_SERVER_CORS_ORIGINS: 'http://allowed.test:8080' } })
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })
  const refused = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body, headers: { origin: 'http://evil.test', 'content-type': 'application/json' } })
  assert.equal(refused.status, 403)
  assertEnvelope(await refused.json(), 'origin_not_allowed')
  const allowed = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', body, headers: { origin: 'http://allowed.test:8080', 'content-type': 'application/json' } })
  assert.equal(allowed.status, 200)
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://allowed.test:8080')
  assert.equal(server.model.requests.length, 1, 'the refused request never reached the model')
})

test('the concurrency cap answers 429 with Retry-After; the slot frees when the run ends', async (t) => {
  const gate = gateTool()
  const server = await startServer(t, { extensions: [gate.extension], config: { platforms: { api_server: { extra: { max_concurrent_runs: 1 } } } } })
  server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'released' })
  const running = post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'wait' }] })
  await until(() => gate.state.started === 1, 'the first run to reach its tool')
  const limited = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'me too' }] })
  assert.equal(limited.status, 429)
  assert.equal(limited.headers.get('retry-after'), '1')
  assertEnvelope(limited.body, 'rate_limit_exceeded')
  assert.equal(limited.body.error.type, 'rate_limit_error')
  gate.state.release()
  assert.equal((await running).body.choices[0].message.content, 'released')
  await assertHealthy(server.url)
})

test('an agent failure is a 500 (plain) or an error chunk (stream), with secrets redacted', async (t) => {
  const server = await startServer(t)
  // A failure the provider does not retry (a rejected key), with the key in the upstream's message.
  const leak = 'Incorrect API key provided: sk-scripted-model-key-000'
  server.model.enqueue({ status: 401, error: leak }, { status: 401, error: leak })
  const failed = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'boom' }] })
  assert.equal(failed.status, 500)
  assertEnvelope(failed.body, 'agent_error')
  assert.doesNotMatch(JSON.stringify(failed.body), /sk-scripted-model-key-000/)
  const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'boom' }] }) })
  const raw = await res.text()
  assert.match(raw, /"finish_reason":"error"/)
  assert.match(raw, /data: \[DONE\]\n\n$/)
  assert.doesNotMatch(raw, /sk-scripted-model-key-000/)
  await assertHealthy(server.url)
})

for (const stream of [true, false]) {
  test(`a client that disconnects interrupts its run (${stream ? 'streamed' : 'plain'})`, async (t) => {
    const gate = gateTool()
    const server = await startServer(t, { extensions: [gate.extension] })
    // Only the tool call is scripted: an interrupted run must not ask the model again (the health check would get that answer).
    server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] })
    const controller = new AbortController()
    const pending = fetch(`${server.url}/v1/chat/completions`, { method: 'POST', signal: controller.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream, messages: [{ role: 'user', content: 'wait' }] }) })
    pending.catch(() => {})
    await until(() => gate.state.started === 1, 'the run to reach its tool')
    controller.abort()
    await until(() => gate.state.aborted === 1, 'the run to be interrupted')
    await assertHealthy(server.url)
  })
}

test('keepalive comments flow while the agent is silent', async (t) => {
  const gate = gateTool()
  const server = await startServer(t, { extensions: [gate.extension], config: { platforms: { api_server: { extra: { keepalive_seconds: 0.05 } } } } })
  server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'done waiting' })
  const answer = fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'wait' }] }) }).then((res) => res.text())
  // Silence while the tool runs: six keepalive intervals before it is released.
  await until(() => gate.state.started === 1, 'the run to reach its tool')
  await new Promise((r) => setTimeout(r, 300))
  gate.state.release()
  const raw = await answer
  assert.ok((raw.match(/^: keepalive$/gm) ?? []).length >= 2, raw)
  assert.match(raw, /"finish_reason":"stop"/)
})

test('shutting down: new runs get 503, in-flight runs are interrupted and say so (never a complete answer)', async (t) => {
  const gate = gateTool()
  const server = await startServer(t, { extensions: [gate.extension] })
  server.model.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { toolCalls: [{ name: 'wait_gate', arguments: {} }] })
  const running = post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'wait' }] })
  const streaming = fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ stream: true, messages: [{ role: 'user', content: 'wait' }] }) }).then((res) => res.text())
  await until(() => gate.state.started === 2, 'both runs to reach their tool')
  const stopping = server.test.kernel.registries.adapters.get('api_server')!.stop()
  const refused = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'new' }] })
  assert.equal(refused.status, 503)
  assertEnvelope(refused.body, 'shutting_down')
  await stopping
  assert.equal(gate.state.aborted, 2)
  const plain = await running
  assert.equal(plain.status, 503)
  assertEnvelope(plain.body, 'interrupted')
  const raw = await streaming
  assert.match(raw, /"finish_reason":"error".*"code":"interrupted"/)
  assert.doesNotMatch(raw, /"finish_reason":"stop"/)
})
