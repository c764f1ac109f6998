// What issue 15 asks of the API server beyond plain text, driven by the real clients against a real
// `agent gateway run`: client tools both ways (openai-node on chat and responses, the AI SDK running
// its own tools, LangChain bindTools), tool results in a resent history (`function_call_output`),
// sampling parameters reaching the model, and structured output. The scripted model decides from
// what it is sent (no queue, so one subtest cannot shift the next): a request offering `get_weather`
// gets a call to it, a request ending in a tool result gets that result back as text.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOpenAI } from '@ai-sdk/openai'
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import OpenAI from 'openai'
import { API_KEY, startApiGateway, type ApiGateway } from './api-gateway.ts'

const WEATHER_PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' }, sunny: { type: 'boolean' } }, required: ['city', 'sunny'], additionalProperties: false }

function scriptTheModel(gateway: ApiGateway): void {
  gateway.model.respond((body: any) => {
    const messages: any[] = body.messages ?? []
    const last = messages.at(-1)
    if (last?.role === 'tool') return { text: `tool said: ${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}` }
    const offered = (body.tools ?? []).map((t: any) => t.function?.name ?? t.name)
    if (offered.includes('get_weather')) return { toolCalls: [{ id: 'call_weather_1', name: 'get_weather', arguments: { city: 'Paris' } }] }
    if (body.response_format?.type === 'json_schema') return { text: JSON.stringify({ city: 'Paris', sunny: true }) }
    const user = [...messages].reverse().find((m) => m.role === 'user')
    return { text: `echo: ${typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content)}` }
  })
}

test('client tools, history items, sampling and structured output through real clients', { timeout: 180_000 }, async (t) => {
  const gateway = await startApiGateway(t)
  scriptTheModel(gateway)
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: API_KEY, maxRetries: 0, timeout: 30_000 })
  const weatherTool = { type: 'function' as const, function: { name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_PARAMETERS } }

  await t.test('openai-node chat: a client tool call goes back to the client, its result continues the run', async () => {
    const question = { role: 'user' as const, content: 'weather in Paris?' }
    const first = await client.chat.completions.create({ model: 'agent', messages: [question], tools: [weatherTool] })
    assert.equal(first.choices[0]!.finish_reason, 'tool_calls')
    const call = first.choices[0]!.message.tool_calls![0]! as OpenAI.Chat.ChatCompletionMessageFunctionToolCall
    assert.equal(call.function.name, 'get_weather')
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris' })
    const second = await client.chat.completions.create({
      model: 'agent',
      tools: [weatherTool],
      messages: [question, first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' }],
    })
    assert.equal(second.choices[0]!.message.content, 'tool said: sunny, 21 C')
  })

  await t.test('openai-node responses: function_call out, function_call_output back with previous_response_id', async () => {
    const tools = [{ type: 'function' as const, name: 'get_weather', description: 'The weather in a city', parameters: WEATHER_PARAMETERS, strict: true }]
    const first = await client.responses.create({ model: 'agent', input: 'weather in Paris?', tools })
    const call = first.output.find((item) => item.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall | undefined
    assert.equal(call?.name, 'get_weather')
    const second = await client.responses.create({ model: 'agent', previous_response_id: first.id, tools, input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'sunny, 21 C' }] })
    assert.equal(second.output_text, 'tool said: sunny, 21 C')
  })

  await t.test('openai-node responses: a resent history with function_call and function_call_output items', async () => {
    const response = await client.responses.create({
      model: 'agent',
      store: false,
      input: [
        { role: 'user', content: 'weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'rainy, 12 C' },
      ],
    })
    assert.equal(response.output_text, 'tool said: rainy, 12 C')
  })

  for (const kind of ['responses', 'chat'] as const) {
    await t.test(`the AI SDK (${kind}) runs its own tool and finishes with its result`, async () => {
      const provider = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: API_KEY })
      let ran = 0
      const result = await generateText({
        model: kind === 'responses' ? provider.responses('agent') : provider.chat('agent'),
        prompt: 'weather in Paris?',
        tools: { get_weather: tool({ description: 'The weather in a city', inputSchema: jsonSchema<{ city: string }>(WEATHER_PARAMETERS as never), execute: async ({ city }) => (ran++, `cloudy in ${city}`) }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      })
      assert.equal(ran, 1)
      assert.equal(result.text, 'tool said: cloudy in Paris')
    })
  }

  await t.test('LangChain bindTools: the tool call reaches the client, a ToolMessage continues', async () => {
    const model = new ChatOpenAI({ model: 'agent', apiKey: API_KEY, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0 }).bindTools([weatherTool])
    const question = new HumanMessage('weather in Paris?')
    const first = (await model.invoke([question])) as AIMessage
    assert.equal(first.tool_calls?.[0]?.name, 'get_weather')
    const second = await model.invoke([question, first, new ToolMessage({ tool_call_id: first.tool_calls![0]!.id!, content: 'windy, 15 C' })])
    assert.equal(second.text, 'tool said: windy, 15 C')
  })

  await t.test('sampling parameters reach the model', async () => {
    await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'sample' }], temperature: 0.2, top_p: 0.9, max_completion_tokens: 50, stop: ['END'] })
    const sent = gateway.model.requests.at(-1)!.body as any
    assert.equal(sent.temperature, 0.2)
    assert.equal(sent.top_p, 0.9)
    assert.equal(sent.max_completion_tokens ?? sent.max_tokens, 50)
    assert.deepEqual(sent.stop, ['END'])
  })

  await t.test('structured output: response_format json_schema on chat, text.format on responses', async () => {
    const format = { type: 'json_schema' as const, json_schema: { name: 'weather', schema: WEATHER_SCHEMA, strict: true } }
    const chat = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'weather as JSON' }], response_format: format })
    assert.deepEqual(JSON.parse(chat.choices[0]!.message.content!), { city: 'Paris', sunny: true })
    const response = await client.responses.create({ model: 'agent', input: 'weather as JSON', text: { format: { type: 'json_schema', name: 'weather', schema: WEATHER_SCHEMA, strict: true } } })
    assert.deepEqual(JSON.parse(response.output_text), { city: 'Paris', sunny: true })
  })
})
