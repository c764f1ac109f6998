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

test('missing or duplicate call ids still pair every result with its own call', async (t) => {
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [echoTool])],
    model: {
      turns: [
        { toolCalls: [{ id: '', name: 'echo', arguments: { text: 'one' } }, { id: '', name: 'echo', arguments: { text: 'two' } }] },
        { toolCalls: [{ id: 'dup', name: 'echo', arguments: { text: 'three' } }, { id: 'dup', name: 'echo', arguments: { text: 'four' } }] },
        { text: 'ok' },
      ],
    },
  })
  const result = await runtime.run({ input: 'go' })
  assert.equal(result.exitReason, 'completed')
  for (const index of [1, 2]) {
    const messages = sentMessages(model, index)
    const assistant = messages.filter((m: any) => m.role === 'assistant').at(-1)
    const ids = assistant.tool_calls.map((c: any) => c.id)
    assert.equal(new Set(ids).size, 2, 'ids are unique and non-empty')
    assert.ok(ids.every((id: string) => id.length > 0))
    const results = messages.slice(messages.indexOf(assistant) + 1)
    assert.deepEqual(results.map((m: any) => m.tool_call_id), ids)
    const texts = assistant.tool_calls.map((c: any) => `echo:${JSON.parse(c.function.arguments).text}`)
    assert.deepEqual(results.map((m: any) => m.content), texts, 'each result belongs to its own call')
  }
  assert.equal(result.toolTrace.length, 4)
  assert.equal(new Set(result.toolTrace.map((e) => e.callId)).size, 4)
})

test('tool errors, unknown tools and broken arguments go back to the model; the run goes on', async (t) => {
  const failing = { name: 'failing', description: 'Always fails', parameters: { type: 'object' }, execute: () => { throw new Error('disk on fire') } }
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [failing, echoTool])],
    model: {
      turns: [
        { toolCalls: [{ id: 'a', name: 'failing', arguments: {} }, { id: 'b', name: 'nonexistent', arguments: {} }, { id: 'c', name: 'echo', arguments: '{"text": ' }, { id: 'd', name: 'echo', arguments: '[1]' }] },
        { text: 'recovered' },
      ],
    },
  })
  const result = await runtime.run({ input: 'go' })
  assert.equal(result.answer, 'recovered')
  const tools = sentMessages(model, 1).filter((m: any) => m.role === 'tool')
  assert.equal(tools[0].content, 'Error: failing: disk on fire')
  assert.match(tools[1].content, /^Error: there is no tool "nonexistent"\. Available tools: .*echo/)
  assert.match(tools[2].content, /^Error: echo: the arguments are not valid JSON/)
  assert.equal(tools[3].content, 'Error: echo: the arguments must be a JSON object.')
  assert.deepEqual(result.toolTrace.map((e) => e.status), ['error', 'error', 'error', 'error'])
})

test('beforeToolCall blocks a call (its reason goes to the model); a failing guard blocks too; afterToolCall rewrites', async (t) => {
  const ran: string[] = []
  const tracked = (name: string) => ({ name, description: name, parameters: { type: 'object' }, execute: () => (ran.push(name), `${name} ran`) })
  const guard = defineExtension({
    name: 'test-guard',
    setup(api) {
      api.hooks.beforeToolCall.tapPromise(async (event) => (event.tool === 'danger' ? { block: true, reason: 'dangerous command denied by policy' } : undefined))
      api.hooks.beforeToolCall.tap((event) => {
        if (event.tool === 'shaky') throw new Error('approval service unreachable')
        return undefined
      })
      api.hooks.afterToolCall.tap((outcome, event) => (event.tool === 'safe' ? { ...outcome, result: `${outcome.result} [checked]` } : outcome))
    },
  })
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [tracked('danger'), tracked('shaky'), tracked('safe')]), guard],
    model: { turns: [{ toolCalls: [{ id: 'a', name: 'danger', arguments: {} }, { id: 'b', name: 'shaky', arguments: {} }, { id: 'c', name: 'safe', arguments: {} }] }, { text: 'fine' }] },
  })
  const result = await runtime.run({ input: 'go' })
  assert.deepEqual(ran, ['safe'], 'blocked tools never ran')
  const tools = sentMessages(model, 1).filter((m: any) => m.role === 'tool')
  assert.equal(tools[0].content, 'Blocked: danger was not run: dangerous command denied by policy')
  assert.match(tools[1].content, /^Blocked: shaky was not run because a safety check failed: .*approval service unreachable/)
  assert.equal(tools[2].content, 'safe ran [checked]')
  assert.deepEqual(result.toolTrace.map((e) => e.status), ['error', 'error', 'ok'])
})

test('the iteration cap stops a model that always calls tools', async (t) => {
  const { runtime, model, sessions } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [echoTool])],
    model: { respond: () => ({ text: 'still going', toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] }) },
  })
  const result = await runtime.run({ input: 'go', maxIterations: 4 })
  assert.equal(result.exitReason, 'max_iterations')
  assert.equal(result.apiCalls, 4)
  assert.equal(chatRequests(model).length, 4)
  assert.equal(result.answer, 'still going')
  const stored = await sessions.messages(result.sessionId)
  assert.equal(stored.filter((m) => m.role === 'tool').length, 4, 'every call of the last turn got its result')
  assert.equal((await sessions.get(result.sessionId))!.lastExitReason, 'max_iterations')
  await assert.rejects(runtime.run({ input: 'x', maxIterations: 0 }), /positive integer/)
})

test('an abort during the model call interrupts the run at once', async (t) => {
  const { runtime, sessions } = await runtimeFixture(t, { model: { turns: [{ text: 'late', delayMs: 20_000 }] } })
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 100)
  const result = await runtime.run({ input: 'slow please', signal: controller.signal })
  assert.equal(result.exitReason, 'interrupted')
  assert.equal(result.apiCalls, 0)
  const stored = await sessions.messages(result.sessionId)
  assert.deepEqual(stored.map((m) => m.role), ['user'], 'the prompt is kept')
})

test('an abort during tools interrupts them; every call still gets a result in the transcript', async (t) => {
  let count = 0
  let started!: () => void
  const bothBegan = new Promise<void>((r) => (started = () => ++count === 2 && r()))
  const waiting = {
    name: 'waiting',
    description: 'Waits for its signal',
    parameters: { type: 'object' },
    execute: ({ signal }: any) =>
      new Promise((_, reject) => {
        started()
        signal.addEventListener('abort', () => reject(new Error('stopped by signal')), { once: true })
      }),
  }
  const stubborn = { name: 'stubborn', description: 'Ignores its signal', parameters: { type: 'object' }, execute: () => new Promise(() => void started()) }
  const { runtime, sessions, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [waiting, stubborn])],
    config: { agent: { tool_abort_grace_ms: 200 } },
    model: { turns: [{ toolCalls: [{ id: 'w', name: 'waiting', arguments: {} }, { id: 's', name: 'stubborn', arguments: {} }] }, { text: 'never' }] },
  })
  const controller = new AbortController()
  const events: RunEvent[] = []
  void bothBegan.then(() => controller.abort())
  const result = await runtime.run({ input: 'go', signal: controller.signal, onEvent: (e) => events.push(e) })
  assert.equal(result.exitReason, 'interrupted')
  assert.equal(result.apiCalls, 1)
  assert.equal(chatRequests(model).length, 1, 'no model call after the interrupt')
  const tools = (await sessions.messages(result.sessionId)).filter((m) => m.role === 'tool')
  assert.deepEqual(tools.map((m) => m.toolCallId), ['w', 's'])
  assert.match(String(tools[0]!.content), /^Interrupted: waiting was stopped \(stopped by signal\)/)
  assert.match(String(tools[1]!.content), /^Interrupted: stubborn was stopped \(did not stop within 200 ms/)
  assert.deepEqual(events.filter((e) => e.type === 'tool.end').map((e: any) => [e.callId, e.ok]), [['w', false], ['s', false]])
})
