// The diff an editor is shown for an approved write carries no secret: a write to a secret file (the
// agent home's .env) gets no diff at all (its old content is not even read), and a write to any
// other file (config.yaml, protected; a project file) has each known secret in its old and new text
// replaced by its marker. A look-alike that is no known secret is shown as it is.
// runTurn (extensions/acp/turn.ts) is driven with a stand-in runtime that reports the tool calls.

import assert from 'node:assert/strict'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import type { RunEvent, RunRequest, RuntimeService, SecretEntry } from 'agent/sdk'
import { diffGuard } from '../../../extensions/acp/diff-guard.ts'
import { runTurn, UpdateQueue } from '../../../extensions/acp/turn.ts'

const KEY = 'sk-acp-diff-4e8b1f7a2c9d3e6b0a5f'
const LOOK_ALIKE = 'sk-acp-diff-4e8b1f7a2c9d3e6b0a5e'
const entries = Object.freeze([Object.freeze({ name: 'OPENAI_API_KEY', value: KEY })]) as SecretEntry[]

const tempDir = (t: TestContext, prefix: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** One turn in which the model makes `call` (the stand-in runtime writes what write_file would); the diffs the editor got. */
async function diffsOf(t: TestContext, call: { name: string; input: Record<string, unknown> }, settings = { home: tempDir(t, 'agent-acp-diff-home-'), secretEntries: () => entries }, cwd = tempDir(t, 'agent-acp-diff-cwd-')) {
  const sent: any[] = []
  const client = { notify: async (_method: string, params: any) => void sent.push(params.update), request: async () => ({}) } as any
  const runtime = {
    async run(request: RunRequest) {
      const emit = (event: RunEvent) => request.onEvent?.(event)
      emit({ type: 'tool.start', callId: 'c1', name: call.name, input: call.input })
      if (call.name === 'write_file') writeFileSync(call.input.path as string, call.input.content as string)
      emit({ type: 'tool.end', callId: 'c1', name: call.name, ok: true, resultBytes: 5, result: 'wrote' })
      return { sessionId: 's', answer: 'done', exitReason: 'completed', usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, apiCalls: 1, toolTrace: [] }
    },
  } as unknown as RuntimeService
  const log = { warn: () => undefined, info: () => undefined, debug: () => undefined, error: () => undefined } as any
  await runTurn({
    runtime, client, log, sessionId: 's', cwd, input: 'go', turnNumber: 1, signal: new AbortController().signal,
    cancelled: () => false, updates: new UpdateQueue(client, 's', log), diffs: diffGuard(settings),
  })
  return { sent, diffs: sent.flatMap((u) => (Array.isArray(u.content) ? u.content : []).filter((c: any) => c.type === 'diff')), settings, cwd }
}

test('a write to a protected file (config.yaml) shows its old and new text with known secrets redacted', async (t) => {
  const home = tempDir(t, 'agent-acp-diff-home-')
  const path = join(home, 'config.yaml')
  writeFileSync(path, `model:\n  api_key: ${KEY}\n`)
  const { diffs, sent } = await diffsOf(t, { name: 'write_file', input: { path, content: `model:\n  api_key: ${KEY}\n  name: x\n` } }, { home, secretEntries: () => entries })
  assert.equal(diffs.length, 1)
  assert.equal(diffs[0].oldText, 'model:\n  api_key: [REDACTED:OPENAI_API_KEY]\n')
  assert.equal(diffs[0].newText, 'model:\n  api_key: [REDACTED:OPENAI_API_KEY]\n  name: x\n')
  assert.ok(!JSON.stringify(sent.filter((u) => u.sessionUpdate === 'tool_call_update')).includes(KEY))
})

test('a write to a secret file (the agent home .env) gets no diff, old or new', async (t) => {
  const home = tempDir(t, 'agent-acp-diff-home-')
  const path = join(home, '.env')
  writeFileSync(path, `OPENAI_API_KEY=${KEY}\nUNKNOWN_PRIVATE=never-known-0123456789\n`)
  const { diffs, sent } = await diffsOf(t, { name: 'write_file', input: { path, content: 'DEBUG=1\n' } }, { home, secretEntries: () => entries })
  assert.deepEqual(diffs, [])
  const updates = JSON.stringify(sent)
  assert.ok(!updates.includes(KEY) && !updates.includes('never-known-0123456789'), updates)
  // The call still completes in the editor, with its result.
  assert.ok(sent.some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed'))
})

test('a patch whose new text holds a known secret is shown redacted; secrets that cannot be read send no diff', async (t) => {
  const cwd = tempDir(t, 'agent-acp-diff-cwd-')
  const path = join(cwd, 'main.ts')
  const patch = { name: 'patch', input: { path, old_string: 'const key = ""', new_string: `const key = "${KEY}"` } }
  const { diffs } = await diffsOf(t, patch, undefined, cwd)
  assert.deepEqual([diffs[0].oldText, diffs[0].newText], ['const key = ""', 'const key = "[REDACTED:OPENAI_API_KEY]"'])
  const unreadable = { home: tempDir(t, 'agent-acp-diff-home-'), secretEntries: (): SecretEntry[] => { throw new Error('unreadable .env') } }
  assert.deepEqual((await diffsOf(t, patch, unreadable, cwd)).diffs, [])
})

test('a look-alike in an ordinary file is shown as it is', async (t) => {
  const cwd = tempDir(t, 'agent-acp-diff-cwd-')
  const path = join(cwd, 'README.md')
  writeFileSync(path, `example key: ${LOOK_ALIKE}\n`)
  const { diffs } = await diffsOf(t, { name: 'write_file', input: { path, content: `example key: ${LOOK_ALIKE}\nmore\n` } }, undefined, cwd)
  assert.equal(diffs[0].oldText, `example key: ${LOOK_ALIKE}\n`)
  assert.equal(diffs[0].newText, `example key: ${LOOK_ALIKE}\nmore\n`)
})
