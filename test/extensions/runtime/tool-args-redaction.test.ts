// What a run shows of a tool call outside the tool carries no known secret: the arguments in the
// tool.start event (printed by `agent chat -q --json`, sent to an editor or an API stream) and the
// progress lines, which are redacted before they are cut (a cut first would leave part of a secret),
// and a tool name the model made up.
// The tool itself gets the arguments as the model sent them; ordinary text passes unchanged.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { RunEvent } from 'agent/sdk'
import { ToolCallLog } from '../../../extensions/chat-cli/tool-calls.ts'
import { capProgress, PROGRESS_LINE_CHARS } from '../../../extensions/runtime/tools.ts'
import { chatRequests, runtimeFixture, toolsExtension } from './helpers.ts'

const TOKEN = 'dep-args-token-5c7e9a1b3d5f7a9c'

function fragments(secret: string, size = 8): string[] {
  return Array.from({ length: secret.length - size + 1 }, (_, i) => secret.slice(i, i + size))
}

test('tool.start shows the arguments without known secrets; the tool runs with them as sent', async (t) => {
  const received: unknown[] = []
  const tools = toolsExtension('args-tools', [{ name: 'deploy', description: 'deploys', parameters: { type: 'object' }, execute: ({ input }) => (received.push(input), 'deployed') }])
  const { tk, runtime, model } = await runtimeFixture(t, { extensions: [tools] })
  writeFileSync(join(tk.home, '.env'), `DEPLOY_TOKEN=${TOKEN}\n`)
  const args = { command: `echo deploying with ${TOKEN}`, steps: [{ note: `token ${TOKEN}` }, 'plain step'], dry: false, count: 3 }
  model.enqueue({ toolCalls: [{ id: 'd1', name: 'deploy', arguments: args }] }, { text: 'done' })
  const events: RunEvent[] = []
  await runtime.run({ input: 'deploy it', onEvent: (e) => events.push(e) })

  // The tool got the real arguments.
  assert.deepEqual(received, [args])
  const start = events.find((e) => e.type === 'tool.start') as Extract<RunEvent, { type: 'tool.start' }>
  assert.deepEqual(start.input, { command: 'echo deploying with [REDACTED:DEPLOY_TOKEN]', steps: [{ note: 'token [REDACTED:DEPLOY_TOKEN]' }, 'plain step'], dry: false, count: 3 })
  assert.ok(!JSON.stringify(events).includes(TOKEN), 'no event holds the secret')
  // Nor does what the model is sent back (its own call, as stored and replayed).
  assert.ok(!JSON.stringify(chatRequests(model).map((r) => r.body)).includes(TOKEN))
})

test('tool.start shows ordinary arguments unchanged, and broken JSON arguments as redacted text', async (t) => {
  const received: unknown[] = []
  const tools = toolsExtension('args-tools-2', [{ name: 'note', description: 'notes', parameters: { type: 'object' }, execute: ({ input }) => (received.push(input), 'noted') }])
  const { tk, runtime, model } = await runtimeFixture(t, { extensions: [tools] })
  writeFileSync(join(tk.home, '.env'), `DEPLOY_TOKEN=${TOKEN}\n`)
  const args = { text: 'nothing secret here: dep-args-token-0000', path: 'notes/today.md', tags: ['a', 'b'] }
  model.enqueue({ toolCalls: [{ id: 'n1', name: 'note', arguments: args }, { id: 'n2', name: 'note', arguments: `{"text": "${TOKEN}"` }] }, { text: 'done' })
  const events: RunEvent[] = []
  await runtime.run({ input: 'note it', onEvent: (e) => events.push(e) })
  const starts = events.filter((e) => e.type === 'tool.start') as Extract<RunEvent, { type: 'tool.start' }>[]
  assert.deepEqual(starts.find((s) => s.callId === 'n1')!.input, args)
  assert.equal(starts.find((s) => s.callId === 'n2')!.input, '{"text": "[REDACTED:DEPLOY_TOKEN]"')
  assert.deepEqual(received, [args])
})

test('a progress line is redacted before it is cut: a secret across the cut leaves no part of itself', async (t) => {
  const lines = [
    // The secret starts 10 characters before the cut.
    `${'x'.repeat(PROGRESS_LINE_CHARS - 11)} ${TOKEN} and more after it`,
    `${'y'.repeat(PROGRESS_LINE_CHARS - 30)} ${TOKEN}`,
    'a short ordinary line',
    'z'.repeat(PROGRESS_LINE_CHARS + 50),
  ]
  const tools = toolsExtension('progress-tools', [
    {
      name: 'build',
      description: 'builds',
      parameters: { type: 'object' },
      execute: ({ session }) => {
        session.progress?.(lines[0]!)
        session.progress?.(lines.slice(1).join('\n'))
        return 'built'
      },
    },
  ])
  const { tk, runtime, model } = await runtimeFixture(t, { extensions: [tools] })
  writeFileSync(join(tk.home, '.env'), `DEPLOY_TOKEN=${TOKEN}\n`)
  model.enqueue({ toolCalls: [{ id: 'b1', name: 'build', arguments: {} }] }, { text: 'done' })
  const events: RunEvent[] = []
  await runtime.run({ input: 'build', onEvent: (e) => events.push(e) })
  const shown = (events.filter((e) => e.type === 'tool.progress') as Extract<RunEvent, { type: 'tool.progress' }>[]).map((e) => e.text)
  assert.equal(shown.length, 2)
  const all = shown.join('\n')
  for (const piece of fragments(TOKEN)) assert.ok(!all.includes(piece), `a progress line holds ${piece}`)
  const out = all.split('\n')
  assert.ok(out.every((l) => l.length <= PROGRESS_LINE_CHARS), 'every line bounded')
  assert.ok(out[0]!.startsWith(`${'x'.repeat(PROGRESS_LINE_CHARS - 11)} [REDACTED`) && out[0]!.endsWith('…'))
  assert.equal(out[1], `${'y'.repeat(PROGRESS_LINE_CHARS - 30)} [REDACTED:DEPLOY_TOKEN]`)
  assert.equal(out[2], 'a short ordinary line')
  assert.equal(out[3], `${'z'.repeat(PROGRESS_LINE_CHARS - 1)}…`)
})

test('capProgress leaves short text alone and bounds each line of a long one', () => {
  assert.equal(capProgress('one\ntwo'), 'one\ntwo')
  const long = `${'a'.repeat(PROGRESS_LINE_CHARS)}\n${'b'.repeat(PROGRESS_LINE_CHARS + 1)}`
  assert.equal(capProgress(long), `${'a'.repeat(PROGRESS_LINE_CHARS)}\n${'b'.repeat(PROGRESS_LINE_CHARS - 1)}…`)
})

test('a tool name the model made up is shown without known secrets (events, the --json trace, the run’s tool trace); an ordinary one as sent', async (t) => {
  const { tk, runtime, model } = await runtimeFixture(t)
  writeFileSync(join(tk.home, '.env'), `DEPLOY_TOKEN=${TOKEN}\n`)
  model.enqueue({ toolCalls: [{ id: 'u1', name: `no_such_tool_${TOKEN}`, arguments: {} }, { id: 'u2', name: 'no_such_tool_plain', arguments: {} }] }, { text: 'done' })
  const events: RunEvent[] = []
  const log = new ToolCallLog('json', () => undefined)
  const result = await runtime.run({ input: 'go', onEvent: (e) => (events.push(e), log.event(e)) })
  const named = events.filter((e) => e.type === 'tool.start' || e.type === 'tool.end') as Extract<RunEvent, { type: 'tool.start' | 'tool.end' }>[]
  assert.deepEqual(named.map((e) => [e.type, e.callId, e.name]).sort(), [
    ['tool.end', 'u1', 'no_such_tool_[REDACTED:DEPLOY_TOKEN]'],
    ['tool.end', 'u2', 'no_such_tool_plain'],
    ['tool.start', 'u1', 'no_such_tool_[REDACTED:DEPLOY_TOKEN]'],
    ['tool.start', 'u2', 'no_such_tool_plain'],
  ])
  assert.deepEqual(log.records().map((r) => r.name).sort(), ['no_such_tool_[REDACTED:DEPLOY_TOKEN]', 'no_such_tool_plain'])
  assert.deepEqual(result.toolTrace?.map((e) => e.tool).sort(), ['no_such_tool_[REDACTED:DEPLOY_TOKEN]', 'no_such_tool_plain'])
  for (const piece of fragments(TOKEN)) assert.ok(!JSON.stringify([events, log.records(), result.toolTrace]).includes(piece), `something shown holds ${piece}`)
})
