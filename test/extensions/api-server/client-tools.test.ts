// Client tools both ways: a request's function tools are offered to the model beside the agent's;
// a call to one ends the answer with tool_calls (chat) / function_call items (responses), and the
// client's tool result continues the same session. Agent tool runs never show up as client calls;
// tool_choice is forwarded (required/named on the first model call only); name clashes are a 400.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension } from '../../../sdk/index.ts'
import { post, startServer } from './harness.ts'

const agentTools = defineExtension({
  name: 'test-agent-tools',
  setup(api) {
    api.tools.register({ name: 'agent_clock', description: 'The time', parameters: { type: 'object', properties: {} }, execute: () => '12:00' })
  },
})

const CHAT_TOOL = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }
const RESPONSES_TOOL = { type: 'function' as const, name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false }

const offered = (body: any): string[] => (body.tools ?? []).map((t: any) => t.function.name).sort()

test('chat: a client tool call comes back as tool_calls; the tool message continues the same session', async (t) => {
  const server = await startServer(t, { extensions: [agentTools] })
  const client = server.client()
  server.model.enqueue({ toolCalls: [{ id: 'call_cw', name: 'get_weather', arguments: { city: 'Oslo' } }] })
  const messages: any[] = [{ role: 'user', content: 'Weather in Oslo?' }]
  const first = await client.chat.completions.create({ model: 'agent', messages, tools: [CHAT_TOOL] }).withResponse()
  const choice = first.data.choices[0]!
  assert.equal(choice.finish_reason, 'tool_calls')
  assert.equal(choice.message.content, null)
  assert.deepEqual(choice.message.tool_calls, [{ id: 'call_cw', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }])
  assert.deepEqual(offered(server.model.requests.at(-1)!.body), ['agent_clock', 'get_weather'])

  server.model.enqueue({ text: 'Sunny in Oslo.' })
  messages.push(choice.message, { role: 'tool', tool_call_id: 'call_cw', content: 'sunny' })
  const second = await client.chat.completions.create({ model: 'agent', messages, tools: [CHAT_TOOL] }).withResponse()
  assert.equal(second.data.choices[0]!.message.content, 'Sunny in Oslo.')
  assert.equal(second.data.choices[0]!.finish_reason, 'stop')
  assert.equal(second.response.headers.get('x-agent-session-id'), first.response.headers.get('x-agent-session-id'), 'one session')
  const sent = server.model.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system')
  assert.deepEqual(sent.map((m: any) => m.role), ['user', 'assistant', 'tool'])
  assert.equal(sent[2].content, 'sunny')
  assert.equal(sent[2].tool_call_id, 'call_cw')
  // The run continued from the stored session: the user turn reached the model once per request.
  assert.equal(server.model.requests.length, 2)
})

test('chat streamed: the client call arrives as a tool_calls delta and finish_reason tool_calls; agent tools run server-side', async (t) => {
  const server = await startServer(t, { extensions: [agentTools] })
  // One batch calls the agent's tool and the client's: the agent's runs here, only the client's goes back.
  server.model.enqueue({ toolCalls: [{ id: 'call_clock', name: 'agent_clock', arguments: {} }, { id: 'call_w2', name: 'get_weather', arguments: { city: 'Rome' } }] })
  const stream = server.client().chat.completions.stream({ model: 'agent', messages: [{ role: 'user', content: 'time and weather' }], tools: [CHAT_TOOL], stream_options: { include_usage: true } })
  const final = await stream.finalChatCompletion()
  const choice = final.choices[0]!
  assert.equal(choice.finish_reason, 'tool_calls')
  assert.deepEqual(choice.message.tool_calls!.map((c) => c.function.name), ['get_weather'])
  assert.ok(final.usage, 'usage chunk')
  const session = await server.test.kernel.services.require<any>('sessions').list({ limit: 5 })
  const messages = await server.test.kernel.services.require<any>('sessions').messages(session[0].id)
  assert.ok(messages.some((m: any) => m.role === 'tool' && m.toolCallId === 'call_clock' && m.content === '12:00'), 'the agent tool ran')
})

test('responses: a client call is a function_call item; function_call_output with previous_response_id continues the session', async (t) => {
  const server = await startServer(t, { extensions: [agentTools] })
  const client = server.client()
  server.model.enqueue({ toolCalls: [{ id: 'call_clock', name: 'agent_clock', arguments: {} }] }, { text: 'Let me check.', toolCalls: [{ id: 'call_r1', name: 'get_weather', arguments: { city: 'Lima' } }] })
  const first = await client.responses.create({ model: 'agent', input: 'Weather in Lima?', tools: [RESPONSES_TOOL] })
  assert.equal(first.status, 'completed')
  assert.deepEqual(first.output.map((o) => o.type), ['message', 'function_call'])
  const call = first.output[1] as any
  assert.deepEqual({ name: call.name, call_id: call.call_id, arguments: call.arguments }, { name: 'get_weather', call_id: 'call_r1', arguments: '{"city":"Lima"}' })
  assert.deepEqual((first.tools as any[]).map((t) => t.name), ['get_weather'])

  server.model.enqueue({ text: 'Cloudy in Lima.' })
  const second = await client.responses.create({ model: 'agent', previous_response_id: first.id, input: [{ type: 'function_call_output', call_id: 'call_r1', output: 'cloudy' }], tools: [RESPONSES_TOOL] })
  assert.equal(second.output_text, 'Cloudy in Lima.')
  const sent = server.model.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system')
  assert.deepEqual(sent.map((m: any) => m.role), ['user', 'assistant', 'tool', 'assistant', 'tool'])
  assert.equal(sent.at(-1).content, 'cloudy')

  // The same round trip streamed: the helper accumulates the function_call item.
  server.model.enqueue({ toolCalls: [{ id: 'call_r2', name: 'get_weather', arguments: { city: 'Quito' } }] })
  const streamed = await client.responses.stream({ model: 'agent', input: 'And Quito?', previous_response_id: second.id, tools: [RESPONSES_TOOL] }).finalResponse()
  assert.deepEqual(streamed.output.map((o) => [o.type, (o as any).name]), [['function_call', 'get_weather']])
})

test('tool_choice: forwarded, required binding the first call only; "none" is kept; a bad choice or a clash is a 400', async (t) => {
  const server = await startServer(t, { extensions: [agentTools] })
  server.model.enqueue({ toolCalls: [{ id: 'c1', name: 'agent_clock', arguments: {} }] }, { text: 'noon' })
  await server.client().chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'time?' }], tools: [CHAT_TOOL], tool_choice: 'required' })
  const [a, b] = server.model.requests.slice(-2).map((r) => r.body)
  assert.equal(a.tool_choice, 'required')
  assert.equal(b.tool_choice, 'auto')

  await server.client().chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'x' }], tools: [CHAT_TOOL], tool_choice: { type: 'function', function: { name: 'get_weather' } } })
  assert.deepEqual(server.model.requests.at(-1)!.body.tool_choice, { type: 'function', function: { name: 'get_weather' } })
  await server.client().responses.create({ model: 'agent', input: 'x', tools: [RESPONSES_TOOL], tool_choice: 'none' })
  assert.equal(server.model.requests.at(-1)!.body.tool_choice, 'none')
  // Without client tools and without tool_choice, nothing new is sent.
  await server.client().chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'plain' }] })
  assert.equal(server.model.requests.at(-1)!.body.tool_choice, undefined)
  assert.deepEqual(offered(server.model.requests.at(-1)!.body), ['agent_clock'])

  const calls = server.model.requests.length
  const clash = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'agent_clock', parameters: {} } }] })
  assert.equal(clash.status, 400)
  assert.equal(clash.body.error.code, 'tool_name_conflict')
  const unknown = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], tools: [CHAT_TOOL], tool_choice: { type: 'function', function: { name: 'nope' } } })
  assert.equal(unknown.status, 400)
  assert.equal(unknown.body.error.param, 'tool_choice')
  const hosted = await post(`${server.url}/v1/responses`, { input: 'x', tools: [{ type: 'web_search' }] })
  assert.equal(hosted.status, 400)
  assert.equal(hosted.body.error.code, 'unsupported_tool')
  const badName = await post(`${server.url}/v1/responses`, { input: 'x', tools: [{ type: 'function', name: 'has space' }] })
  assert.equal(badName.status, 400)
  // A look-alike passes: a distinct name that merely resembles the agent's.
  const similar = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'agent_clock_2', parameters: {} } }] })
  assert.equal(similar.status, 200)
  assert.equal(server.model.requests.length, calls + 1, 'refused requests never reached the model')
})

test('openai-node runTools: the client runs its function and the agent finishes the answer in one session', async (t) => {
  const server = await startServer(t, { extensions: [agentTools] })
  server.model.enqueue({ toolCalls: [{ id: 'call_rt', name: 'get_weather', arguments: { city: 'Bergen' } }] }, { text: 'Rainy in Bergen, as usual.' })
  const asked: string[] = []
  const runner = server.client().chat.completions.runTools({
    model: 'agent',
    messages: [{ role: 'user', content: 'Weather in Bergen?' }],
    tools: [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
          parse: JSON.parse,
          function: (args: { city: string }) => (asked.push(args.city), 'rain'),
        },
      },
    ],
  })
  assert.equal(await runner.finalContent(), 'Rainy in Bergen, as usual.')
  assert.deepEqual(asked, ['Bergen'])
  const sent = server.model.requests.at(-1)!.body.messages.filter((m: any) => m.role !== 'system')
  assert.deepEqual(sent.map((m: any) => m.role), ['user', 'assistant', 'tool'])
  assert.equal(sent[2].content, 'rain')
})
