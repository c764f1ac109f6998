// Structured output cannot take the server down: a schema whose `pattern` backtracks for minutes is
// cut off at the checker's deadline (a 400 naming the schema), and other requests are answered
// before it (shown by order, not timed); a
// schema that cannot be used (a reference cycle, a `$ref` that does not resolve, a bad pattern) or is
// too large is a 400 before any model call; the checker's cache stays within its bound. Look-alikes
// work: a json_schema with a safe pattern, streamed or not, and a plain request.

import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { test } from 'node:test'
import { SchemaChecker } from '../../../extensions/api-server/schema-check.ts'
import { MAX_SCHEMA_CHARS } from '../../../extensions/api-server/request-options.ts'
import { post, startServer } from './harness.ts'

/** Backtracks exponentially on any string of words that does not end as the pattern wants. */
const REDOS = { type: 'string', pattern: '^(\\w+\\s?)+$' }
const SENTENCE = JSON.stringify('This is an ordinary sentence that the model wrote, with quite a few words in it!')
const SAFE = { type: 'object', properties: { city: { type: 'string', pattern: '^[A-Z][a-z]+$' } }, required: ['city'], additionalProperties: false }
const user = [{ role: 'user', content: 'x' }]
const chatFormat = (schema: unknown) => ({ type: 'json_schema', json_schema: { name: 'shape', schema } })

/**
 * What settled first while `slow` was being checked: GET /v1/models asked one after another, from
 * when the model has answered `slow` (its check is then due) until `slow` settles. Order, not a
 * clock: a check on the event loop would hold every models answer until it was over.
 */
async function answeredMeanwhile(server: Awaited<ReturnType<typeof startServer>>, slow: Promise<unknown>, modelCalls: number): Promise<string[]> {
  const order: string[] = []
  const settled = () => order.push('slow')
  void slow.then(settled, settled)
  while (server.model.requests.length < modelCalls) await new Promise((resolve) => setTimeout(resolve, 5))
  while (!order.includes('slow')) {
    const res = await fetch(`${server.url}/v1/models`)
    assert.equal(res.status, 200)
    await res.json()
    if (!order.includes('slow')) order.push('models')
  }
  return order
}

// The checker's deadline is 1 s; the timeout only bounds a broken run (a check that never ends).
test('a backtracking pattern: a 400 naming the schema, and the server answers other requests before it', { timeout: 60_000 }, async (t) => {
  const server = await startServer(t)
  server.model.enqueue({ text: SENTENCE })
  const calls = server.model.requests.length
  const request = post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(REDOS) })
  const order = await answeredMeanwhile(server, request, calls + 1)
  const answer = await request
  assert.equal(answer.status, 400, JSON.stringify(answer.body))
  assert.equal(answer.body.error.code, 'schema_too_expensive')
  assert.equal(answer.body.error.type, 'invalid_request_error')
  assert.equal(answer.body.error.param, 'response_format.json_schema.schema')
  assert.match(answer.body.error.message, /"shape" is too expensive to check/)
  assert.equal(order[0], 'models', `a models answer came before the slow one: ${order.join(', ')}`)
  assert.equal(order.at(-1), 'slow')

  // The checker recovers (a new worker): the same schema with an answer that matches, and a safe one.
  server.model.enqueue({ text: JSON.stringify('fine words') })
  const fine = await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(REDOS) })
  assert.equal(fine.status, 200, JSON.stringify(fine.body))
  server.model.enqueue({ text: '{"city":"Oslo"}' })
  assert.equal((await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(SAFE) })).status, 200)
})

test('a backtracking pattern in text.format: /v1/responses answers 400 (plain) or response.failed (streamed), others answered meanwhile', { timeout: 60_000 }, async (t) => {
  const server = await startServer(t)
  const format = { format: { type: 'json_schema', name: 'shape', schema: REDOS } }
  server.model.enqueue({ text: SENTENCE })
  const plain = await post(`${server.url}/v1/responses`, { input: 'x', text: format })
  assert.equal(plain.status, 400)
  assert.equal(plain.body.error.code, 'schema_too_expensive')
  assert.equal(plain.body.error.param, 'text.format.schema')

  server.model.enqueue({ text: SENTENCE })
  const calls = server.model.requests.length
  const stream = fetch(`${server.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'x', stream: true, text: format }) }).then((res) => res.text())
  const order = await answeredMeanwhile(server, stream, calls + 1)
  const raw = await stream
  assert.equal(order[0], 'models', `a models answer came before the stream ended: ${order.join(', ')}`)
  assert.match(raw, /event: response\.failed/)
  assert.match(raw, /too expensive to check/)
  assert.doesNotMatch(raw, /event: response\.completed/)
})

test('a schema that cannot be used is a 400 naming the problem before any model call', async (t) => {
  const server = await startServer(t)
  const calls = server.model.requests.length
  const cases: Array<[string, unknown, RegExp]> = [
    ['/v1/chat/completions', { $ref: '#' }, /refers to itself/],
    ['/v1/chat/completions', { type: 'object', properties: { a: { allOf: [{ $ref: '#/properties/a' }] } } }, /reference cycle through #\/properties\/a/],
    ['/v1/responses', { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } }, $ref: '#/$defs/a' }, /refers to itself/],
    ['/v1/chat/completions', { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } }, /"#\/\$defs\/missing" at #\/properties\/a does not resolve/],
    ['/v1/responses', { $ref: 'https://example.com/elsewhere.json' }, /does not resolve/],
    ['/v1/chat/completions', { type: 'string', pattern: '(' }, /"pattern" at # is not a valid regular expression/],
    ['/v1/responses', { type: 'object', patternProperties: { '[': {} } }, /"patternProperties" at # is not a valid regular expression/],
    ['/v1/chat/completions', { anyOf: { type: 'string' } }, /"anyOf" at # must be a list of schemas/],
    ['/v1/chat/completions', { type: 'object', properties: { a: { enum: 'x' } } }, /"enum" at #\/properties\/a must be a list/],
  ]
  for (const [path, schema, problem] of cases) {
    const body = path === '/v1/responses' ? { input: 'x', text: { format: { type: 'json_schema', name: 'shape', schema } } } : { messages: user, response_format: chatFormat(schema) }
    const answer = await post(`${server.url}${path}`, body)
    assert.equal(answer.status, 400, `${path} ${JSON.stringify(schema)}: ${JSON.stringify(answer.body)}`)
    assert.equal(answer.body.error.code, 'invalid_schema')
    assert.equal(answer.body.error.param, path === '/v1/responses' ? 'text.format.schema' : 'response_format.json_schema.schema')
    assert.match(answer.body.error.message, /^The schema "shape" cannot be used: /)
    assert.match(answer.body.error.message, problem)
  }
  // A recursive schema that descends into the value is fine.
  const tree = { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } }, required: ['name'] }
  assert.equal(server.model.requests.length, calls, 'no refused request reached the model')
  server.model.enqueue({ text: '{"name":"a","children":[{"name":"b","children":[]}]}' })
  assert.equal((await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(tree) })).status, 200)
})

test('an oversized schema is a 400 before any model call; one just under the cap is accepted', async (t) => {
  const server = await startServer(t)
  const calls = server.model.requests.length
  const sized = (chars: number) => {
    const schema = { type: 'object', description: '' }
    schema.description = 'd'.repeat(chars - JSON.stringify(schema).length)
    assert.equal(JSON.stringify(schema).length, chars)
    return schema
  }
  const big = await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(sized(MAX_SCHEMA_CHARS + 1)) })
  assert.equal(big.status, 400)
  assert.equal(big.body.error.code, 'schema_too_large')
  assert.equal(big.body.error.param, 'response_format.json_schema.schema')
  const huge = await post(`${server.url}/v1/responses`, { input: 'x', text: { format: { type: 'json_schema', name: 'shape', schema: sized(5 * 1024 * 1024) } } })
  assert.equal(huge.status, 400)
  assert.equal(huge.body.error.code, 'schema_too_large')
  assert.equal(server.model.requests.length, calls)
  server.model.enqueue({ text: '{}' })
  assert.equal((await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(sized(MAX_SCHEMA_CHARS)) })).status, 200)
})

test('the checker keeps at most its bound of compiled schemas, in count and in text', async (t) => {
  const prepared = (schema: unknown) => {
    const text = JSON.stringify(schema)
    return { text, key: createHash('sha256').update(text).digest('base64url') }
  }
  const checker = new SchemaChecker({ cacheEntries: 4, cacheChars: 1_000 })
  t.after(() => checker.close())
  for (let i = 0; i < 40; i++) assert.deepEqual(await checker.check(prepared({ type: 'object', title: `schema ${i}` })), { kind: 'ok' })
  const byCount = await checker.cacheStats()
  assert.equal(byCount.cached, 4)
  for (let i = 0; i < 10; i++) assert.deepEqual(await checker.validate(prepared({ type: 'string', description: 'x'.repeat(300), title: `${i}` }), '"a"'), { kind: 'ok' })
  const byText = await checker.cacheStats()
  assert.ok(byText.chars <= 1_000, `${byText.chars} characters cached`)
  assert.ok(byText.cached <= 3)
  // The same schema again is a hit (keyed by the hash of its text): the count does not move.
  const again = prepared({ type: 'string', description: 'x'.repeat(300), title: '9' })
  await checker.check(again)
  assert.deepEqual(await checker.cacheStats(), byText)
})

test('look-alikes: a json_schema with a safe pattern validates, streamed and not; a mismatch is still the 500 it was; a plain request is untouched', async (t) => {
  const server = await startServer(t)
  const client = server.client()
  server.model.enqueue({ text: '{"city":"Oslo"}' })
  const completion = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'where?' }], response_format: { type: 'json_schema', json_schema: { name: 'place', schema: SAFE, strict: true } } })
  assert.equal(completion.choices[0]!.message.content, '{"city":"Oslo"}')
  assert.deepEqual(server.model.requests.at(-1)!.body.response_format, { type: 'json_schema', json_schema: { name: 'place', schema: SAFE, strict: true } })

  server.model.enqueue({ text: '{"city":"Rome"}' })
  const chunks = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'where?' }], stream: true, response_format: { type: 'json_schema', json_schema: { name: 'place', schema: SAFE } } })
  let text = ''
  let finish: string | null = null
  for await (const chunk of chunks) {
    text += chunk.choices[0]?.delta.content ?? ''
    finish = chunk.choices[0]?.finish_reason ?? finish
  }
  assert.equal(text, '{"city":"Rome"}')
  assert.equal(finish, 'stop')

  server.model.enqueue({ text: '{"city":"Paris"}' })
  const stream = client.responses.stream({ model: 'agent', input: 'where?', text: { format: { type: 'json_schema', name: 'place', schema: SAFE, strict: true } } })
  const final = await stream.finalResponse()
  assert.equal(final.status, 'completed')
  assert.deepEqual(JSON.parse(final.output_text), { city: 'Paris' })

  server.model.enqueue({ text: '{"city":"oslo"}' })
  const mismatch = await post(`${server.url}/v1/chat/completions`, { messages: user, response_format: chatFormat(SAFE) })
  assert.equal(mismatch.status, 500)
  assert.equal(mismatch.body.error.code, 'invalid_structured_output')
  assert.match(mismatch.body.error.message, /does not match the schema "shape" \(#\/city: /)

  const plain = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'plain' }] })
  assert.equal(plain.choices[0]!.message.content, 'echo: plain')
  assert.equal(server.model.requests.at(-1)!.body.response_format, undefined)
})
