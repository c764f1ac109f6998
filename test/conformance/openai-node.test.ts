// openai-node 6 against a real `agent gateway run` (API server on, bearer key, scripted model): chat
// completions and responses, plain and streamed, a resent chat history, a resent responses history,
// chaining with previous_response_id, models.retrieve, and the API error surfaced as the client's APIError.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import OpenAI from 'openai'
import { API_KEY, startApiGateway, transcript } from './api-gateway.ts'

test('openai-node 6 against `agent gateway run`', { timeout: 120_000 }, async (t) => {
  const gateway = await startApiGateway(t)
  const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: API_KEY, maxRetries: 0, timeout: 30_000 })

  await t.test('models.list and models.retrieve', async () => {
    assert.deepEqual((await client.models.list()).data.map((m) => m.id), ['agent'])
    assert.equal((await client.models.retrieve('agent')).id, 'agent')
    await assert.rejects(client.models.retrieve('gpt-4o'), (error: unknown) => error instanceof OpenAI.NotFoundError)
  })

  await t.test('chat completion, plain', async () => {
    const completion = await client.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'plain chat' }] })
    assert.equal(completion.object, 'chat.completion')
    assert.equal(completion.choices[0]!.message.content, 'echo: plain chat')
    assert.equal(completion.choices[0]!.finish_reason, 'stop')
    assert.ok(completion.usage!.total_tokens > 0)
  })

  await t.test('chat completion, streamed', async () => {
    const stream = await client.chat.completions.create({ model: 'agent', stream: true, messages: [{ role: 'user', content: 'streamed chat' }] })
    let text = ''
    let finish: string | null | undefined
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
    }
    assert.equal(text, 'echo: streamed chat')
    assert.equal(finish, 'stop')
  })

  await t.test('chat history resent: the model sees the earlier turns', async () => {
    const completion = await client.chat.completions.create({
      model: 'agent',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'second question' },
      ],
    })
    assert.equal(completion.choices[0]!.message.content, 'echo: second question')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: first question', 'assistant: first answer', 'user: second question'])
  })

  await t.test('responses, plain and chained with previous_response_id', async () => {
    const first = await client.responses.create({ model: 'agent', input: 'remember the number 7' })
    assert.equal(first.status, 'completed')
    assert.equal(first.output_text, 'echo: remember the number 7')
    const second = await client.responses.create({ model: 'agent', input: 'which number?', previous_response_id: first.id })
    assert.equal(second.output_text, 'echo: which number?')
    assert.equal(second.previous_response_id, first.id)
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: remember the number 7', 'assistant: echo: remember the number 7', 'user: which number?'])
    assert.equal((await client.responses.retrieve(second.id)).output_text, 'echo: which number?')
  })

  await t.test('responses, streamed', async () => {
    const stream = await client.responses.create({ model: 'agent', input: 'streamed response', stream: true })
    let text = ''
    let completed: OpenAI.Responses.Response | undefined
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') completed = event.response
    }
    assert.equal(text, 'echo: streamed response')
    assert.equal(completed?.status, 'completed')
    // The streaming helper assembles the same.
    const helper = client.responses.stream({ model: 'agent', input: 'helper stream' })
    assert.equal((await helper.finalResponse()).output_text, 'echo: helper stream')
  })

  await t.test('responses history resent as input messages', async () => {
    const response = await client.responses.create({
      model: 'agent',
      store: false,
      input: [
        { role: 'user', content: 'earlier question' },
        { role: 'assistant', content: 'earlier answer' },
        { role: 'user', content: 'follow-up' },
      ],
    })
    assert.equal(response.output_text, 'echo: follow-up')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: earlier question', 'assistant: earlier answer', 'user: follow-up'])
  })

  await t.test('errors arrive as the typed errors of the client', async () => {
    const wrongKey = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'wrong-key', maxRetries: 0 })
    await assert.rejects(wrongKey.chat.completions.create({ model: 'agent', messages: [{ role: 'user', content: 'x' }] }), (error: unknown) => error instanceof OpenAI.AuthenticationError)
    await assert.rejects(client.responses.retrieve('resp_unknown'), (error: unknown) => error instanceof OpenAI.NotFoundError)
    await assert.rejects(client.chat.completions.create({ model: 'agent', messages: [] }), (error: unknown) => error instanceof OpenAI.BadRequestError)
  })
})
