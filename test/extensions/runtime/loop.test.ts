// The conversation loop against a scripted OpenAI-compatible model: answers, tool calls paired by
// id (also when the provider sends none), parallel calls, tool errors, unknown tools, bad
// arguments, the iteration cap, interrupts, beforeToolCall blocks (and failing guards), result caps.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension, type RunEvent } from 'agent/sdk'
import { chatRequests, runtimeFixture, sentMessages, toolsExtension } from './helpers.ts'

const echoTool = { name: 'echo', description: 'Echo the text', parameters: { type: 'object', properties: { text: { type: 'string' } } }, execute: ({ input }: any) => `echo:${input.text}` }

test('a plain answer completes in one call and is stored', async (t) => {
  const { runtime, sessions, model } = await runtimeFixture(t, { model: { turns: [{ text: 'Hello there', usage: { prompt_tokens: 12, completion_tokens: 3 } }] } })
  const result = await runtime.run({ input: 'hi' })
  assert.equal(result.answer, 'Hello there')
  assert.equal(result.exitReason, 'completed')
  assert.equal(result.apiCalls, 1)
  assert.equal(result.provider, 'custom')
  assert.deepEqual({ i: result.usage.inputTokens, o: result.usage.outputTokens }, { i: 12, o: 3 })
  const stored = await sessions.messages(result.sessionId)
  assert.deepEqual(stored.map((m) => [m.role, m.content]), [['user', 'hi'], ['assistant', 'Hello there']])
  const session = (await sessions.get(result.sessionId))!
  assert.equal(session.apiCalls, 1)
  assert.equal(session.usage.inputTokens, 12)
  assert.equal(session.lastExitReason, 'completed')
  const sent = sentMessages(model, 0)
  assert.equal(sent[0].role, 'system')
  assert.equal(sent.at(-1).content, 'hi')
})

test('parallel tool calls run concurrently and each result pairs with its call id', async (t) => {
  let running = 0
  let peak = 0
  const slow = {
    name: 'slow',
    description: 'Wait then answer',
    parameters: { type: 'object', properties: { n: { type: 'number' } } },
    async execute({ input }: any) {
      running++
      peak = Math.max(peak, running)
      await new Promise((r) => setTimeout(r, 30 * (3 - input.n)))
      running--
      return `done ${input.n}`
    },
  }
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [slow])],
    model: {
      turns: [
        { toolCalls: [{ id: 'a', name: 'slow', arguments: { n: 0 } }, { id: 'b', name: 'slow', arguments: { n: 1 } }, { id: 'c', name: 'slow', arguments: { n: 2 } }] },
        { text: 'all done' },
      ],
    },
  })
  const result = await runtime.run({ input: 'go' })
  assert.equal(result.answer, 'all done')
  assert.equal(peak, 3, 'the three calls overlapped')
  const toolMessages = sentMessages(model, 1).filter((m: any) => m.role === 'tool')
  assert.deepEqual(toolMessages.map((m: any) => [m.tool_call_id, m.content]), [['a', 'done 0'], ['b', 'done 1'], ['c', 'done 2']])
  assert.deepEqual(result.toolTrace.map((e) => [e.tool, e.callId, e.status]), [['slow', 'a', 'ok'], ['slow', 'b', 'ok'], ['slow', 'c', 'ok']])
  assert.ok(result.toolTrace.every((e) => e.argsBytes > 0 && e.resultBytes === 6))
})
