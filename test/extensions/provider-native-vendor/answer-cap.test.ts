// The native vendor's answers are capped like every provider's (MAX_ANSWER_BYTES, counted decoded):
// its fetch is the global one, which decompresses without a bound of its own. A gzip bomb, a
// declared length past the cap, an endless stream of deltas and one endless event each fail the
// call in one clear line, not retried, memory bounded and the connection closed; normal and
// large-but-under-cap answers work unchanged. The SSE reader finds events split anywhere.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import { gzipSync } from 'node:zlib'
import { AgentError, AnswerTooLargeError, MAX_ANSWER_BYTES, ProviderProtocolError, type Settings } from 'agent/sdk'
import { MessagesClient } from '../../../extensions/provider-native-vendor/client.ts'
import { Credentials } from '../../../extensions/provider-native-vendor/credentials.ts'
import { readSse } from '../../../extensions/provider-native-vendor/sse.ts'
import { MessageStream } from '../../../extensions/provider-native-vendor/wire.ts'
import { endpoint, GiB, gzipBomb, MiB, sseStream, watchMemory, waitFor } from '../provider-openai-compat/hostile-endpoints.ts'

const settings = { env: () => undefined } as unknown as Settings

function client(baseUrl: string, maxAnswerBytes?: number) {
  const credentials = new Credentials({ settings, explicitKey: 'sk-ant-api03-test-key', tokenUrl: 'http://127.0.0.1:1/unused', timeoutMs: 30_000 })
  return new MessagesClient({ model: 'claude-test', baseUrl, timeoutMs: 30_000, credentials, retry: { retries: 2, baseDelayMs: 1 }, maxAnswerBytes })
}

const message = (text: string) => JSON.stringify({ id: 'm1', type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: 'end_turn', usage: { input_tokens: 3, output_tokens: 2 } })
const event = (data: unknown) => `event: ${(data as any).type}\ndata: ${JSON.stringify(data)}\n\n`
const hi = [{ role: 'user' as const, content: 'hi' }]

test('a gzip bomb (1 GiB decoded) fails in one line at the default cap, memory bounded, not retried; the next call works', async (t: TestContext) => {
  let calls = 0
  const server = await endpoint(t, (_req, _body, res) => {
    if (calls++ === 0) gzipBomb(res, GiB)
    else res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(message('fine')))
  })
  const model = client(server.url)
  const memory = watchMemory()
  await assert.rejects(model.complete({ messages: hi }), (error: Error) => {
    assert.ok(AgentError.isInstance(error))
    assert.equal(error.message, "anthropic: the endpoint's answer is larger than 64 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  const grew = memory.stop()
  assert.ok(grew < 400 * MiB, `resident memory grew by ${Math.round(grew / MiB)} MiB for a 1 GiB bomb`)
  assert.equal(server.requests(), 1, 'not retried')
  await waitFor(() => server.closed() >= 1)
  assert.equal((await model.complete({ messages: hi })).content, 'fine')
  assert.equal(MAX_ANSWER_BYTES, 64 * MiB)
})

test('a declared length past the cap is refused without reading; a large answer under it is read', async (t: TestContext) => {
  const big = message('b'.repeat(MiB - 300))
  const server = await endpoint(t, (req, _body, res) => {
    if (req.url!.startsWith('/huge/')) {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(MiB + 1) })
      res.flushHeaders()
    } else res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(big)) }).end(big)
  })
  const started = Date.now()
  await assert.rejects(client(`${server.url}/huge`, MiB).complete({ messages: hi }), /anthropic: the endpoint's answer is larger than 1 MiB; refused/)
  assert.ok(Date.now() - started < 5_000)
  assert.equal((await client(server.url, MiB).complete({ messages: hi })).content!.length, MiB - 300)
})

test('an endless stream of deltas fails once past the cap and is closed; one endless event too; a normal stream works', async (t: TestContext) => {
  const delta = 'd'.repeat(64 * 1024)
  const server = await endpoint(t, (req, body, res) => {
    const prompt = JSON.parse(body).messages[0].content[0].text
    if (prompt === 'endless') {
      sseStream(res, (n) =>
        n === 0 ? event({ type: 'message_start', message: { usage: { input_tokens: 3 } } }) + event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) : event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: delta } }),
      )
    } else if (prompt === 'one event') sseStream(res, (n) => (n === 0 ? 'event: content_block_delta\ndata: {"type":"content_block_delta","x":"' : 'y'.repeat(64 * 1024)))
    else {
      const events = [
        { type: 'message_start', message: { usage: { input_tokens: 3 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hel' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 2 } },
        { type: 'message_stop' },
      ]
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(events.map(event).join(''))
    }
  })
  const model = client(server.url, MiB)
  let received = 0
  const onDelta = (d: { content?: string }) => void (received += d.content?.length ?? 0)
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'endless' }] }, { onDelta }), (error: Error) => {
    assert.equal(error.message, "anthropic: the endpoint's streamed answer is larger than 1 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
    return true
  })
  assert.ok(received <= MiB && received > MiB - 128 * 1024, `${received} characters were delivered`)
  await waitFor(() => server.closed() >= 1)
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'one event' }] }, { onDelta }), /anthropic: the endpoint's stream event is larger than 1 MiB; refused/)
  await waitFor(() => server.closed() >= 2)
  assert.equal(server.requests(), 2, 'neither is retried')
  assert.equal((await model.complete({ messages: [{ role: 'user', content: 'normal' }] }, { onDelta: () => {} })).content, 'hello')
})

test('MessageStream: text, thinking and tool input count against one cap; a block index far past the end is refused', () => {
  const stream = new MessageStream(undefined, 1000)
  stream.push({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
  stream.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a'.repeat(500) } })
  stream.push({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 't1', name: 'f' } })
  assert.throws(() => stream.push({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: 'x'.repeat(400) } }), AnswerTooLargeError)
  const blocks = new MessageStream(undefined, 10_000)
  assert.throws(() => {
    for (let i = 0; i < 1_000_000; i++) blocks.push({ type: 'content_block_start', index: i, content_block: { type: 'text' } })
  }, AnswerTooLargeError)
  assert.throws(() => new MessageStream().push({ type: 'content_block_start', index: 2 ** 31, content_block: { type: 'text' } }), (error: Error) => error instanceof ProviderProtocolError && !error.transient && /index 2147483648; refused/.test(error.message))
})

function chunked(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text)
  let at = 0
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close()
      controller.enqueue(bytes.subarray(at, at + size))
      at += size
    },
  })
}

test('readSse: events split at any byte (CRLF or LF) read the same; an event past the cap fails; leaving early cancels the body', async () => {
  const text = 'event: a\r\ndata: {"n":1}\r\n\r\ndata: {"n":2}\n\n: comment\n\ndata: {"n":3,\ndata: "m":"é"}\r\n\r\ndata: [DONE]\n\n'
  for (const size of [1, 2, 3, 5, 7, text.length]) {
    const seen: unknown[] = []
    for await (const data of readSse(chunked(text, size), new AbortController().signal)) seen.push(data)
    assert.deepEqual(seen, [{ n: 1 }, { n: 2 }, { n: 3, m: 'é' }], `chunks of ${size}`)
  }
  await assert.rejects(async () => {
    for await (const _ of readSse(chunked(`data: "${'x'.repeat(5000)}"\n\n`, 100), new AbortController().signal, 1000)) void _
  }, AnswerTooLargeError)
  let cancelled = false
  const endless = new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(new TextEncoder().encode('data: {"n":0}\n\n')), cancel: () => void (cancelled = true) })
  for await (const _ of readSse(endless, new AbortController().signal)) break
  assert.equal(cancelled, true)
})
