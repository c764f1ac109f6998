// Every answer shape of a real `agent gateway run` validated against OpenAI's schemas: chat
// completions (plain, client tool calls, structured output), every chunk of a stream (with tool
// progress, client tool calls, the usage chunk and a failure), responses (plain, client tools,
// structured output, background), every responses stream event and the response each lifecycle event
// carries, the input items list, the model and the models list, and error answers.
//
// The schemas are fixtures/openai-shapes.schema.json, generated from openai-node's types (which
// Stainless generates from OpenAI's official OpenAPI description) by openai-shapes/generate.ts: no
// installable package carries the current OpenAPI description itself (see generate.ts). Bodies are
// read raw with fetch, not through openai-node, so nothing the SDK adds or tolerates hides a mismatch.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { API_KEY, startApiGateway, type ApiGateway } from './api-gateway.ts'
import { installedOpenAIVersion } from './openai-shapes/generate.ts'
import { fixture, shapeErrors, type Shape } from './openai-shapes/validate.ts'

function assertShape(shape: Shape, value: unknown, what: string): void {
  const errors = shapeErrors(shape, value)
  assert.deepEqual(errors, [], `${what} is not a valid ${shape}:\n  ${errors.join('\n  ')}\n${JSON.stringify(value).slice(0, 1500)}`)
}

interface Answer {
  status: number
  body: any
}

async function call(gateway: ApiGateway, method: string, path: string, body?: unknown, key = API_KEY): Promise<Answer> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: res.status, body: await res.json() }
}

interface SseEvent {
  event?: string
  data: string
}

/** The events of an SSE answer (comments such as keepalives left out). */
async function stream(gateway: ApiGateway, path: string, body: unknown): Promise<SseEvent[]> {
  const res = await fetch(`${gateway.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  assert.equal(res.status, 200)
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
  const events: SseEvent[] = []
  for (const block of (await res.text()).split('\n\n')) {
    const lines = block.split('\n').filter((line) => line && !line.startsWith(':'))
    if (!lines.length) continue
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7)
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n')
    events.push({ ...(event ? { event } : {}), data })
  }
  return events
}

/** Chat stream: every data event is a chunk, `[DONE]` last; returns the chunks. */
function assertChatStream(events: SseEvent[], what: string): any[] {
  assert.equal(events.at(-1)?.data, '[DONE]', `${what} ends with [DONE]`)
  const chunks = events.slice(0, -1).map((e) => ({ event: e.event, chunk: JSON.parse(e.data) }))
  chunks.forEach(({ event, chunk }, i) => {
    if (chunk.error) {
      // A failure: openai-node raises APIError from `error` before it reads a chunk, so that member
      // must be the API's error object. (The chunk fields around it, finish_reason "error", are for
      // clients that read only choices; the README documents them.)
      assert.equal(i, chunks.length - 1, 'an error is the last event')
      assertShape('OpenAIErrorEnvelope', { error: chunk.error }, `${what}: error event`)
      return
    }
    if (event === 'agent.tool.progress') assert.equal(typeof chunk.tool_progress?.status, 'string', `${what}: progress event carries tool_progress`)
    else assert.equal(event, undefined, `${what}: unnamed data events only, besides progress`)
    assertShape('OpenAIChatCompletionChunk', chunk, `${what}: chunk ${i}`)
  })
  return chunks.map((c) => c.chunk)
}

/** Responses stream: every event is one of the API's, named by its type, numbered in order. */
function assertResponsesStream(events: SseEvent[], what: string): any[] {
  const parsed = events.map((e, i) => {
    const value = JSON.parse(e.data)
    assert.equal(e.event, value.type, `${what}: event ${i} is named by its type`)
    assertShape('OpenAIResponseStreamEvent', value, `${what}: event ${i} (${value.type})`)
    if (value.response) assertShape('OpenAIResponse', value.response, `${what}: the response of ${value.type}`)
    return value
  })
  assert.deepEqual(parsed.map((e) => e.sequence_number), parsed.map((_, i) => i), `${what}: sequence numbers count up from 0`)
  return parsed
}

const WEATHER = { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }
const PLACE = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }

test('the vendored schemas come from the installed openai-node', () => {
  assert.equal(fixture.openaiNode, installedOpenAIVersion(), 'openai-node moved: regenerate the fixture with test/conformance/openai-shapes/generate.ts')
  // An empty schema accepts anything: every shape must say something.
  for (const name of Object.keys(fixture.definitions).filter((n) => n.startsWith('OpenAI'))) assert.notDeepEqual(fixture.definitions[name], {}, name)
})

test('the schemas refuse broken shapes (the validation can fail)', () => {
  const completion = { id: 'chatcmpl-1', object: 'chat.completion', created: 1, model: 'agent', choices: [{ index: 0, message: { role: 'assistant', content: 'hi', refusal: null }, logprobs: null, finish_reason: 'stop' }] }
  assert.deepEqual(shapeErrors('OpenAIChatCompletion', completion), [])
  // A harmless look-alike of each refusal below passes; the broken one does not.
  const { choices: _, ...noChoices } = completion
  assert.notDeepEqual(shapeErrors('OpenAIChatCompletion', noChoices), [], 'missing required field')
  assert.notDeepEqual(shapeErrors('OpenAIChatCompletion', { ...completion, choices: [{ ...completion.choices[0], finish_reason: 'done' }] }), [], 'value outside the enum')
  assert.notDeepEqual(shapeErrors('OpenAIChatCompletion', { ...completion, choises: [] }), [], 'unknown field')
  const delta = { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'x', logprobs: [], sequence_number: 3 }
  assert.deepEqual(shapeErrors('OpenAIResponseStreamEvent', delta), [])
  assert.notDeepEqual(shapeErrors('OpenAIResponseStreamEvent', { ...delta, type: 'response.output_text.partial' }), [], 'unknown event type')
  const { sequence_number: __, ...unnumbered } = delta
  assert.notDeepEqual(shapeErrors('OpenAIResponseStreamEvent', unnumbered), [], 'event without sequence_number')
  assert.deepEqual(shapeErrors('OpenAIErrorEnvelope', { error: { message: 'm', type: 'invalid_request_error', param: null, code: null } }), [])
  assert.notDeepEqual(shapeErrors('OpenAIErrorEnvelope', { error: { message: 'm', type: 'invalid_request_error', code: null } }), [], 'error without param')
  // Only the named extensions are let through.
  assert.deepEqual(shapeErrors('OpenAIModel', { id: 'agent', object: 'model', created: 1, owned_by: 'agent', root: 'agent' }), [])
  assert.notDeepEqual(shapeErrors('OpenAIModel', { id: 'agent', object: 'model', created: 1, owned_by: 'agent', rooot: 'agent' }), [])
})

test('every answer of `agent gateway run` has the OpenAI shape', { timeout: 180_000 }, async (t) => {
  const gateway = await startApiGateway(t)
  const { model } = gateway

  await t.test('models and the models list', async () => {
    const list = await call(gateway, 'GET', '/v1/models')
    assert.equal(list.status, 200)
    assertShape('OpenAIModelList', list.body, 'GET /v1/models')
    const one = await call(gateway, 'GET', '/v1/models/agent')
    assertShape('OpenAIModel', one.body, 'GET /v1/models/agent')
  })

  await t.test('error answers', async () => {
    const answers = [
      await call(gateway, 'GET', '/v1/models/gpt-none'),
      await call(gateway, 'POST', '/v1/chat/completions', { model: 'agent', messages: [] }),
      await call(gateway, 'POST', '/v1/chat/completions', '{"model":', API_KEY),
      await call(gateway, 'POST', '/v1/chat/completions', { model: 'agent', messages: [{ role: 'user', content: 'x' }] }, 'wrong-key'),
      await call(gateway, 'GET', '/v1/responses/resp_missing'),
      await call(gateway, 'GET', '/v1/responses/resp_missing/input_items'),
      await call(gateway, 'POST', '/v1/responses', { model: 'agent', input: 'x', n: 2 }),
      await call(gateway, 'GET', '/v1/nowhere'),
    ]
    for (const answer of answers) {
      assert.ok(answer.status >= 400, JSON.stringify(answer.body))
      assertShape('OpenAIErrorEnvelope', answer.body, `an error answer (${answer.status})`)
    }
  })

  await t.test('chat completion: plain, structured output, client tool call and its continuation', async () => {
    const plain = await call(gateway, 'POST', '/v1/chat/completions', { model: 'agent', messages: [{ role: 'user', content: 'hello' }] })
    assertShape('OpenAIChatCompletion', plain.body, 'plain completion')
    model.enqueue({ text: '{"city":"Rome"}' })
    const structured = await call(gateway, 'POST', '/v1/chat/completions', { model: 'agent', messages: [{ role: 'user', content: 'where?' }], response_format: { type: 'json_schema', json_schema: { name: 'place', schema: PLACE, strict: true } } })
    assert.equal(structured.status, 200)
    assertShape('OpenAIChatCompletion', structured.body, 'structured completion')
    model.enqueue({ toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Rome' } }] })
    const messages = [{ role: 'user', content: 'weather in Rome?' }]
    const calling = await call(gateway, 'POST', '/v1/chat/completions', { model: 'agent', messages, tools: [WEATHER] })
    assert.equal(calling.body.choices[0].finish_reason, 'tool_calls')
    assertShape('OpenAIChatCompletion', calling.body, 'completion with client tool calls')
    model.enqueue({ text: 'Sunny in Rome.' })
    const after = await call(gateway, 'POST', '/v1/chat/completions', {
      model: 'agent',
      tools: [WEATHER],
      messages: [...messages, calling.body.choices[0].message, { role: 'tool', tool_call_id: 'call_w1', content: 'sunny' }],
    })
    assertShape('OpenAIChatCompletion', after.body, 'completion after the tool result')
  })

  await t.test('chat stream: agent tool progress, client tool call, usage chunk, failure', async () => {
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'no-such-file.txt' } }] }, { text: 'That file does not exist.' })
    const progress = assertChatStream(await stream(gateway, '/v1/chat/completions', { model: 'agent', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'read it' }] }), 'stream with an agent tool')
    assert.ok(progress.some((c) => c.tool_progress), 'tool progress was streamed')
    assert.deepEqual(progress.at(-1).choices, [], 'include_usage: the last chunk has empty choices')
    assert.ok(progress.at(-1).usage)
    model.enqueue({ toolCalls: [{ id: 'call_w2', name: 'get_weather', arguments: { city: 'Oslo' } }] })
    const calls = assertChatStream(await stream(gateway, '/v1/chat/completions', { model: 'agent', stream: true, tools: [WEATHER], messages: [{ role: 'user', content: 'weather in Oslo?' }] }), 'stream with a client tool call')
    assert.ok(calls.some((c) => c.choices[0]?.delta?.tool_calls), 'the tool call was streamed')
    model.enqueue({ status: 400, error: 'the model refused the request' })
    const failed = assertChatStream(await stream(gateway, '/v1/chat/completions', { model: 'agent', stream: true, messages: [{ role: 'user', content: 'fail' }] }), 'failed stream')
    assert.ok(failed.at(-1).error, 'the stream ends with the error')
  })

  await t.test('responses: plain, structured, client tools, retrieve, input items, background', async () => {
    const plain = await call(gateway, 'POST', '/v1/responses', { model: 'agent', input: 'hello', metadata: { topic: 'shapes' } })
    assert.equal(plain.status, 200)
    assertShape('OpenAIResponse', plain.body, 'plain response')
    assertShape('OpenAIResponse', (await call(gateway, 'GET', `/v1/responses/${plain.body.id}`)).body, 'retrieved response')
    const items = await call(gateway, 'GET', `/v1/responses/${plain.body.id}/input_items`)
    assertShape('OpenAIResponseItemList', items.body, 'input items')
    const resent = await call(gateway, 'POST', '/v1/responses', {
      model: 'agent',
      input: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'echo: first' }, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'second' }] }],
    })
    assertShape('OpenAIResponse', resent.body, 'response to a resent history')
    assertShape('OpenAIResponseItemList', (await call(gateway, 'GET', `/v1/responses/${resent.body.id}/input_items?order=asc`)).body, 'input items of a resent history')
    model.enqueue({ text: '{"city":"Rome"}' })
    const structured = await call(gateway, 'POST', '/v1/responses', { model: 'agent', input: 'where?', text: { format: { type: 'json_schema', name: 'place', schema: PLACE, strict: true } } })
    assertShape('OpenAIResponse', structured.body, 'structured response')
    const tool = { type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: WEATHER.function.parameters, strict: false }
    model.enqueue({ toolCalls: [{ id: 'call_w3', name: 'get_weather', arguments: { city: 'Rome' } }] })
    const calling = await call(gateway, 'POST', '/v1/responses', { model: 'agent', input: 'weather in Rome?', tools: [tool] })
    assert.equal(calling.body.output.at(-1).type, 'function_call')
    assertShape('OpenAIResponse', calling.body, 'response with a client tool call')
    model.enqueue({ text: 'Sunny.' })
    const after = await call(gateway, 'POST', '/v1/responses', { model: 'agent', previous_response_id: calling.body.id, tools: [tool], input: [{ type: 'function_call_output', call_id: 'call_w3', output: 'sunny' }] })
    assertShape('OpenAIResponse', after.body, 'response after the tool result')
    assertShape('OpenAIResponseItemList', (await call(gateway, 'GET', `/v1/responses/${after.body.id}/input_items`)).body, 'input items with a tool result')
    const queued = await call(gateway, 'POST', '/v1/responses', { model: 'agent', input: 'later', background: true })
    assertShape('OpenAIResponse', queued.body, 'background response')
    let done: any
    for (let i = 0; i < 200 && !['completed', 'failed', 'incomplete', 'cancelled'].includes(done?.status); i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 25))
      done = (await call(gateway, 'GET', `/v1/responses/${queued.body.id}`)).body
    }
    assert.equal(done.status, 'completed')
    assertShape('OpenAIResponse', done, 'finished background response')
  })

  await t.test('responses stream: every event, plain, with an agent tool and with a client tool call', async () => {
    const plain = assertResponsesStream(await stream(gateway, '/v1/responses', { model: 'agent', input: 'stream it', stream: true }), 'plain stream')
    assert.equal(plain.at(-1).type, 'response.completed')
    model.enqueue({ text: 'Looking.' , toolCalls: [{ name: 'read_file', arguments: { path: 'no-such-file.txt' } }] }, { text: 'Not there.' })
    assertResponsesStream(await stream(gateway, '/v1/responses', { model: 'agent', input: 'read it', stream: true }), 'stream with an agent tool')
    const tool = { type: 'function', name: 'get_weather', parameters: WEATHER.function.parameters, strict: false }
    model.enqueue({ toolCalls: [{ id: 'call_w4', name: 'get_weather', arguments: { city: 'Oslo' } }] })
    const calls = assertResponsesStream(await stream(gateway, '/v1/responses', { model: 'agent', input: 'weather in Oslo?', tools: [tool], stream: true }), 'stream with a client tool call')
    assert.ok(calls.some((e) => e.type === 'response.function_call_arguments.done'))
    model.enqueue({ status: 400, error: 'the model refused the request' })
    const failed = assertResponsesStream(await stream(gateway, '/v1/responses', { model: 'agent', input: 'fail', stream: true }), 'failed stream')
    assert.equal(failed.at(-1).type, 'response.failed')
  })
})
