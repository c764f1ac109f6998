// The code assistant's responses-API client (the openai client over the global fetch, which
// decompresses without a bound of its own) caps answers like every provider (MAX_ANSWER_BYTES,
// counted decoded): a gzip bomb, a declared length past the cap, an endless stream of deltas and one
// endless event each fail the call in one clear line, not retried, memory bounded and the
// connection closed; normal and large-but-under-cap answers work unchanged.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { gzipSync } from 'node:zlib'
import { AgentError, AnswerTooLargeError, type ModelDelta } from 'agent/sdk'
import { createResponsesClient } from '../../../extensions/provider-code-assistant/responses-client.ts'
import { ResponsesStream } from '../../../extensions/provider-code-assistant/responses-wire.ts'
import { endpoint, GiB, gzipBomb, MiB, sseStream, watchMemory, waitFor } from '../provider-openai-compat/hostile-endpoints.ts'

function client(baseUrl: string, maxAnswerBytes?: number) {
  return createResponsesClient({ provider: 'copilot', model: 'gpt-5', baseUrl, token: 'gho_test_token_123456', headers: {}, timeoutMs: 30_000, retry: { retries: 2, baseDelayMs: 1 }, authHint: 'log in', maxAnswerBytes })
}

const response = (text: string) => JSON.stringify({ id: 'r1', object: 'response', status: 'completed', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }], usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 } })
const sse = (data: Record<string, unknown>) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`
const hi = [{ role: 'user' as const, content: 'hi' }]

test('a gzip bomb (1 GiB decoded) fails in one line at the default cap, memory bounded, not retried; the next call works', async (t: TestContext) => {
  let calls = 0
  const server = await endpoint(t, (_req, _body, res) => {
    if (calls++ === 0) gzipBomb(res, GiB)
    else res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(response('fine')))
  })
  const model = await client(server.url)
  const memory = watchMemory()
  await assert.rejects(model.complete({ messages: hi }), (error: Error) => {
    assert.ok(AgentError.isInstance(error))
    assert.equal(error.message, "copilot: the endpoint's answer is larger than 64 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  const grew = memory.stop()
  assert.ok(grew < 400 * MiB, `resident memory grew by ${Math.round(grew / MiB)} MiB for a 1 GiB bomb`)
  assert.equal(server.requests(), 1, 'not retried')
  await waitFor(() => server.closed() >= 1)
  assert.equal((await model.complete({ messages: hi })).content, 'fine')
})

test('a declared length past the cap is refused without reading; a large answer under it is read', async (t: TestContext) => {
  const big = response('b'.repeat(MiB - 400))
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url!.startsWith('/huge/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MiB + 1) })
      res.flushHeaders()
    } else res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }).end(big)
  })
  const started = Date.now()
  await assert.rejects((await client(`${server.url}/huge`, MiB)).complete({ messages: hi }), /copilot: the endpoint's answer is larger than 1 MiB; refused/)
  assert.ok(Date.now() - started < 5_000)
  assert.equal((await (await client(server.url, MiB)).complete({ messages: hi })).content!.length, MiB - 400)
})

test('an endless stream of deltas fails once past the cap and is closed; one endless event too; a normal stream works', async (t: TestContext) => {
  const delta = 'd'.repeat(64 * 1024)
  const server = await endpoint(t, (_req, body, res) => {
    const prompt = JSON.parse(body).input[0].content[0].text
    if (prompt === 'endless') sseStream(res, () => sse({ type: 'response.output_text.delta', delta }))
    else if (prompt === 'one event') sseStream(res, (n) => (n === 0 ? 'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"' : 'y'.repeat(64 * 1024)))
    else {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.end(sse({ type: 'response.output_text.delta', delta: 'hel' }) + sse({ type: 'response.output_text.delta', delta: 'lo' }) + sse({ type: 'response.completed', response: JSON.parse(response('hello')) }))
    }
  })
  const model = await client(server.url, MiB)
  let received = 0
  const onDelta = (d: ModelDelta) => void (received += d.content?.length ?? 0)
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'endless' }] }, { onDelta }), (error: Error) => {
    assert.equal(error.message, "copilot: the endpoint's streamed answer is larger than 1 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  assert.ok(received <= MiB && received > MiB - 128 * 1024, `${received} characters were delivered`)
  await waitFor(() => server.closed() >= 1)
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'one event' }] }, { onDelta }), /copilot: the endpoint's stream event is larger than 1 MiB; refused/)
  await waitFor(() => server.closed() >= 2)
  assert.equal(server.requests(), 2, 'neither is retried')
  assert.equal((await model.complete({ messages: [{ role: 'user', content: 'normal' }] }, { onDelta: () => {} })).content, 'hello')
})

test('ResponsesStream: text, reasoning and function calls count against one cap', () => {
  const stream = new ResponsesStream(undefined, 1000)
  stream.push({ type: 'response.output_text.delta', delta: 'a'.repeat(400) })
  stream.push({ type: 'response.reasoning_summary_text.delta', delta: 'r'.repeat(400) })
  assert.throws(() => stream.push({ type: 'response.output_item.done', item: { type: 'function_call', call_id: 'c1', name: 'f', arguments: 'x'.repeat(300) } }), AnswerTooLargeError)
  const exact = new ResponsesStream(undefined, 1000)
  exact.push({ type: 'response.output_text.delta', delta: 'a'.repeat(1000) })
  assert.throws(() => exact.push({ type: 'response.output_text.delta', delta: 'a' }), AnswerTooLargeError)
})
