// `agent chat -q` end to end: the real bin in a child process, a temporary AGENT_HOME, the custom
// endpoint pointed at a scripted model on loopback. Covers the read_file round trip (answer built
// from the real file), the session in `sessions list --json` and in state.db, the iteration cap,
// an unreachable endpoint and no provider. continue.test.ts covers stdin, -c, --resume and -w.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { test } from 'node:test'
import type { startScriptedModel } from 'agent/sdk/testing'
import { chatBodies, closedPort, setup } from './helpers.ts'

/** The model reads notes.txt, then answers with what the tool returned. */
function readingModel(): Parameters<typeof startScriptedModel>[0] {
  return {
    respond(body) {
      const messages: any[] = body.messages
      const toolResult = messages.findLast((m) => m.role === 'tool')
      if (!toolResult) return { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } }] }
      return { text: `The file says: ${toolResult.content}`, reasoning: 'I read the file first.' }
    },
  }
}

test('a one-shot chat reads a real file through read_file and answers from its content; the session is stored', async (t) => {
  const { model, home, project, agent } = await setup(t, readingModel())
  writeFileSync(join(project, 'notes.txt'), 'the launch code is 7421\n')
  const run = await agent(['chat', '-q', 'What does notes.txt say?', '--json'])
  assert.equal(run.code, 0, run.stderr)
  const result = JSON.parse(run.stdout)
  assert.deepEqual(Object.keys(result).sort(), ['answer', 'api_calls', 'exit_reason', 'last_reasoning', 'session_id', 'tool_calls', 'usage'])
  assert.equal(result.answer, 'The file says: 1|the launch code is 7421')
  assert.equal(result.exit_reason, 'completed')
  assert.equal(result.api_calls, 2)
  assert.equal(result.last_reasoning, 'I read the file first.')
  assert.deepEqual(result.tool_calls.map((c: any) => [c.call_id, c.name, c.arguments, c.ok]), [['call_read', 'read_file', { path: 'notes.txt' }, true]])
  assert.equal(result.usage.input_tokens, 20)
  assert.equal(result.usage.output_tokens, 10)
  // The model was offered read_file and got the tool result paired with its call id.
  const [first, second] = chatBodies(model)
  assert.ok(first.tools.some((tool: any) => tool.function.name === 'read_file'))
  const toolMessage = second.messages.find((m: any) => m.role === 'tool')
  assert.equal(toolMessage.tool_call_id, 'call_read')

  const listed = await agent(['sessions', 'list', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  const sessions = JSON.parse(listed.stdout)
  assert.equal(sessions.length, 1)
  assert.equal(sessions[0].id, result.session_id)
  assert.equal(sessions[0].source, 'cli')
  assert.equal(sessions[0].message_count, 4)
  assert.equal(sessions[0].api_calls, 2)
  assert.equal(sessions[0].end_reason, 'one_shot')

  // And in state.db itself.
  const Database = createRequire(import.meta.url)('better-sqlite3')
  const db = new Database(join(home, 'state.db'), { readonly: true })
  t.after(() => db.close())
  const rows = db.prepare('SELECT role, content FROM messages WHERE session_id = ? ORDER BY id').all(result.session_id)
  assert.deepEqual(rows.map((r: any) => r.role), ['user', 'assistant', 'tool', 'assistant'])
  assert.equal(rows[2].content, '1|the launch code is 7421')
  assert.equal(rows[3].content, 'The file says: 1|the launch code is 7421')
})

test('AGENT_MAX_ITERATIONS=3 against a model that always calls a tool stops after 3 model calls', async (t) => {
  const { model, project, agent } = await setup(t, { respond: () => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'loop.txt' } }] }) })
  writeFileSync(join(project, 'loop.txt'), 'again\n')
  const run = await agent(['chat', '-q', 'loop forever', '--json'], { env: { AGENT_MAX_ITERATIONS: '3' } })
  assert.equal(run.code, 0, run.stderr)
  const result = JSON.parse(run.stdout)
  assert.equal(result.exit_reason, 'max_iterations')
  assert.equal(result.api_calls, 3)
  assert.equal(chatBodies(model).length, 3)
  const text = await agent(['chat', '-q', 'loop forever'], { env: { AGENT_MAX_ITERATIONS: '2' } })
  assert.equal(text.code, 0)
  assert.match(text.stderr, /stopped after 2 model calls \(max_iterations/)
  const bad = await agent(['chat', '-q', 'x'], { env: { AGENT_MAX_ITERATIONS: 'lots' } })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /AGENT_MAX_ITERATIONS must be a positive integer/)
})

test('an unreachable endpoint fails with one line and no stack trace', async (t) => {
  const { agent } = await setup(t)
  const port = await closedPort()
  const run = await agent(['chat', '-q', 'hello'], { env: { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1` } })
  assert.equal(run.code, 1)
  assert.equal(run.stdout, '')
  const lines = run.stderr.trim().split('\n')
  assert.equal(lines.length, 1, run.stderr)
  assert.match(lines[0]!, new RegExp(`^agent: custom: cannot reach http://127\\.0\\.0\\.1:${port}/v1: connection refused`))
  assert.doesNotMatch(run.stderr, /\n\s+at /)
})

test('without a provider, one line says how to configure one', async (t) => {
  const { agent } = await setup(t)
  const run = await agent(['chat', '-q', 'hello', '--json'], { env: { AGENT_INFERENCE_PROVIDER: '', OPENAI_BASE_URL: '' } })
  assert.notEqual(run.code, 0)
  assert.equal(run.stdout, '')
  assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr)
  assert.match(run.stderr, /agent model/)
  assert.match(run.stderr, /AGENT_INFERENCE_PROVIDER=custom/)
})
