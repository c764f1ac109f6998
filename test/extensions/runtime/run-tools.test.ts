// Tools offered to one run only (RunRequest.runTools, e.g. an editor's MCP servers): offered and run
// like registered ones, guards included, absent from other runs; a name clash is refused.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { chatRequests, runtimeFixture, toolsExtension } from './helpers.ts'

const agentTool = toolsExtension('test-run-tools', [{ name: 'agent_add', description: 'Adds', parameters: { type: 'object' }, execute: () => '3' }])

test('a run tool is offered to its run, executed like a registered one, and not offered to the next run', async (t) => {
  const { runtime, model } = await runtimeFixture(t, { extensions: [agentTool] })
  const seen: unknown[] = []
  const runTool: ToolDefinition = { name: 'mcp__editor__lookup', description: 'Looks up', parameters: { type: 'object' }, execute: ({ input }) => (seen.push(input), 'found it') }
  model.enqueue({ toolCalls: [{ id: 'r1', name: 'mcp__editor__lookup', arguments: { q: 'x' } }] }, { text: 'done' }, { text: 'plain' })
  const result = await runtime.run({ input: 'look', runTools: [runTool] })
  assert.equal(result.answer, 'done')
  assert.deepEqual(seen, [{ q: 'x' }])
  assert.deepEqual(chatRequests(model)[0]!.body.tools.map((t: any) => t.function.name).sort(), ['agent_add', 'mcp__editor__lookup'])
  assert.match(JSON.stringify(chatRequests(model)[1]!.body.messages), /found it/)
  await runtime.run({ input: 'again' })
  assert.deepEqual(chatRequests(model)[2]!.body.tools.map((t: any) => t.function.name), ['agent_add'])
})

test('refused: a run tool named like a registered tool (a distinct name passes)', async (t) => {
  const { runtime, model } = await runtimeFixture(t, { extensions: [agentTool] })
  const named = (name: string): ToolDefinition => ({ name, description: 'x', parameters: { type: 'object' }, execute: () => 'x' })
  await assert.rejects(runtime.run({ input: 'x', runTools: [named('agent_add')] }), /run tool "agent_add"/)
  assert.equal(chatRequests(model).length, 0)
  model.enqueue({ text: 'ok' })
  assert.equal((await runtime.run({ input: 'x', runTools: [named('agent_add_2')] })).exitReason, 'completed')
})
