// The `todo` tool: replace-all task lists kept per session, read back without `todos`, refused
// input that changes nothing, a plan handed to the surface only when the list changes; and the
// runtime carrying it as a `plan` run event (secrets withheld) that the interactive chat prints;
// a process that has not seen the session takes the list from its transcript.

import assert from 'node:assert/strict'
import { test, type TestContext } from 'node:test'
import type { PlanEntry, RunEvent, ToolDefinition, ToolSession } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { runtimeFixture, RUNTIME_BUILTINS } from '../runtime/helpers.ts'

async function todo(t: TestContext) {
  const tk = await createTestKernel({ builtins: ['tools-todo'] })
  t.after(() => tk.close())
  const tool = tk.kernel.registries.tools.get('todo') as ToolDefinition
  const plans: Array<{ session: string; entries: readonly PlanEntry[] }> = []
  const call = async (input: Record<string, unknown>, id = 's1') => {
    const session: ToolSession = { id, cwd: '/', plan: (entries) => plans.push({ session: id, entries }) }
    return String(await tool.execute({ input, callId: 'c1', signal: new AbortController().signal, session }))
  }
  return { tool, call, plans }
}

test('todo replaces the whole list, reads it back, and keeps one list per session', async (t) => {
  const { tool, call, plans } = await todo(t)
  assert.equal(tool.toolset, 'todo')
  assert.equal(await call({}), 'The task list is empty.')
  const first = await call({
    todos: [
      { content: 'Read the  code', status: 'in_progress', priority: 'high' },
      { content: 'Write tests', status: 'pending' },
    ],
  })
  assert.equal(first, 'Task list (0 of 2 completed):\n[~] 1. Read the code (high)\n[ ] 2. Write tests')
  assert.deepEqual(plans, [
    {
      session: 's1',
      entries: [
        { content: 'Read the code', status: 'in_progress', priority: 'high' },
        { content: 'Write tests', status: 'pending', priority: 'medium' },
      ],
    },
  ])
  // The same list again: nothing to show.
  await call({ todos: [{ content: 'Read the code', status: 'in_progress', priority: 'high' }, { content: 'Write tests', status: 'pending' }] })
  assert.equal(plans.length, 1)
  assert.equal(await call({ todos: [{ content: 'Read the code', status: 'completed', priority: 'high' }, { content: 'Write tests', status: 'in_progress', priority: 'low' }] }), 'Task list (1 of 2 completed):\n[x] 1. Read the code (high)\n[~] 2. Write tests (low)')
  assert.equal(plans.length, 2)
  assert.match(await call({}), /^Task list \(1 of 2 completed\)/)
  // Another session has its own list.
  assert.equal(await call({}, 's2'), 'The task list is empty.')
  // An empty list clears it (and is shown).
  assert.equal(await call({ todos: [] }), 'The task list is empty.')
  assert.deepEqual(plans.at(-1), { session: 's1', entries: [] })
})

test('todo refuses bad input with a clear error and changes nothing', async (t) => {
  const { call, plans } = await todo(t)
  await call({ todos: [{ content: 'Keep me', status: 'pending' }] })
  const refused: Array<[unknown, RegExp]> = [
    ['not a list', /"todos" must be an array/],
    [[null], /todos\[0\] must be an object/],
    [[['x']], /todos\[0\] must be an object/],
    [[{ status: 'pending' }], /todos\[0\]\.content must be a non-empty string/],
    [[{ content: '   ', status: 'pending' }], /todos\[0\]\.content must be a non-empty string/],
    [[{ content: 'ok', status: 'pending' }, { content: 'x', status: 'done' }], /todos\[1\]\.status must be one of pending, in_progress, completed/],
    [[{ content: 'x', status: 'pending', priority: 'urgent' }], /todos\[0\]\.priority must be one of high, medium, low/],
    [[{ content: 'x', status: 'pending', id: 3 }], /todos\[0\] has an unknown field "id"/],
    [[{ content: 'x'.repeat(501), status: 'pending' }], /at most 500/],
    [Array.from({ length: 101 }, (_, i) => ({ content: `t${i}`, status: 'pending' })), /101 items; at most 100/],
  ]
  for (const [todos, error] of refused) await assert.rejects(call({ todos }), error)
  assert.equal(plans.length, 1)
  assert.equal(await call({}), 'Task list (0 of 1 completed):\n[ ] 1. Keep me')
  // Look-alikes that are fine: 500 characters, 100 items, every priority.
  await call({ todos: [{ content: 'x'.repeat(500), status: 'completed', priority: 'low' }] })
  assert.match(await call({ todos: Array.from({ length: 100 }, (_, i) => ({ content: `t${i}`, status: 'pending', priority: 'medium' })) }), /0 of 100 completed/)
})

test('a run carries the plan as a run event, secrets withheld, and the chat prints it under the call', async (t) => {
  const secret = 'sk-todo-test-secret-0123456789abcdef'
  const fixture = await runtimeFixture(t, { builtins: [...RUNTIME_BUILTINS, 'tools-todo'], env: { OPENAI_API_KEY: secret } })
  fixture.model.enqueue(
    { toolCalls: [{ id: 'call_plan', name: 'todo', arguments: { todos: [{ content: 'Check the key', status: 'in_progress' }, { content: `Do not print ${secret}`, status: 'pending', priority: 'low' }] } }] },
    { text: 'Planned.' },
  )
  const events: RunEvent[] = []
  const result = await fixture.runtime.run({ input: 'plan it', onEvent: (event) => events.push(event) })
  assert.equal(result.answer, 'Planned.')
  const plan = events.filter((e) => e.type === 'plan')
  assert.equal(plan.length, 1)
  const entries = (plan[0] as Extract<RunEvent, { type: 'plan' }>).entries
  assert.deepEqual(entries[0], { content: 'Check the key', status: 'in_progress', priority: 'medium' })
  assert.doesNotMatch(JSON.stringify(entries), new RegExp(secret))
  assert.equal(entries[1]!.priority, 'low')

  const { ToolActivity } = await import('../../../extensions/chat-cli/tool-activity.ts')
  const { createTheme } = await import('../../../extensions/chat-cli/theme.ts')
  const printed: string[] = []
  const activity = new ToolActivity((line) => printed.push(line), createTheme('dark', false), () => undefined, () => 0)
  for (const event of events) activity.event(event)
  assert.match(printed[0]!, /^⚙ todo: /)
  assert.equal(printed[1], '  ▸ Check the key')
  assert.match(printed[2]!, /^  ☐ Do not print /)
  assert.equal(printed.length, 3)

  // Another process (a fresh tool) reads the list from the stored transcript; a refused call there does not count.
  const { todoTool } = await import('../../../extensions/tools-todo/todo.ts')
  const fresh = todoTool(fixture.tk.kernel.services)
  const read = (id: string) => fresh.execute({ input: {}, callId: 'r1', signal: new AbortController().signal, session: { id, cwd: '/' } })
  assert.match(String(await read(result.sessionId)), /^Task list \(0 of 2 completed\):\n\[~\] 1\. Check the key\n\[ \] 2\. Do not print/)
  assert.equal(await read('no-such-session'), 'The task list is empty.')
})

test('planFromHistory takes the last accepted todo call, skipping reads, refusals and calls without a result', async () => {
  const { planFromHistory } = await import('agent/sdk')
  const call = (id: string, todos: unknown) => ({ id, name: 'todo', arguments: JSON.stringify(todos === undefined ? {} : { todos }) })
  const one = [{ content: 'first', status: 'completed' }]
  const history = [
    { role: 'assistant' as const, content: '', toolCalls: [call('a', one)] },
    { role: 'tool' as const, content: 'Task list (1 of 1 completed):', toolCallId: 'a' },
    { role: 'assistant' as const, content: '', toolCalls: [call('b', [{ content: 'x', status: 'done' }]), call('c', undefined), call('d', [{ content: 'blocked', status: 'pending' }]), call('e', [{ content: 'unfinished', status: 'pending' }])] },
    { role: 'tool' as const, content: 'Error: todo: todos[0].status must be one of pending, in_progress, completed', toolCallId: 'b' },
    { role: 'tool' as const, content: 'Task list (1 of 1 completed):', toolCallId: 'c' },
    { role: 'tool' as const, content: 'Blocked: a guard said no', toolCallId: 'd' },
  ]
  assert.deepEqual(planFromHistory(history), [{ content: 'first', status: 'completed', priority: 'medium' }])
  assert.equal(planFromHistory(history.slice(2)), undefined)
  assert.deepEqual(planFromHistory([...history, { role: 'tool' as const, content: 'The task list is empty.', toolCallId: 'e' }]), [{ content: 'unfinished', status: 'pending', priority: 'medium' }])
})

test('a transcript that cannot be read fails a read of the list, not a new list', async () => {
  const { todoTool } = await import('../../../extensions/tools-todo/todo.ts')
  const broken = { messages: () => Promise.reject(new Error('database is locked')) }
  const tool = todoTool({ get: <T>() => broken as T })
  const plans: unknown[] = []
  const run = (input: Record<string, unknown>) => tool.execute({ input, callId: 'c1', signal: new AbortController().signal, session: { id: 's1', cwd: '/', plan: (entries) => plans.push(entries) } })
  await assert.rejects(async () => run({}), /the stored task list could not be read: database is locked/)
  assert.equal(await run({ todos: [{ content: 'go on', status: 'pending' }] }), 'Task list (0 of 1 completed):\n[ ] 1. go on')
  assert.equal(plans.length, 1)
  assert.equal(await run({}), 'Task list (0 of 1 completed):\n[ ] 1. go on')
})
