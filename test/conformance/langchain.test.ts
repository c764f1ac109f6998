// `@langchain/openai` ChatOpenAI against a real `agent gateway run` (API server on, bearer key, scripted
// model), on chat completions and on the responses API (useResponsesApi): invoke and stream, a resent
// history, and chaining with previous_response_id.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { AIMessage, HumanMessage, SystemMessage } from '@langchain/core/messages'
import { ChatOpenAI } from '@langchain/openai'
import { API_KEY, startApiGateway, transcript } from './api-gateway.ts'

const HISTORY = [new SystemMessage('Be brief.'), new HumanMessage('first question'), new AIMessage('first answer'), new HumanMessage('second question')]

test('@langchain/openai ChatOpenAI against `agent gateway run`', { timeout: 180_000 }, async (t) => {
  const gateway = await startApiGateway(t)
  const make = (useResponsesApi: boolean) => new ChatOpenAI({ model: 'agent', apiKey: API_KEY, configuration: { baseURL: `${gateway.url}/v1` }, maxRetries: 0, useResponsesApi })

  for (const [name, useResponsesApi] of [['chat completions', false], ['responses', true]] as const) {
    const model = make(useResponsesApi)
    await t.test(`${name}: invoke`, async () => {
      const message = await model.invoke(`plain via ${name}`)
      assert.equal(message.text, `echo: plain via ${name}`)
      assert.ok((message.usage_metadata?.total_tokens ?? 0) > 0)
    })

    await t.test(`${name}: stream`, async () => {
      let text = ''
      let chunks = 0
      for await (const chunk of await model.stream(`streamed via ${name}`)) {
        text += chunk.text
        chunks++
      }
      assert.equal(text, `echo: streamed via ${name}`)
      assert.ok(chunks > 1)
    })

    await t.test(`${name}: a resent history reaches the model`, async () => {
      const message = await model.invoke(HISTORY)
      assert.equal(message.text, 'echo: second question')
      assert.deepEqual(transcript(gateway.lastMessages()), ['user: first question', 'assistant: first answer', 'user: second question'])
    })
  }

  await t.test('responses: chaining with previous_response_id', async () => {
    const model = make(true)
    const first = await model.invoke('remember the number 7')
    const id = first.response_metadata.id as string
    assert.match(id, /^resp_/)
    const second = await model.invoke('which number?', { previous_response_id: id })
    assert.equal(second.text, 'echo: which number?')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: remember the number 7', 'assistant: echo: remember the number 7', 'user: which number?'])
  })

  await t.test('responses: a conversation continued with its own AIMessage', async () => {
    const model = make(true)
    const first = await model.invoke('remember the colour blue')
    const second = await model.invoke([new HumanMessage('remember the colour blue'), first, new HumanMessage('which colour?')])
    assert.equal(second.text, 'echo: which colour?')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: remember the colour blue', 'assistant: echo: remember the colour blue', 'user: which colour?'])
  })
})
