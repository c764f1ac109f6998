// Request parameters: sampling and output parameters reach the model request, structured output is
// validated against its schema, n>1 is refused, metadata is stored and echoed, include_usage adds
// the API's usage chunk, and the schema fields of API 2.3.0 (refusal, cache_write_tokens) are there.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { post, startServer } from './harness.ts'

const SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }

test('chat: temperature, top_p, max_completion_tokens, stop and response_format reach the model; none is sent unasked', async (t) => {
  const server = await startServer(t)
  const client = server.client()
  await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'plain' }] })
  const plain = server.model.requests.at(-1)!.body
  for (const key of ['temperature', 'top_p', 'max_tokens', 'stop', 'response_format', 'tool_choice']) assert.equal(plain[key], undefined, key)

  server.model.enqueue({ text: '{"city":"Oslo"}' })
  const completion = await client.chat.completions.create({
    model: 'agent',
    messages: [{ role: 'user', content: 'where?' }],
    temperature: 0.2,
    top_p: 0.9,
    max_completion_tokens: 55,
    stop: ['END'],
    response_format: { type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA, strict: true } },
    n: 1,
    metadata: { team: 'a' },
  })
  assert.equal(completion.choices[0]!.message.content, '{"city":"Oslo"}')
  const sent = server.model.requests.at(-1)!.body
  assert.equal(sent.temperature, 0.2)
  assert.equal(sent.top_p, 0.9)
  assert.equal(sent.max_tokens, 55)
  assert.deepEqual(sent.stop, ['END'])
  assert.deepEqual(sent.response_format, { type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA, strict: true } })
  // max_tokens (older clients) works the same.
  await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'x' }], max_tokens: 7 })
  assert.equal(server.model.requests.at(-1)!.body.max_tokens, 7)
})

test('structured output: an answer that does not match the schema is a 500 saying why; plain JSON mode needs an object', async (t) => {
  const server = await startServer(t)
  server.model.enqueue({ text: '{"town":"Oslo"}' })
  const bad = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], response_format: { type: 'json_schema', json_schema: { name: 'place', schema: SCHEMA } } })
  assert.equal(bad.status, 500)
  assert.equal(bad.body.error.code, 'invalid_structured_output')
  assert.match(bad.body.error.message, /place/)
  server.model.enqueue({ text: 'not json' })
  const notJson = await post(`${server.url}/v1/responses`, { input: 'x', text: { format: { type: 'json_object' } } })
  assert.equal(notJson.status, 500)
  assert.equal(notJson.body.error.code, 'invalid_structured_output')
  server.model.enqueue({ text: '{"city":"Rome"}' })
  const good = await server.client().responses.create({ model: 'agent', input: 'x', text: { format: { type: 'json_schema', name: 'place', schema: SCHEMA, strict: true } } })
  assert.deepEqual(JSON.parse(good.output_text), { city: 'Rome' })
  assert.equal((good.text as any).format.name, 'place')
  // Streamed: the text went out, the end says it failed.
  server.model.enqueue({ text: '[1]' })
  const stream = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], stream: true, response_format: { type: 'json_object' } }) })
  const raw = await stream.text()
  assert.match(raw, /"finish_reason":"error"/)
  assert.match(raw, /invalid_structured_output/)
})

test('bad parameters are 400 naming the field and never reach the model; n>1 is refused', async (t) => {
  const server = await startServer(t)
  const calls = server.model.requests.length
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['/v1/chat/completions', { n: 2 }, 'n'],
    ['/v1/chat/completions', { temperature: 3 }, 'temperature'],
    ['/v1/chat/completions', { top_p: '0.5' }, 'top_p'],
    ['/v1/chat/completions', { max_tokens: 0 }, 'max_tokens'],
    ['/v1/chat/completions', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['/v1/chat/completions', { response_format: { type: 'xml' } }, 'response_format.type'],
    ['/v1/chat/completions', { response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, 'response_format.json_schema.schema'],
    ['/v1/responses', { max_output_tokens: 1.5 }, 'max_output_tokens'],
    ['/v1/responses', { metadata: { k: 5 } }, 'metadata.k'],
    ['/v1/responses', { text: { format: { type: 'json_schema', name: 'bad name', schema: {} } } }, 'text.format.name'],
  ]
  for (const [path, extra, param] of cases) {
    const body = path === '/v1/responses' ? { input: 'x', ...extra } : { messages: [{ role: 'user', content: 'x' }], ...extra }
    const answer = await post(`${server.url}${path}`, body)
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(extra)}`)
    assert.equal(answer.body.error.param, param)
  }
  assert.equal(server.model.requests.length, calls)
  // Look-alikes pass: n=1, temperature 0, a stop string, text format "text".
  assert.equal((await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], n: 1, temperature: 0, stop: 'END' })).status, 200)
  assert.equal((await post(`${server.url}/v1/responses`, { input: 'x', text: { format: { type: 'text' } } })).status, 200)
})

test('responses: metadata and sampling are echoed and stored; usage has cache_write_tokens', async (t) => {
  const server = await startServer(t)
  const client = server.client()
  const response = await client.responses.create({ model: 'agent', input: 'x', metadata: { ticket: 'T-1' }, temperature: 0.5, top_p: 0.8, max_output_tokens: 100 })
  assert.deepEqual(response.metadata, { ticket: 'T-1' })
  assert.equal(response.temperature, 0.5)
  assert.equal(response.top_p, 0.8)
  assert.equal(response.max_output_tokens, 100)
  assert.deepEqual(response.usage!.input_tokens_details, { cached_tokens: 0, cache_write_tokens: 0 })
  const stored = await client.responses.retrieve(response.id)
  assert.deepEqual(stored.metadata, { ticket: 'T-1' })
  const sent = server.model.requests.at(-1)!.body
  assert.deepEqual([sent.temperature, sent.top_p, sent.max_tokens], [0.5, 0.8, 100])
})

test('chat streamed: include_usage adds the API usage chunk (empty choices) after the finish chunk; without it the finish chunk still carries usage', async (t) => {
  const server = await startServer(t)
  const read = async (body: Record<string, unknown>) => {
    const res = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }], stream: true, ...body }) })
    return (await res.text()).split('\n\n').filter((e) => e.startsWith('data: {')).map((e) => JSON.parse(e.slice(6)))
  }
  const plain = await read({})
  assert.ok(plain.at(-1).usage && plain.at(-1).choices[0].finish_reason === 'stop')
  const asked = await read({ stream_options: { include_usage: true } })
  assert.deepEqual(asked.at(-1).choices, [])
  assert.ok(asked.at(-1).usage.total_tokens > 0)
  assert.equal(asked.at(-2).choices[0].finish_reason, 'stop')
})
