// A non-streamed chat completion is one JSON POST over the shared transport, not a trip through the
// openai client: what reaches the server (auth, custom headers, the body) and how an answer that is
// not a completion fails (server message, a redirect, a body that is not JSON) in one clear line.

import assert from 'node:assert/strict'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test, type TestContext } from 'node:test'
import { createCompatClient } from '../../../extensions/provider-openai-compat/client.ts'
import { createNodeFetch } from '../../../extensions/provider-openai-compat/node-fetch.ts'

async function endpoint(t: TestContext, handler: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => handler(req, body, res))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

async function client(t: TestContext, baseUrl: string, extra: { apiKey?: string; headers?: Record<string, string> } = {}) {
  const transport = createNodeFetch()
  t.after(() => transport.close())
  return createCompatClient({ provider: 'custom', model: 'm1', baseUrl, timeoutMs: 5_000, reasoning: 'none', retry: { retries: 0 }, ...extra }, transport)
}

const completion = { id: 'c1', object: 'chat.completion', model: 'm1', choices: [{ index: 0, message: { role: 'assistant', content: 'hi there' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }

test('the request carries the key, the configured headers and the whole body; the answer is mapped', async (t) => {
  let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: any } = {}
  const url = await endpoint(t, (req, body, res) => {
    seen = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion))
  })
  const model = await client(t, url, { apiKey: 'sk-test-123456', headers: { 'X-Title': 'agent' } })
  const tools = [{ name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } }]
  const answer = await model.complete({ messages: [{ role: 'user', content: 'hello' }], tools, maxTokens: 50 })
  assert.equal(answer.content, 'hi there')
  assert.equal(answer.usage?.inputTokens, 3)
  assert.equal(seen.method, 'POST')
  assert.equal(seen.url, '/v1/chat/completions')
  assert.equal(seen.headers!.authorization, 'Bearer sk-test-123456')
  assert.equal(seen.headers!['x-title'], 'agent')
  assert.match(String(seen.headers!['content-type']), /^application\/json/)
  assert.equal(seen.body.model, 'm1')
  assert.equal(seen.body.max_tokens, 50)
  assert.deepEqual(seen.body.messages, [{ role: 'user', content: 'hello' }])
  assert.equal(seen.body.tools[0].function.name, 'read_file')
  assert.equal(seen.body.stream, undefined)
})

test("a failure status fails in one line with the server's own message, the key masked", async (t) => {
  const url = await endpoint(t, (_req, _body, res) => {
    res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model m1 does not exist for key sk-test-123456', type: 'invalid_request_error' } }))
  })
  const model = await client(t, url, { apiKey: 'sk-test-123456' })
  await assert.rejects(model.complete({ messages: [{ role: 'user', content: 'x' }] }), (error: Error) => {
    assert.match(error.message, /^custom: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1: model m1 does not exist/)
    assert.doesNotMatch(error.message, /sk-test-123456/)
    return true
  })
})

test('an answer that is not JSON, or a redirect, is named for what it is', async (t) => {
  const html = await endpoint(t, (_req, _body, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to the router admin</body></html>'))
  await assert.rejects((await client(t, html)).complete({ messages: [{ role: 'user', content: 'x' }] }), /custom: the endpoint answered with something other than JSON: <html><body>Welcome/)
  const moved = await endpoint(t, (_req, _body, res) => res.writeHead(301, { location: 'https://api.example.test/v1/chat/completions' }).end())
  await assert.rejects((await client(t, moved)).complete({ messages: [{ role: 'user', content: 'x' }] }), /answered 301 \(redirect to https:\/\/api\.example\.test\/v1\/chat\/completions\): set the base URL to the final address/)
  const empty = await endpoint(t, (_req, _body, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"error"}'))
  await assert.rejects((await client(t, empty)).complete({ messages: [{ role: 'user', content: 'x' }] }), /without choices/)
})

test('non-ASCII text keeps its byte length, a base URL keeps its path, and a changed tool list is sent as changed', async (t) => {
  const seen: Array<{ url?: string; length: string | undefined; bytes: number; body: any }> = []
  const base = await endpoint(t, (req, body, res) => {
    seen.push({ url: req.url, length: req.headers['content-length'], bytes: Buffer.byteLength(body), body: JSON.parse(body) })
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion))
  })
  const model = await client(t, `${base.replace(/\/v1$/, '')}/deploy`)
  const read = { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } }
  const write = { name: 'write_file', description: 'Écrire un fichier — 書く', parameters: { type: 'object' } }
  await model.complete({ messages: [{ role: 'user', content: 'héllo 👋 — 日本語' }], tools: [read, write] })
  await model.complete({ messages: [{ role: 'user', content: 'again' }], tools: [read, write] })
  await model.complete({ messages: [{ role: 'user', content: 'fewer' }], tools: [write] })
  await model.complete({ messages: [{ role: 'user', content: 'none' }] })
  assert.equal(seen[0]!.url, '/deploy/chat/completions')
  for (const s of seen) assert.equal(Number(s.length), s.bytes, 'content-length counts bytes, not characters')
  assert.equal(seen[0]!.body.messages[0].content, 'héllo 👋 — 日本語')
  assert.deepEqual(seen.map((s) => (s.body.tools ?? []).map((tool: any) => tool.function.name)), [['read_file', 'write_file'], ['read_file', 'write_file'], ['write_file'], []])
  assert.equal(seen[2]!.body.tools[0].function.description, 'Écrire un fichier — 書く')
})
