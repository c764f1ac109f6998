// Full conversation input: responses `item_reference` resolved from the store (the AI SDK resends
// earlier assistant turns that way), function_call / function_call_output items and content parts,
// chat-completions assistant tool calls and tool messages in the history, GET input_items, and the
// refusals of what cannot be resolved or is not supported.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import OpenAI from 'openai'
import { post, startServer } from './harness.ts'
import { backendSkip, STORAGE_BACKENDS } from '../../../sdk/testing/index.ts'

/** The conversation the model was sent, system prompt left out. */
function convo(body: any): any[] {
  return body.messages.filter((m: any) => m.role !== 'system')
}

for (const backend of STORAGE_BACKENDS) {
  describe(`input items [${backend}]`, { skip: backendSkip(backend) }, () => {
    test('responses: item_reference brings back the stored assistant turn; an unknown one is a 404', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const first = await client.responses.create({ model: 'agent', input: 'hello' })
      const itemId = first.output[0]!.id!
      assert.match(itemId, /^msg_/)

      server.model.enqueue({ text: 'again, then' })
      const second = await client.responses.create({
        model: 'agent',
        input: [{ role: 'user', content: 'hello' }, { type: 'item_reference', id: itemId }, { role: 'user', content: [{ type: 'input_text', text: 'once more' }] }],
      } as any)
      assert.equal(second.output_text, 'again, then')
      assert.deepEqual(
        convo(server.model.requests.at(-1)!.body).map((m) => `${m.role}:${m.content}`),
        ['user:hello', 'assistant:echo: hello', 'user:once more'],
      )

      const missing = await post(`${server.url}/v1/responses`, { input: [{ type: 'item_reference', id: 'msg_0123456789abcdef_0' }, { role: 'user', content: 'x' }] })
      assert.equal(missing.status, 404)
      assert.equal(missing.body.error.code, 'item_not_found')
      assert.equal(missing.body.error.param, 'input[0].id')
      const bogus = await post(`${server.url}/v1/responses`, { input: [{ type: 'item_reference', id: 'not-an-item' }, { role: 'user', content: 'x' }] })
      assert.equal(bogus.status, 404)
    })

    test('responses: function_call and function_call_output items and output_text/refusal parts reach the model', async (t) => {
      const server = await startServer(t, { storage: backend })
      server.model.enqueue({ text: 'It is sunny.' })
      const answer = await server.client().responses.create({
        model: 'agent',
        input: [
          { role: 'user', content: 'Weather in Oslo?' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
          { type: 'function_call', call_id: 'call_a', name: 'weather', arguments: '{"city":"Oslo"}' },
          { type: 'function_call_output', call_id: 'call_a', output: 'sunny' },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { role: 'assistant', content: [{ type: 'refusal', refusal: 'I cannot say more.' }] },
          { role: 'user', content: 'So?' },
        ],
      } as any)
      assert.equal(answer.output_text, 'It is sunny.')
      const sent = convo(server.model.requests.at(-1)!.body)
      assert.deepEqual(sent[1], { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'call_a', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } }] })
      assert.equal(sent[2].role, 'tool')
      assert.equal(sent[2].tool_call_id, 'call_a')
      assert.equal(sent[2].content, 'sunny')
      assert.deepEqual(sent.slice(3).map((m: any) => `${m.role}:${m.content}`), ['assistant:I cannot say more.', 'user:So?'])

      const unsupported = await post(`${server.url}/v1/responses`, { input: [{ type: 'web_search_call', id: 'ws_1' }, { role: 'user', content: 'x' }] })
      assert.equal(unsupported.status, 400)
      assert.equal(unsupported.body.error.code, 'unsupported_input_item')
      const noCallId = await post(`${server.url}/v1/responses`, { input: [{ type: 'function_call_output', output: 'x' }] })
      assert.equal(noCallId.status, 400)
      assert.equal(noCallId.body.error.param, 'input[0].call_id')
    })

    test('chat: assistant tool calls and tool messages in the history reach the model; a tool message without its id is a 400', async (t) => {
      const server = await startServer(t, { storage: backend })
      server.model.enqueue({ text: 'Sunny, then.' })
      const completion = await server.client().chat.completions.create({
        model: 'agent',
        messages: [
          { role: 'user', content: 'Weather?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_w', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'call_w', content: [{ type: 'text', text: 'sunny' }] },
          { role: 'assistant', content: 'It is sunny.' },
          { role: 'user', content: 'Thanks' },
        ],
      })
      assert.equal(completion.choices[0]!.message.content, 'Sunny, then.')
      assert.equal(completion.choices[0]!.message.refusal, null)
      const sent = convo(server.model.requests.at(-1)!.body)
      assert.deepEqual(sent.map((m: any) => m.role), ['user', 'assistant', 'tool', 'assistant', 'user'])
      assert.equal(sent[1].tool_calls[0].id, 'call_w')
      assert.equal(sent[2].content, 'sunny')

      const bad = await post(`${server.url}/v1/chat/completions`, { messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'y' }] })
      assert.equal(bad.status, 400)
      assert.equal(bad.body.error.param, 'messages[1].tool_call_id')
    })

    test('GET /v1/responses/{id}/input_items lists what was sent, newest first by default; unknown is 404', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const response = await client.responses.create({ model: 'agent', input: [{ role: 'user', content: 'one' }, { role: 'user', content: [{ type: 'input_text', text: 'two' }] }] } as any)
      const items = await client.responses.inputItems.list(response.id)
      const texts = items.data.map((i: any) => i.content[0].text)
      assert.deepEqual(texts, ['two', 'one'])
      const asc = await client.responses.inputItems.list(response.id, { order: 'asc' })
      assert.deepEqual(asc.data.map((i: any) => i.content[0].text), ['one', 'two'])
      // An input item can be referenced like an output item.
      server.model.enqueue({ text: 'ok' })
      await client.responses.create({ model: 'agent', input: [{ type: 'item_reference', id: asc.data[0]!.id }] } as any)
      assert.deepEqual(convo(server.model.requests.at(-1)!.body).map((m) => m.content), ['one'])
      await assert.rejects(client.responses.inputItems.list('resp_unknown'), (e: unknown) => e instanceof OpenAI.NotFoundError)
    })

    test('a conversation whose latest response was deleted is a 404 naming it; another name still chains', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const first = await client.responses.create({ model: 'agent', input: 'one', conversation: 'trip-a' } as any)
      await client.responses.create({ model: 'agent', input: 'one', conversation: 'trip-b' } as any)
      await client.responses.delete(first.id)
      const lost = await post(`${server.url}/v1/responses`, { input: 'two', conversation: 'trip-a' })
      assert.equal(lost.status, 404)
      assert.equal(lost.body.error.code, 'conversation_not_found')
      assert.equal(lost.body.error.param, 'conversation')
      assert.match(lost.body.error.message, /"trip-a"/)
      const kept = await client.responses.create({ model: 'agent', input: 'two', conversation: 'trip-b' } as any)
      assert.notEqual(kept.previous_response_id, null)
    })

    test('responses: a client resending its whole history (item_reference, no chain) stays in one session, client tool round trip included', async (t) => {
      const server = await startServer(t, { storage: backend })
      const client = server.client()
      const tool = { type: 'function' as const, name: 'get_time', description: 'Time', parameters: { type: 'object', properties: {} }, strict: false }
      const r1 = await client.responses.create({ model: 'agent', input: 'first' }).withResponse()
      const session = r1.response.headers.get('x-agent-session-id')
      const history: any[] = [{ role: 'user', content: 'first' }, { type: 'item_reference', id: r1.data.output[0]!.id }]
      server.model.enqueue({ toolCalls: [{ id: 'call_t', name: 'get_time', arguments: {} }] })
      const r2 = await client.responses.create({ model: 'agent', input: [...history, { role: 'user', content: 'what time?' }], tools: [tool] } as any).withResponse()
      assert.equal(r2.response.headers.get('x-agent-session-id'), session)
      history.push({ role: 'user', content: 'what time?' }, { type: 'item_reference', id: r2.data.output[0]!.id }, { type: 'function_call_output', call_id: 'call_t', output: 'noon' })
      server.model.enqueue({ text: 'It is noon.' })
      const r3 = await client.responses.create({ model: 'agent', input: history, tools: [tool] } as any).withResponse()
      assert.equal(r3.data.output_text, 'It is noon.')
      assert.equal(r3.response.headers.get('x-agent-session-id'), session)
      const sent = convo(server.model.requests.at(-1)!.body).map((m: any) => m.role)
      assert.deepEqual(sent, ['user', 'assistant', 'user', 'assistant', 'tool'])
      // Chaining from the last of them by id continues the same session too.
      const r4 = await client.responses.create({ model: 'agent', input: 'thanks', previous_response_id: r3.data.id }).withResponse()
      assert.equal(r4.response.headers.get('x-agent-session-id'), session)
    })
  })
}
