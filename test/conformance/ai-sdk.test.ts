// The AI SDK 6 against a real `agent gateway run` (API server on, bearer key, scripted model), through
// `@ai-sdk/openai` (its responses model and its chat model) and `@ai-sdk/openai-compatible`:
// generateText and streamText, a resent history, and chaining with previousResponseId.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { generateText, streamText, type ModelMessage } from 'ai'
import { API_KEY, startApiGateway, transcript } from './api-gateway.ts'

const HISTORY: ModelMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'first question' },
  { role: 'assistant', content: 'first answer' },
  { role: 'user', content: 'second question' },
]

test('the AI SDK 6 against `agent gateway run`', { timeout: 180_000 }, async (t) => {
  const gateway = await startApiGateway(t)
  const openai = createOpenAI({ baseURL: `${gateway.url}/v1`, apiKey: API_KEY })
  const compatible = createOpenAICompatible({ name: 'agent', baseURL: `${gateway.url}/v1`, apiKey: API_KEY, includeUsage: true })
  const models = [
    ['@ai-sdk/openai responses', openai.responses('agent')],
    ['@ai-sdk/openai chat', openai.chat('agent')],
    ['@ai-sdk/openai-compatible chat', compatible.chatModel('agent')],
  ] as const

  for (const [name, model] of models) {
    await t.test(`${name}: generateText`, async () => {
      const result = await generateText({ model, prompt: `plain via ${name}`, maxRetries: 0 })
      assert.equal(result.text, `echo: plain via ${name}`)
      assert.equal(result.finishReason, 'stop')
      assert.ok((result.usage.totalTokens ?? 0) > 0)
    })

    await t.test(`${name}: streamText`, async () => {
      const result = streamText({ model, prompt: `streamed via ${name}`, maxRetries: 0 })
      let text = ''
      for await (const delta of result.textStream) text += delta
      assert.equal(text, `echo: streamed via ${name}`)
      assert.equal(await result.finishReason, 'stop')
    })

    await t.test(`${name}: a resent history reaches the model`, async () => {
      const result = await generateText({ model, messages: HISTORY, maxRetries: 0 })
      assert.equal(result.text, 'echo: second question')
      assert.deepEqual(transcript(gateway.lastMessages()), ['user: first question', 'assistant: first answer', 'user: second question'])
    })
  }

  await t.test('@ai-sdk/openai responses: chaining with previousResponseId', async () => {
    const first = await generateText({ model: openai.responses('agent'), prompt: 'remember the number 7', maxRetries: 0 })
    const responseId = first.providerMetadata?.openai?.responseId as string
    assert.match(responseId, /^resp_/)
    const second = await generateText({ model: openai.responses('agent'), prompt: 'which number?', providerOptions: { openai: { previousResponseId: responseId } }, maxRetries: 0 })
    assert.equal(second.text, 'echo: which number?')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: remember the number 7', 'assistant: echo: remember the number 7', 'user: which number?'])
  })

  // The SDK resends its own earlier answers as `item_reference` items (the stored response's output).
  await t.test('@ai-sdk/openai responses: a conversation continued from its own result messages', async () => {
    const model = openai.responses('agent')
    const first = await generateText({ model, prompt: 'remember the colour blue', maxRetries: 0 })
    const messages: ModelMessage[] = [{ role: 'user', content: 'remember the colour blue' }, ...first.response.messages, { role: 'user', content: 'which colour?' }]
    const second = await generateText({ model, messages, maxRetries: 0 })
    assert.equal(second.text, 'echo: which colour?')
    assert.deepEqual(transcript(gateway.lastMessages()), ['user: remember the colour blue', 'assistant: echo: remember the colour blue', 'user: which colour?'])
  })
})
