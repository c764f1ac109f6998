// The `process` tool shows a running process's output with its end still open: a secret being
// printed in two writes shows no prefix of itself in a poll, a wait that times out or the list
// (each would reach the model and the session store), and shows as its marker once the process
// ends. Output that only looks like the start of a secret is shown whole while the process runs.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime, type SecretEntry } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { OutputBuffer, secretCutGuard } from '../../../extensions/tools-terminal/output.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

const KEY = 'sk-audit-OPENAI-9f8e7d6c5b4a3921'
/** Shares `sk-` with the key, then goes its own way. */
const LOOK_ALIKE = 'sk-live-4c1b2a3d9e8f7a6b'

/** Every 8-character piece of the key: none may show. */
const assertNoPiece = (what: string, text: string) => {
  for (let i = 0; i + 8 <= KEY.length; i++) assert.ok(!text.includes(KEY.slice(i, i + 8)), `${what} holds ${KEY.slice(i, i + 8)}: ${text}`)
}

test('a poll, a timed-out wait and the list of a process mid-secret show no prefix of it; the wait after the exit shows its marker', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-terminal'],
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url, AGENT_BACKGROUND_NOTIFICATIONS: 'off' },
    dotenv: { OPENAI_API_KEY: KEY },
  })
  t.after(() => k.close())
  const dir = tempDir(t)
  // The key is read from a file, so no part of it is in the command (which the results repeat).
  writeFileSync(join(dir, 'key.txt'), KEY)
  const command = `printf 'key loaded: '; head -c ${KEY.length - 1} key.txt; sleep 4; tail -c 1 key.txt; echo`
  const id = 'proc_1'
  model.enqueue(
    { toolCalls: [{ name: 'terminal', arguments: { command, background: true } }] },
    // All three while the process sleeps between the two writes.
    { toolCalls: [{ name: 'process', arguments: { action: 'wait', process_id: id, timeout: 1 } }] },
    { toolCalls: [{ name: 'process', arguments: { action: 'poll', process_id: id } }] },
    { toolCalls: [{ name: 'process', arguments: { action: 'list' } }] },
    { toolCalls: [{ name: 'process', arguments: { action: 'wait', process_id: id, timeout: 20 } }] },
    { text: 'done' },
  )
  const events: unknown[] = []
  const result = await k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'go', cwd: dir, onEvent: (e) => events.push(e) })
  assert.equal(result.answer, 'done')
  const messages: any[] = model.requests.at(-1)!.body.messages
  const results = messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(m.content))
  assert.equal(results.length, 5, JSON.stringify(results))
  const [, waited, polled, listed, ended] = results
  for (const [what, shown] of [['the timed-out wait', waited], ['the poll', polled], ['the list', listed.processes[0]]] as const) {
    assert.equal(shown.status, 'running', `${what} came after the exit: ${JSON.stringify(shown)}`)
    assert.equal(shown.output, 'key loaded: ', what)
    assert.ok(!shown.output.includes(KEY.slice(0, 12)), what)
  }
  assert.equal(ended.status, 'exited')
  assert.equal(ended.output, 'key loaded: [REDACTED:OPENAI_API_KEY]\n')
  // Nothing of it in what the model was sent, nor in the run's events.
  assertNoPiece('a model request', JSON.stringify(model.requests.map((r) => r.body)))
  assertNoPiece('the events', JSON.stringify(events))
})

test('a look-alike at the end of running output is shown whole while the process runs', async (t) => {
  const k = await terminalKernel({ env: { AGENT_BACKGROUND_NOTIFICATIONS: 'off' }, dotenv: { OPENAI_API_KEY: KEY } })
  t.after(() => k.close())
  const s = session(tempDir(t))
  const started = await k.call('terminal', { command: `printf 'model: ${LOOK_ALIKE}'; sleep 10`, background: true }, s)
  let polled: any
  for (let i = 0; i < 50; i++) {
    polled = await k.call('process', { action: 'poll', process_id: started.process_id }, s)
    if (polled.output) break
    await new Promise((r) => setTimeout(r, 100))
  }
  assert.equal(polled.status, 'running')
  assert.equal(polled.output, `model: ${LOOK_ALIKE}`)
  const listed = await k.call('process', { action: 'list' }, s)
  assert.equal(listed.processes[0].output, `model: ${LOOK_ALIKE}`)
  // (Closing the kernel would kill it too, should an assertion above fail.)
  await k.call('process', { action: 'kill', process_id: started.process_id }, s)
  const ended = await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 5 }, s)
  assert.equal(ended.output, `model: ${LOOK_ALIKE}`)
})

test('OutputBuffer: an open end is held back also where the window starts at a cut', () => {
  const entries = Object.freeze([Object.freeze({ name: 'OPENAI_API_KEY', value: KEY })]) as unknown as SecretEntry[]
  const buffer = new OutputBuffer(200, () => secretCutGuard({ secretEntries: () => entries }))
  buffer.push(`${'x'.repeat(600)}\nkey loaded: ${KEY.slice(0, -1)}`)
  // (The window's start is a cut too: its raw start goes, up to the margin.)
  assert.match(buffer.last(200, true), /^x+\nkey loaded: $/)
  buffer.push(`${KEY.slice(-1)}\n`)
  assert.match(buffer.last(200, true), /^x+\nkey loaded: \[REDACTED:OPENAI_API_KEY\]\n$/)
  // A new possible start is held back while open, shown once the process has ended.
  buffer.push('sk-')
  assert.match(buffer.last(200, true), /^x+\nkey loaded: \[REDACTED:OPENAI_API_KEY\]\n$/)
  assert.match(buffer.last(200), /^x+\nkey loaded: \[REDACTED:OPENAI_API_KEY\]\nsk-$/)
})
