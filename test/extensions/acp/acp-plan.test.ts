// Plans in `agent acp`: the scripted model writes its task list with the `todo` tool and the editor
// (the ACP SDK's client) receives it as `plan` session updates, the whole list each time it changes.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import YAML from 'yaml'
import type * as acp from '@agentclientprotocol/sdk'
import { makeTempHome, startScriptedModel, type ScriptedModelServer } from 'agent/sdk/testing'
import { acpModelEnv, type AcpProcess, initialized, projectDir, startAcp } from './acp-client.ts'

type PlanUpdate = Extract<acp.SessionUpdate, { sessionUpdate: 'plan' }>
const plansOf = (updates: acp.SessionUpdate[]) => updates.filter((u): u is PlanUpdate => u.sessionUpdate === 'plan')

describe('agent acp plans', () => {
  let home: string
  let cwd: string
  let model: ScriptedModelServer
  let proc: AcpProcess
  let planned = ''
  const env = () => acpModelEnv(model, 'sk-acp-plan-key-000000')

  before(async () => {
    home = makeTempHome('agent-acp-plan-')
    cwd = projectDir('agent-acp-plan-project-')
    writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
    model = await startScriptedModel()
    proc = startAcp({ home, cwd, env: env() })
  })
  after(async () => {
    await proc?.kill()
    await model?.close()
    rmSync(home, { recursive: true, force: true })
    rmSync(cwd, { recursive: true, force: true })
  })

  it('sends the todo list as a plan, and again when a status changes', async () => {
    await initialized(proc)
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    planned = sessionId
    const todos = [
      { content: 'Read the issue', status: 'in_progress', priority: 'high' },
      { content: 'Write the fix', status: 'pending' },
    ]
    model.enqueue({ toolCalls: [{ id: 'call_plan', name: 'todo', arguments: { todos } }] }, { text: 'Plan made.' })
    assert.equal((await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'plan the work' }] })).stopReason, 'end_turn')
    const first = proc.updatesOf(sessionId)
    assert.deepEqual(plansOf(first).map((u) => u.entries), [
      [
        { content: 'Read the issue', status: 'in_progress', priority: 'high' },
        { content: 'Write the fix', status: 'pending', priority: 'medium' },
      ],
    ])
    // The plan comes with its call: after the tool call, before the answer.
    const order = first.map((u) => u.sessionUpdate)
    assert.ok(order.indexOf('tool_call') < order.indexOf('plan') && order.indexOf('plan') < order.indexOf('agent_message_chunk'), order.join(', '))
    const call = first.find((u) => u.sessionUpdate === 'tool_call')
    assert.equal(call?.sessionUpdate === 'tool_call' && `${call.kind}: ${call.title}`, 'think: Update the plan')

    // Second turn: the same list again (no update), then the first task done and the next started.
    const next = [
      { content: 'Read the issue', status: 'completed', priority: 'high' },
      { content: 'Write the fix', status: 'in_progress' },
    ]
    model.enqueue({ toolCalls: [{ id: 'call_same', name: 'todo', arguments: { todos } }] }, { toolCalls: [{ id: 'call_next', name: 'todo', arguments: { todos: next } }] }, { text: 'On to the fix.' })
    assert.equal((await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] })).stopReason, 'end_turn')
    const plans = plansOf(proc.updatesOf(sessionId))
    assert.equal(plans.length, 2, 'an unchanged list sends no update')
    assert.deepEqual(plans[1]!.entries, [
      { content: 'Read the issue', status: 'completed', priority: 'high' },
      { content: 'Write the fix', status: 'in_progress', priority: 'medium' },
    ])
    // The model read the list back as text.
    const toolResult = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').at(-1)
    assert.match(String(toolResult.content), /Task list \(1 of 2 completed\)/)
  })

  it('a refused todo call sends no plan, and another session has its own list', async () => {
    const { sessionId } = await proc.agent.request('session/new', { cwd, mcpServers: [] })
    model.enqueue({ toolCalls: [{ id: 'call_bad', name: 'todo', arguments: { todos: [{ content: 'x', status: 'done' }] } }] }, { toolCalls: [{ id: 'call_read', name: 'todo', arguments: {} }] }, { text: 'ok' })
    assert.equal((await proc.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'try' }] })).stopReason, 'end_turn')
    assert.equal(plansOf(proc.updatesOf(sessionId)).length, 0)
    const results = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').map((m) => String(m.content))
    assert.match(results[0]!, /status must be one of pending, in_progress, completed/)
    assert.equal(results[1], 'The task list is empty.')
    const failed = proc.updatesOf(sessionId).find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'failed')
    assert.ok(failed, 'the refused call is shown as failed')
  })

  it('session/load in a new process replays the plan, and the todo tool continues from the transcript', async (t) => {
    const second = startAcp({ home, cwd, env: env() })
    t.after(() => second.kill())
    await initialized(second)
    await second.agent.request('session/load', { sessionId: planned, cwd, mcpServers: [] })
    const replayed = plansOf(second.updatesOf(planned))
    assert.equal(replayed.length, 2, 'one plan per change, as it went live')
    assert.deepEqual(replayed.at(-1)!.entries.map((e) => e.status), ['completed', 'in_progress'])
    const before = second.updatesOf(planned).length
    model.enqueue({ toolCalls: [{ id: 'call_reread', name: 'todo', arguments: {} }] }, { text: 'Still on the fix.' })
    await second.agent.request('session/prompt', { sessionId: planned, prompt: [{ type: 'text', text: 'where are we?' }] })
    const result = (model.requests.at(-1)!.body.messages as any[]).filter((m) => m.role === 'tool').at(-1)
    assert.equal(String(result.content), 'Task list (1 of 2 completed):\n[x] 1. Read the issue (high)\n[~] 2. Write the fix')
    assert.equal(plansOf(second.updatesOf(planned).slice(before)).length, 0, 'reading sends no plan')
  })
})
