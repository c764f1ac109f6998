// Tool progress in the interactive chat, in a real terminal (tmux): while a scripted `terminal` call
// runs, the live block shows the tool name, the whole command (wrapped, not cut), the elapsed time
// and the tail of its output; when it ends the transcript keeps the call with its duration.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import YAML from 'yaml'
import { startScriptedModel } from '../../../sdk/testing/index.ts'
import { hasTmux, openTerminal } from '../../helpers/tmux.ts'
import { tempDir } from '../../helpers/temp.ts'

// Longer than the 60-column terminal: it has to wrap to be seen whole. It waits (in the chat's
// working folder, the home) until the test has seen it running, bounded by the call's timeout.
const COMMAND = 'echo first-output; echo second-output; while [ ! -f seen ]; do sleep 0.1; done; echo the-last-line-of-a-long-command-that-wraps'
const flat = (text: string) => text.replace(/\s+/g, '')

test('the interactive chat shows a running tool: name, whole command, elapsed time, live output', { skip: hasTmux() ? false : 'tmux is not installed' }, async (t) => {
  const model = await startScriptedModel({
    models: ['scripted-model'],
    respond: (body) => {
      const toolResult = body.messages.findLast((m: any) => m.role === 'tool')
      if (!toolResult) return { toolCalls: [{ id: 'call_term', name: 'terminal', arguments: { command: COMMAND, timeout: 60 } }] }
      return { text: 'All done here.' }
    },
  })
  t.after(() => model.close())
  const home = tempDir(t, 'agent-tui-')
  writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))
  const term = openTerminal({ home, columns: 60, rows: 24, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
  t.after(() => term.close())
  await term.waitFor(/custom:scripted-model/, 20_000, 'the status bar')
  term.type('run the script')
  term.send('Enter')

  // While it runs: a spinner row with the name and the elapsed time, the command in full, the output so far.
  const running = await term.waitFor((s) => /terminal \d+\.\d s/.test(s) && s.includes('│ second-output') && !s.includes('All done'), 15_000, 'the running tool with its output')
  assert.ok(flat(running).includes(flat(COMMAND)), `the whole command is on screen:\n${running}`)
  assert.match(running, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] terminal \d+\.\d s · echo first-output/)
  assert.match(running, /│ first-output/)
  // The status bar says what runs.
  assert.match(running.split('\n').filter((l) => l.trim()).pop()!, /● terminal/)
  // The elapsed time goes up while it runs.
  const first = Number(/terminal (\d+\.\d) s/.exec(running)![1])
  const later = await term.waitFor((s) => Number(/terminal (\d+\.\d) s ·/.exec(s)?.[1] ?? -1) > first, 10_000, 'the elapsed time moving on')
  assert.ok(later)
  writeFileSync(join(home, 'seen'), '')

  // When it ends: the live block is gone; the transcript keeps the call, whole, with its duration.
  const done = await term.waitFor((s) => s.includes('All done here.'), 20_000, 'the answer')
  assert.doesNotMatch(done, /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] terminal/)
  assert.ok(flat(done).includes(flat(`⚙ terminal: ${COMMAND}`)), done)
  assert.match(flat(done), /wraps\(timeout=60\)\(\d+\.\ds\)/)
  // Nothing of the kept line is cut (the prompt may still show … until the turn has ended).
  const kept = flat(done).slice(flat(done).indexOf('⚙terminal:'), flat(done).indexOf('Alldonehere.'))
  assert.doesNotMatch(kept, /…/)
})

test('the live block fits its rows and width; output after a call ended stays in the transcript', async () => {
  const { ToolActivity, wrapPlain } = await import('../../../extensions/chat-cli/tool-activity.ts')
  const { createTheme } = await import('../../../extensions/chat-cli/theme.ts')
  const printed: string[] = []
  let now = 0
  const activity = new ToolActivity((line) => printed.push(line), createTheme('dark', false), () => undefined, () => now)
  activity.event({ type: 'tool.start', callId: 'a', name: 'terminal', input: { command: 'x '.repeat(100) } })
  activity.event({ type: 'tool.progress', callId: 'a', name: 'terminal', text: 'one\n\x1b[2Jtwo\x07\nthree\nfour' })
  now = 1500
  const block = activity.lines(40, 4)
  assert.equal(block.length, 4)
  assert.ok(block.every((row) => row.length <= 39), JSON.stringify(block))
  assert.match(block[0]!, /^. terminal 1\.5 s · x x/)
  assert.deepEqual(block.slice(1), ['  │ two', '  │ three', '  │ four'])
  // Two calls at once: a row each.
  activity.event({ type: 'tool.start', callId: 'b', name: 'read_file', input: { path: 'a.txt' } })
  assert.equal(activity.lines(40, 8).length, 2)
  activity.event({ type: 'tool.end', callId: 'b', name: 'read_file', ok: false, resultBytes: 1, result: 'Error' })
  activity.event({ type: 'tool.end', callId: 'a', name: 'terminal', ok: true, resultBytes: 1, result: 'x' })
  assert.deepEqual(activity.lines(40, 8), [])
  assert.equal(printed[0], '✗ read_file: a.txt (failed, 0.0 s)')
  assert.equal(printed[1], `⚙ terminal: ${'x '.repeat(100)} (1.5 s)`)
  // A background process's notification arrives after its call ended.
  activity.event({ type: 'tool.progress', callId: 'a', name: 'terminal', text: '[proc_1] exited 0' })
  assert.equal(printed[2], '  │ [proc_1] exited 0')
  // A call the run never ended (it failed mid-batch) stops showing when the turn ends.
  activity.event({ type: 'tool.start', callId: 'c', name: 'terminal', input: {} })
  assert.equal(activity.names(), 'terminal')
  activity.clear()
  assert.deepEqual(activity.lines(40, 8), [])
  assert.deepEqual(wrapPlain('aaa bbb cccccccc', 5), ['aaa', 'bbb', 'ccccc', 'ccc'])
})
