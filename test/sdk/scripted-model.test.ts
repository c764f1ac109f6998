// sdk/testing's scripted model server speaks the chat-completions wire protocol well enough for the
// official openai client: text, tool calls, reasoning, usage, streaming, faults.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import OpenAI from 'openai'
import { startScriptedModel } from '../../sdk/testing/index.ts'

test('non-streamed text and tool calls with usage', async (t) => {
  const model = await startScriptedModel({ turns: [{ text: 'hello', usage: { prompt_tokens: 7, completion_tokens: 2 } }, { toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }, { id: 'fixed', name: 'ls', arguments: {} }] }] })
  t.after(() => model.close())
  const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 })
  const first = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
  assert.equal(first.choices[0]!.message.content, 'hello')
  assert.deepEqual(first.usage, { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 })
  const second = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'go' }] })
  const calls = second.choices[0]!.message.tool_calls!
  assert.equal(second.choices[0]!.finish_reason, 'tool_calls')
  assert.equal(calls.length, 2)
  assert.equal(calls[1]!.id, 'fixed')
  assert.deepEqual(JSON.parse((calls[0] as any).function.arguments), { path: 'a.txt' })
  assert.equal(model.requests.length, 2)
  assert.equal(model.requests[1]!.body.messages[0].content, 'go')
})

test('streamed deltas end with a usage chunk', async (t) => {
  const model = await startScriptedModel({ turns: [{ text: 'streamed answer', chunkSize: 4, reasoning: 'thinking' }] })
  t.after(() => model.close())
  const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 })
  const stream = await client.chat.completions.create({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'x' }] })
  let text = ''
  let usage: unknown
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? ''
    if (chunk.usage) usage = chunk.usage
  }
  assert.equal(text, 'streamed answer')
  assert.deepEqual(usage, { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 })
})

test('faults: an HTTP error status and a dropped connection', async (t) => {
  const model = await startScriptedModel({ turns: [{ status: 503, error: 'overloaded' }, { dropConnection: true }] })
  t.after(() => model.close())
  const client = new OpenAI({ baseURL: model.url, apiKey: 'test', maxRetries: 0 })
  await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), /503/)
  await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), /Connection error|socket|terminated/i)
  const fallback = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'again' }] })
  assert.equal(fallback.choices[0]!.message.content, 'echo: again')
  const models = await client.models.list()
  assert.deepEqual(models.data.map((m) => m.id), ['scripted-model'])
})
