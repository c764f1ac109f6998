// Caller's tools in the runtime (RunRequest.clientTools): offered beside the agent's, a call to one
// ends the run with exit tool_calls after the agent's calls of the batch ran, `resume` continues from
// the stored results; a clashing name and a resume with nothing to resume are refused.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chatRequests, runtimeFixture, sentMessages, toolsExtension } from './helpers.ts'

const clientTool = { name: 'client_pick', description: 'Runs on the client', parameters: { type: 'object' } }
const agentTool = toolsExtension('test-rt-tools', [{ name: 'agent_add', description: 'Adds', parameters: { type: 'object' }, execute: () => '3' }])

test('a client tool call ends the run (tool_calls) after the agent call of the same batch; resume continues from the results', async (t) => {
  const { runtime, model, sessions } = await runtimeFixture(t, { extensions: [agentTool] })
  model.enqueue({ text: 'Working.', toolCalls: [{ id: 'a1', name: 'agent_add', arguments: {} }, { id: 'c1', name: 'client_pick', arguments: { n: 1 } }] }, { text: 'All done.' })
  const first = await runtime.run({ input: 'go', clientTools: [clientTool], toolChoice: 'required', sampling: { temperature: 0.1, topP: 0.5 } })
  assert.equal(first.exitReason, 'tool_calls')
  assert.deepEqual(first.pendingToolCalls, [{ id: 'c1', name: 'client_pick', arguments: '{"n":1}' }])
  assert.equal(first.answer, 'Working.')
  const sent = chatRequests(model)[0]!.body
  assert.deepEqual(sent.tools.map((t: any) => t.function.name).sort(), ['agent_add', 'client_pick'])
  assert.deepEqual([sent.tool_choice, sent.temperature, sent.top_p], ['required', 0.1, 0.5])
  assert.equal((await sessions.get(first.sessionId))!.lastExitReason, 'tool_calls')

  await sessions.append(first.sessionId, [{ role: 'tool', toolCallId: 'c1', name: 'client_pick', content: 'picked' }])
  const second = await runtime.run({ input: '', resume: true, sessionId: first.sessionId, clientTools: [clientTool], toolChoice: 'required' })
  assert.equal(second.exitReason, 'completed')
  assert.equal(second.answer, 'All done.')
  const messages = sentMessages(model, 1).filter((m) => m.role !== 'system')
  assert.deepEqual(messages.map((m: any) => m.role), ['user', 'assistant', 'tool', 'tool'])
  assert.equal(messages.filter((m: any) => m.role === 'user').length, 1, 'no new user message')
  // `required` binds a run's first call only; this run's first call is its own.
  assert.equal(chatRequests(model)[1]!.body.tool_choice, 'required')
})

test('refused: a client tool named like an agent tool; a resume whose conversation does not end with tool results', async (t) => {
  const { runtime, model, sessions } = await runtimeFixture(t, { extensions: [agentTool] })
  await assert.rejects(runtime.run({ input: 'x', clientTools: [{ ...clientTool, name: 'agent_add' }] }), /client tool "agent_add"/)
  const before = (await sessions.list({ limit: 100 })).length
  await assert.rejects(runtime.run({ input: '', resume: true, history: [{ role: 'user', content: 'hi' }] }), /nothing to resume/)
  assert.equal((await sessions.list({ limit: 100 })).length, before, 'no session created')
  assert.equal(chatRequests(model).length, 0)
  // Look-alikes pass: a distinct name; a resume after a tool result.
  model.enqueue({ text: 'ok' }, { text: 'fine' })
  assert.equal((await runtime.run({ input: 'x', clientTools: [{ ...clientTool, name: 'agent_add_2' }] })).exitReason, 'completed')
  const history = [{ role: 'user' as const, content: 'hi' }, { role: 'assistant' as const, content: null, toolCalls: [{ id: 'c9', name: 'client_pick', arguments: '{}' }] }, { role: 'tool' as const, toolCallId: 'c9', content: 'done' }]
  assert.equal((await runtime.run({ input: '', resume: true, history, persist: false })).answer, 'fine')
})
