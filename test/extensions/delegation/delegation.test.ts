// delegate_task through the real runtime (runtime, model resolver, OpenAI-compatible provider) and
// scripted models on loopback: the parent model delegates, the subagent makes two parallel tool
// calls that finish in reverse order, and the delegated task result record is checked field by field.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { RUNTIME_SERVICE, defineExtension, defineTool, type RuntimeService, type ToolDefinition } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { TraceBuilder } from '../../../extensions/delegation/trace.ts'

const testkit = defineExtension({
  name: 'testkit',
  setup(api) {
    api.tools.register(defineTool({
      name: 'echo_after',
      toolset: 'testkit',
      description: 'returns text after a delay',
      parameters: { type: 'object', properties: { text: { type: 'string' }, delay_ms: { type: 'integer' }, fail: { type: 'boolean' } } },
      async execute({ input }) {
        await new Promise((r) => setTimeout(r, input.delay_ms ?? 0))
        if (input.fail) throw new Error('echo failed on purpose')
        return input.text
      },
    }))
  },
})

async function fixture(t: import('node:test').TestContext, config: Record<string, unknown> = {}) {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const tk = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-terminal', 'delegation'],
    extensions: [testkit],
    config: { delegation: { default_toolsets: ['testkit'], ...config } },
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'sk-parent-key' },
  })
  t.after(() => tk.close())
  for (const info of tk.kernel.extensions()) assert.notEqual(info.state, 'failed', `${info.name}: ${info.reason}`)
  return { model, tk, runtime: tk.kernel.services.require<RuntimeService>(RUNTIME_SERVICE) }
}

const chats = (model: { requests: Array<{ path: string; body: any; headers: any }> }) => model.requests.filter((r) => r.path.endsWith('/chat/completions'))

const slowArgs = { text: 'slow result with more bytes', delay_ms: 300 }
const fastArgs = { text: 'fast', delay_ms: 0 }
const failArgs = { text: 'x', fail: true }

function childTurns() {
  return [
    { toolCalls: [
      { id: 'call_slow', name: 'echo_after', arguments: slowArgs },
      { id: 'call_fast', name: 'echo_after', arguments: fastArgs },
      { id: 'call_fail', name: 'echo_after', arguments: failArgs },
    ], usage: { prompt_tokens: 100, completion_tokens: 20 } },
    { text: 'Summary: echoed twice, one failure.', usage: { prompt_tokens: 150, completion_tokens: 30 } },
  ]
}

test('a delegation with parallel tool calls returns the delegated task result record with a correct tool_trace', async (t) => {
  const { model, runtime } = await fixture(t, { model: 'sub-model' })
  model.enqueue(
    { toolCalls: [{ id: 'p1', name: 'delegate_task', arguments: { goal: 'echo things', context: 'use echo_after' } }] },
    ...childTurns(),
    { text: 'Parent done.' },
  )
  const result = await runtime.run({ input: 'please delegate', persist: false })
  assert.equal(result.answer, 'Parent done.')
  assert.deepEqual(result.toolTrace.map((e) => [e.tool, e.status]), [['delegate_task', 'ok']])

  const requests = chats(model)
  assert.equal(requests.length, 4)
  // The subagent: its own context (no parent history), the configured model, restricted tools, no delegate_task.
  const child = requests[1]!.body
  assert.equal(child.model, 'sub-model')
  assert.ok(!JSON.stringify(child.messages).includes('please delegate'))
  assert.match(child.messages.at(-1).content, /echo things\n\nContext:\nuse echo_after/)
  assert.deepEqual(child.tools.map((x: any) => x.function.name), ['echo_after'])

  const toolMessage = requests[3]!.body.messages.find((m: any) => m.role === 'tool')
  const record = JSON.parse(toolMessage.content).results[0]
  assert.equal(record.model, 'sub-model')
  assert.equal(record.exit_reason, 'completed')
  assert.deepEqual(record.tokens, { input: 250, output: 50 })
  assert.equal(record.api_calls, 2)
  assert.equal(record.status, 'completed')
  assert.equal(record.summary, 'Summary: echoed twice, one failure.')
  assert.equal(record.tool_trace.length, 3)
  const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value))
  assert.deepEqual(record.tool_trace[0], { tool: 'echo_after', args_bytes: bytes(slowArgs), result_bytes: Buffer.byteLength(slowArgs.text), status: 'ok' })
  assert.deepEqual(record.tool_trace[1], { tool: 'echo_after', args_bytes: bytes(fastArgs), result_bytes: Buffer.byteLength('fast'), status: 'ok' })
  assert.equal(record.tool_trace[2].status, 'error')
  assert.equal(record.tool_trace[2].args_bytes, bytes(failArgs))
  assert.ok(record.tool_trace[2].result_bytes > 0)
})

test('parallel tasks, the depth limit, and delegation.base_url/api_key for the subagent model', async (t) => {
  const sub = await startScriptedModel({ models: ['sub-endpoint-model'] })
  t.after(() => sub.close())
  const { model, runtime, tk } = await fixture(t, { base_url: sub.url, api_key: 'sk-subagent-key', model: 'sub-endpoint-model' })
  sub.respond((body) => {
    const last = body.messages.at(-1)
    return last.role === 'tool' ? { text: `done: ${last.content}` } : { toolCalls: [{ name: 'echo_after', arguments: { text: last.content.split('\n')[0], delay_ms: 50 } }] }
  })
  model.enqueue({ toolCalls: [{ id: 'p1', name: 'delegate_task', arguments: { tasks: [{ goal: 'task A' }, { goal: 'task B' }] } }] }, { text: 'ok' })
  await runtime.run({ input: 'two tasks', persist: false })
  assert.equal(chats(model).length, 2, 'the parent endpoint served only the parent')
  assert.equal(chats(sub).length, 4)
  assert.ok(chats(sub).every((r) => r.headers.authorization === 'Bearer sk-subagent-key' && r.body.model === 'sub-endpoint-model'))
  const output = JSON.parse(chats(model)[1]!.body.messages.find((m: any) => m.role === 'tool').content)
  assert.deepEqual(output.results.map((r: any) => [r.task_index, r.summary, r.model, r.tool_trace.length]), [
    [0, 'done: task A', 'sub-endpoint-model', 1],
    [1, 'done: task B', 'sub-endpoint-model', 1],
  ])

  // At the depth limit the tool refuses, and children never see it.
  const tool = tk.kernel.registries.tools.get('delegate_task') as ToolDefinition
  await assert.rejects(
    Promise.resolve(tool.execute({ input: { goal: 'x' }, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: '/tmp', extra: { delegationDepth: 1 } } })),
    /delegation depth limit reached/,
  )
  await assert.rejects(Promise.resolve(tool.execute({ input: {}, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: '/tmp' } })), /needs "goal"/)
})

test('tool_trace pairing: by call id when results arrive out of order, with a fallback when ids are missing', () => {
  const byId = new TraceBuilder()
  byId.start('a', 'read', { p: 1 })
  byId.start('b', 'read', { p: 22 })
  byId.end('b', 'read', true, 7)
  byId.end('a', 'read', false, 3)
  assert.deepEqual(byId.entries(), [
    { tool: 'read', args_bytes: 7, result_bytes: 3, status: 'error' },
    { tool: 'read', args_bytes: 8, result_bytes: 7, status: 'ok' },
  ])
  const noIds = new TraceBuilder()
  noIds.start('', 'search', { q: 'x' })
  noIds.start('', 'fetch', { u: 'y' })
  noIds.end('', 'fetch', true, 10)
  noIds.end(undefined, 'search', true, 20)
  assert.deepEqual(noIds.entries().map((e) => [e.tool, e.result_bytes]), [['search', 20], ['fetch', 10]])
  const unfinished = new TraceBuilder()
  unfinished.start('z', 'slow', {})
  assert.equal(unfinished.entries()[0]!.status, 'error')
})
