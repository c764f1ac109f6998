// Runtime features around the loop: system prompt layers (agent, personality, caller, hook), history
// and persist:false, reasoning effort and last_reasoning, streamed events, result caps, sequential
// file-modifying calls, which tools are offered, cost, provider failures, transcript repair.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension, type RunEvent } from 'agent/sdk'
import { chatRequests, runtimeFixture, sentMessages, toolsExtension } from './helpers.ts'

const tool = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: `the ${name} tool`, parameters: { type: 'object' }, execute: () => `${name} ok`, ...extra })

test('system prompt layers: the agent prompt, the personality, the caller, then beforeModelRequest; none is stored', async (t) => {
  const layer = defineExtension({
    name: 'test-layer',
    setup(api) {
      api.hooks.beforeModelRequest.tap((request, context) => {
        const [system, ...rest] = request.messages
        return { ...request, messages: [{ ...system!, content: `${system!.content}\n\nHOOK LAYER for ${context.source?.platform}` }, ...rest] }
      })
    },
  })
  const { runtime, model, sessions } = await runtimeFixture(t, {
    extensions: [layer],
    config: { agent: { system_prompt: 'AGENT PROMPT' }, personalities: { pirate: 'Talk like a pirate.', formal: { prompt: 'Be formal.', description: 'Polite' } } },
  })
  assert.deepEqual(runtime.personalities(), [{ name: 'pirate' }, { name: 'formal', description: 'Polite' }])
  const first = await runtime.run({ input: 'hi', personality: 'pirate', systemPrompt: 'CALLER LAYER', source: { platform: 'telegram', userId: 'u1' } })
  const system = sentMessages(model, 0)[0].content as string
  assert.ok(system.startsWith('AGENT PROMPT'))
  assert.ok(system.indexOf('Talk like a pirate.') < system.indexOf('CALLER LAYER'))
  assert.ok(system.indexOf('CALLER LAYER') < system.indexOf('HOOK LAYER for telegram'))
  const stored = await sessions.messages(first.sessionId)
  assert.ok(stored.every((m) => m.role !== 'system' && !String(m.content).includes('CALLER LAYER')), 'layers are never stored')
  const session = (await sessions.get(first.sessionId))!
  assert.equal(session.personality, 'pirate')
  assert.equal(session.source, 'telegram')
  assert.equal(session.userId, 'u1')
  // The session keeps its personality on the next turn; a caller layer is per run.
  await runtime.run({ input: 'again', sessionId: first.sessionId })
  const second = sentMessages(model, 1)[0].content as string
  assert.ok(second.includes('Talk like a pirate.'))
  assert.ok(!second.includes('CALLER LAYER'))
  await runtime.setPersonality(first.sessionId, 'formal')
  await runtime.run({ input: 'third', sessionId: first.sessionId })
  assert.ok((sentMessages(model, 2)[0].content as string).includes('Be formal.'))
  await assert.rejects(runtime.run({ input: 'x', personality: 'nope' }), (e: Error) => /unknown personality "nope" \(configured: pirate, formal\)/.test(e.message))
  await assert.rejects(runtime.setPersonality(first.sessionId, 'nope'), /unknown personality/)
  await assert.rejects(runtime.run({ input: 'x', skills: ['no-such-skill'] }), /skill/)
  assert.equal((await sessions.list()).length, 1, 'rejected runs created no session')
  // A remembered personality that was since removed from config is skipped, not fatal.
  await sessions.update(first.sessionId, { personality: 'retired' })
  const after = await runtime.run({ input: 'still works', sessionId: first.sessionId })
  assert.equal(after.exitReason, 'completed')
})

test('history is placed before the input without being stored; persist:false stores nothing', async (t) => {
  const { runtime, model, sessions } = await runtimeFixture(t)
  const result = await runtime.run({
    input: 'third',
    persist: false,
    history: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'second' }],
  })
  assert.equal(result.answer, 'echo: third')
  assert.deepEqual(sentMessages(model, 0).slice(1).map((m: any) => m.content), ['first', 'second', 'third'])
  assert.deepEqual(await sessions.list(), [])
  const stored = await runtime.run({ input: 'next', history: [{ role: 'user', content: 'old' }, { role: 'assistant', content: 'older' }] })
  assert.deepEqual((await sessions.messages(stored.sessionId)).map((m) => m.content), ['next', 'echo: next'])
})

test('reasoning effort travels to the provider; last_reasoning is kept; streamed deltas and events arrive', async (t) => {
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [tool('look')])],
    model: { turns: [{ reasoning: 'first thoughts', toolCalls: [{ id: 'l', name: 'look', arguments: {} }] }, { text: 'The final answer, streamed in pieces.', chunkSize: 5, usage: { prompt_tokens: 40, completion_tokens: 9 } }] },
  })
  const events: RunEvent[] = []
  const result = await runtime.run({ input: 'think', reasoningEffort: 'high', onEvent: (e) => events.push(e) })
  assert.equal(chatRequests(model)[0]!.body.reasoning_effort, 'high')
  assert.equal(result.lastReasoning, 'first thoughts')
  assert.equal(events.filter((e) => e.type === 'delta').map((e: any) => e.text).join(''), 'The final answer, streamed in pieces.')
  assert.ok(events.filter((e) => e.type === 'delta').length > 3)
  assert.deepEqual(events.filter((e) => e.type === 'reasoning').map((e: any) => e.text), ['first thoughts'])
  assert.deepEqual(events.filter((e) => e.type === 'model.call').map((e: any) => e.iteration), [1, 2])
  assert.deepEqual(events.filter((e) => e.type.startsWith('tool.')).map((e) => e.type), ['tool.start', 'tool.end'])
  assert.deepEqual(events.filter((e) => e.type === 'usage').map((e: any) => e.usage.inputTokens), [10, 40])
  assert.deepEqual([result.usage.inputTokens, result.usage.outputTokens, result.usage.totalTokens], [50, 14, 64])
  // Effort from config when the request has none.
  const configured = await runtimeFixture(t, { config: { agent: { reasoning_effort: 'low' } } })
  await configured.runtime.run({ input: 'x' })
  assert.equal(chatRequests(configured.model)[0]!.body.reasoning_effort, 'low')
})

test('big tool results are capped with a note; file-modifying calls of a batch run one at a time', async (t) => {
  let running = 0
  let peak = 0
  const modifying = (name: string) =>
    tool(name, {
      modifiesFiles: true,
      async execute() {
        running++
        peak = Math.max(peak, running)
        await new Promise((r) => setTimeout(r, 20))
        running--
        return `${name} done`
      },
    })
  const { runtime, model } = await runtimeFixture(t, {
    extensions: [toolsExtension('test-tools', [tool('huge', { execute: () => 'A'.repeat(5000) + 'THE END' }), modifying('edit_one'), modifying('edit_two')])],
    config: { agent: { tool_result_max_chars: 1000 } },
    model: { turns: [{ toolCalls: [{ id: 'h', name: 'huge', arguments: {} }, { id: 'e1', name: 'edit_one', arguments: {} }, { id: 'e2', name: 'edit_two', arguments: {} }] }, { text: 'ok' }] },
  })
  await runtime.run({ input: 'go' })
  const [huge, one, two] = sentMessages(model, 1).filter((m: any) => m.role === 'tool')
  assert.ok(huge.content.length < 1200)
  assert.match(huge.content, /output truncated: 4007 of 5007 characters left out/)
  assert.ok(huge.content.endsWith('THE END'), 'the end of the output is kept')
  assert.deepEqual([one.content, two.content], ['edit_one done', 'edit_two done'])
  assert.equal(peak, 1)
})

test('offered tools: enabled by default and available, narrowed by toolsets, config and per-run switches', async (t) => {
  const { runtime, model } = await runtimeFixture(t, {
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-file'],
    extensions: [toolsExtension('test-tools', [tool('alpha'), tool('beta', { enabledByDefault: false }), tool('gamma', { available: () => 'needs GAMMA_KEY' }), tool('delta', { toolset: 'extra' })])],
    config: { tools: { disabled: ['delta'] } },
  })
  const names = (options = {}) => runtime.offeredTools(options).map((s) => s.name)
  assert.deepEqual(names(), ['alpha', 'patch', 'read_file', 'search_files', 'write_file'])
  assert.deepEqual(names({ toolsets: ['file'] }), ['patch', 'read_file', 'search_files', 'write_file'])
  assert.deepEqual(names({ enableTools: ['beta'], disableTools: ['file'] }), ['alpha', 'beta'])
  await runtime.run({ input: 'x', toolsets: ['test-tools'] })
  assert.deepEqual(chatRequests(model)[0]!.body.tools.map((x: any) => x.function.name), ['alpha'])
  await runtime.run({ input: 'x', toolsets: ['nothing-here'] })
  assert.equal(chatRequests(model)[1]!.body.tools, undefined, 'no tools, no tools field')
})

test('cost comes from pricing.<model> and adds up per session', async (t) => {
  const { runtime, sessions } = await runtimeFixture(t, {
    config: { pricing: { 'scripted-model': { input: 2, output: 10 } } },
    model: { turns: [{ text: 'a', usage: { prompt_tokens: 1000, completion_tokens: 100 } }, { text: 'b', usage: { prompt_tokens: 2000, completion_tokens: 200 } }] },
  })
  const first = await runtime.run({ input: 'one' })
  assert.ok(Math.abs(first.usage.costUsd! - 0.003) < 1e-12)
  await runtime.run({ input: 'two', sessionId: first.sessionId })
  await runtime.run({ input: 'three', sessionId: first.sessionId, model: 'other-model' })
  assert.equal((await sessions.get(first.sessionId))!.model, 'other-model', 'the session records the model it now runs on')
  const session = (await sessions.get(first.sessionId))!
  // The third call (other-model) has no price and the scripted default usage.
  assert.ok(Math.abs(session.usage.costUsd - 0.009) < 1e-12)
  assert.equal(session.usage.inputTokens, 3010)
  assert.equal(session.apiCalls, 3)
})

test('a provider failure rejects with one line; the session keeps the prompt and records the error', async (t) => {
  const { runtime, sessions } = await runtimeFixture(t, {
    config: { extensions: { 'model-resolver': { retries: 1, retry_base_delay_ms: 1 } } },
    model: { respond: () => ({ status: 500, error: 'the model exploded' }) },
  })
  let sessionId: string | undefined
  await assert.rejects(runtime.run({ input: 'hello', onEvent: () => undefined }), (e: Error) => {
    assert.match(e.message, /^custom: HTTP 500 .*the model exploded \(after 2 attempts\)$/)
    return true
  })
  const [session] = await sessions.list()
  sessionId = session!.id
  assert.equal(session!.lastExitReason, 'error')
  assert.deepEqual((await sessions.messages(sessionId)).map((m) => m.content), ['hello'])
  await assert.rejects(runtime.run({ input: 'x', sessionId: 'missing-session' }), /no session "missing-session"/)
})

test('a stored transcript cut off mid-tool-call is repaired before it is sent again', async (t) => {
  const { runtime, model, sessions } = await runtimeFixture(t)
  const session = await sessions.create()
  await sessions.append(session.id, [
    { role: 'user', content: 'read it' },
    { role: 'assistant', content: null, toolCalls: [{ id: 'k1', name: 'read_file', arguments: '{}' }, { id: 'k2', name: 'read_file', arguments: '{}' }] },
    { role: 'tool', toolCallId: 'k2', content: 'second result' },
    { role: 'tool', toolCallId: 'stray', content: 'orphan' },
  ])
  await runtime.run({ input: 'continue', sessionId: session.id })
  const sent = sentMessages(model, 0).slice(1)
  assert.deepEqual(sent.map((m: any) => [m.role, m.tool_call_id ?? null]), [['user', null], ['assistant', null], ['tool', 'k1'], ['tool', 'k2'], ['user', null]])
  assert.match(sent[2].content, /interrupted before it returned a result/)
  assert.equal(sent[3].content, 'second result')
})
