// `agent chat -q` tells each tool call on stderr: a line when it starts (the full command) and one
// when it ends (with its duration); JSON lines and a `tool_calls` list with --json; nothing with
// --quiet. Driven end to end: the real bin, the scripted model asking for a real `terminal` call.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { describeArguments, describeCall, seconds, ToolCallLog } from '../../../extensions/chat-cli/tool-calls.ts'
import { setup } from './helpers.ts'

const COMMAND = `echo first-line; sleep 0.3; echo "${'long '.repeat(30)}end"`

function terminalModel() {
  return {
    respond(body: any) {
      const toolResult = body.messages.findLast((m: any) => m.role === 'tool')
      if (!toolResult) return { toolCalls: [{ id: 'call_term', name: 'terminal', arguments: { command: COMMAND } }] }
      return { text: 'ran it' }
    },
  }
}

test('chat -q: a start line with the whole command and an end line with the duration, on stderr', async (t) => {
  const { agent } = await setup(t, terminalModel())
  const run = await agent(['chat', '-q', 'run it'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.stdout.trim(), 'ran it')
  const lines = run.stderr.split('\n').filter((l) => /terminal/.test(l))
  assert.equal(lines.length, 2, run.stderr)
  // Not cut: the 150-character command is there to its end.
  assert.equal(lines[0], `⚙ terminal: ${COMMAND}`)
  assert.match(lines[1]!, /^ {2}✓ terminal \d+\.\d s$/)
})

test('chat -q --quiet: no tool lines', async (t) => {
  const { agent } = await setup(t, terminalModel())
  const run = await agent(['chat', '-q', 'run it', '--quiet'])
  assert.equal(run.code, 0, run.stderr)
  assert.equal(run.stdout.trim(), 'ran it')
  assert.doesNotMatch(run.stderr, /terminal|⚙/)
})

test('chat -q --json: JSON lines on stderr and tool_calls in the document, snake_case', async (t) => {
  const { agent } = await setup(t, terminalModel())
  const run = await agent(['chat', '-q', 'run it', '--json'])
  assert.equal(run.code, 0, run.stderr)
  const doc = JSON.parse(run.stdout)
  assert.equal(doc.tool_calls.length, 1)
  const [call] = doc.tool_calls
  assert.deepEqual(Object.keys(call).sort(), ['arguments', 'call_id', 'duration_ms', 'name', 'ok', 'result_bytes'])
  assert.deepEqual([call.call_id, call.name, call.arguments, call.ok], ['call_term', 'terminal', { command: COMMAND }, true])
  assert.ok(call.duration_ms >= 0 && call.result_bytes > 0)
  const events = run.stderr.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
  assert.deepEqual(events.map((e) => e.event), ['tool_start', 'tool_end'])
  assert.deepEqual(events[0], { event: 'tool_start', call_id: 'call_term', name: 'terminal', arguments: { command: COMMAND } })
  assert.equal(events[1].ok, true)
  // --json --quiet: the document keeps the calls, stderr has none.
  const quiet = await agent(['chat', '-q', 'run it', '--json', '--quiet'])
  assert.equal(JSON.parse(quiet.stdout).tool_calls.length, 1)
  assert.doesNotMatch(quiet.stderr, /tool_start/)
})

test('arguments: the first string in full, the rest as key=value; escape sequences made visible', () => {
  assert.equal(describeArguments({ command: 'ls -la' }), 'ls -la')
  assert.equal(describeArguments({ path: 'a.txt', offset: 3 }), 'a.txt (offset=3)')
  assert.equal(describeArguments({ limit: 2 }), 'limit=2')
  assert.equal(describeCall('terminal', { command: 'a\nb' }), 'terminal: a\n  b')
  assert.equal(describeArguments({ command: 'printf \x1b[2J' }), 'printf \\x1b[2J')
  assert.match(describeArguments({ path: 'f', content: 'x'.repeat(3000) }), /^f \(content="x{200}… \(2800 more characters\)"\)$/)
  assert.match(describeArguments({ command: 'y'.repeat(2500) }), /^y{2000}… \(500 more characters\)$/)
  assert.equal(seconds(400), '0.4 s')
  assert.equal(seconds(125_000), '2m 05s')
})

test('a failed call says so; calls end in any order', () => {
  let now = 1000
  const lines: string[] = []
  const log = new ToolCallLog('text', (l) => lines.push(l), () => now)
  log.event({ type: 'tool.start', callId: 'a', name: 'terminal', input: { command: 'false' } })
  log.event({ type: 'tool.start', callId: 'b', name: 'read_file', input: { path: 'x' } })
  now = 3500
  log.event({ type: 'tool.end', callId: 'b', name: 'read_file', ok: true, resultBytes: 3, result: 'abc' })
  log.event({ type: 'tool.end', callId: 'a', name: 'terminal', ok: false, resultBytes: 5, result: 'Error' })
  assert.deepEqual(lines, ['⚙ terminal: false', '⚙ read_file: x', '  ✓ read_file 2.5 s', '  ✗ terminal failed 2.5 s'])
  assert.deepEqual(log.records().map((r) => [r.name, r.ok, r.duration_ms]), [['read_file', true, 2500], ['terminal', false, 2500]])
})
