// A cut never leaves part of a known secret: the terminal's result is redacted before its head and
// tail are cut, and a progress line is redacted (by the runtime) before it is cut to what is shown;
// the terminal's own bound on a progress line falls between words only. Ordinary text passes.

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { RUNTIME_SERVICE, type AgentRuntime, type RunEvent } from 'agent/sdk'
import { createTestKernel, startScriptedModel } from 'agent/sdk/testing'
import { boundLine, outputProgress } from '../../../extensions/tools-terminal/progress.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

const TOKEN = 'dep-cut-token-7a9c1e3b5d7f9a2c'

/** Every 8-character piece of the secret: none may show. */
const pieces = (secret: string) => Array.from({ length: secret.length - 7 }, (_, i) => secret.slice(i, i + 8))
const assertNoPiece = (what: string, text: string) => {
  for (const piece of pieces(TOKEN)) assert.ok(!text.includes(piece), `${what} holds ${piece} of the secret`)
}

test('terminal result: a secret across the head cut or the tail cut leaves no part of itself', async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: TOKEN }, config: { terminal: { max_output_chars: 1000 } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  // The head kept is 400 characters, the tail 600: a secret starts 10 characters before each cut.
  const head = `${'h'.repeat(389)} ${TOKEN}`
  const tail = `${TOKEN} ${'t'.repeat(589)}`
  writeFileSync(join(dir, 'out.txt'), `${head}\n${'m'.repeat(3000)}\n${tail.slice(0, -1)}`)
  const result = await k.call('terminal', { command: 'cat out.txt; echo' }, session(dir))
  assert.equal(result.exit_code, 0, JSON.stringify(result))
  assert.equal(result.truncated, true)
  assertNoPiece('the output', result.output)
  assert.match(result.output, /^h{389} \[REDACTED/)
  assert.match(result.output, /characters omitted/)
  assert.match(result.output, /TOKEN\] t{500,}\s*$/)
})

test('terminal result: ordinary output and a short one are unchanged', async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: TOKEN }, config: { terminal: { max_output_chars: 1000 } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  const result = await k.call('terminal', { command: 'echo deploying with the usual settings' }, session(dir))
  assert.equal(result.output, 'deploying with the usual settings\n')
  const secret = await k.call('terminal', { command: `echo token ${TOKEN} used` }, session(dir))
  assert.equal(secret.output, 'token [REDACTED:DEPLOY_TOKEN] used\n')
})

test('a progress line is bounded between words: a word across the bound goes whole, the rest of the line is not sent', async () => {
  // A word (as a secret is) across the bound: dropped whole, not cut.
  const word = 'w'.repeat(30)
  const line = `${'a '.repeat(795)}${word} b`
  assert.equal(boundLine(line), `${'a '.repeat(795).trimEnd()}…`)
  // The bound falling on a blank keeps every word before it.
  assert.equal(boundLine(`${'a'.repeat(1600)} next`), `${'a'.repeat(1600)}…`)
  // Short lines pass as they are.
  assert.equal(boundLine('an ordinary line of output'), 'an ordinary line of output')

  const sent: string[] = []
  const progress = outputProgress((text) => sent.push(text), 5)
  // A line too long to wait for its end: its start is sent, the rest (which begins anywhere, maybe
  // inside a secret) is not, not even once the line ends.
  progress.push(`${'b '.repeat(900)}`)
  progress.push(`${word}-rest-of-the-long-line`)
  progress.push(' more\nnext line\n')
  await new Promise((r) => setTimeout(r, 40))
  progress.close()
  const lines = sent.join('\n').split('\n')
  assert.deepEqual(lines.map((l) => l.slice(0, 10)), ['b b b b b ', 'next line'])
  assert.ok(lines.every((l) => !l.includes(word) && !l.includes('rest-of')), JSON.stringify(lines))
  assert.ok(lines[0]!.length <= 1601)
})

test('through the runtime: a live output line with a secret across the shown width leaves no part of it', async (t) => {
  const model = await startScriptedModel()
  t.after(() => model.close())
  const k = await createTestKernel({
    builtins: ['state-db', 'sessions', 'runtime', 'model-resolver', 'provider-openai-compat', 'tools-terminal'],
    env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url },
    dotenv: { DEPLOY_TOKEN: TOKEN },
  })
  t.after(() => k.close())
  const dir = tempDir(t)
  // The secret starts 10 characters before column 400, where the runtime cuts a progress line.
  writeFileSync(join(dir, 'line.txt'), `${'x'.repeat(389)} ${TOKEN} and the rest of the line\nan ordinary line\n`)
  model.enqueue({ toolCalls: [{ name: 'terminal', arguments: { command: 'cat line.txt; sleep 1' } }] }, { text: 'done' })
  const events: RunEvent[] = []
  const result = await k.kernel.services.require<AgentRuntime>(RUNTIME_SERVICE).run({ input: 'go', cwd: dir, onEvent: (e) => events.push(e) })
  assert.equal(result.answer, 'done')
  const progress = (events.filter((e) => e.type === 'tool.progress') as Extract<RunEvent, { type: 'tool.progress' }>[]).map((e) => e.text).join('\n')
  assert.ok(progress.includes('an ordinary line'), progress)
  assert.ok(progress.includes(`${'x'.repeat(389)} [REDACTED`), progress)
  assertNoPiece('a progress line', progress)
  assert.ok(progress.split('\n').every((l) => l.length <= 400))
})
