// The memory bounds cut raw output before anything redacts it (the rolling buffer of a long output,
// the persistent shell's buffer, the last characters of a background process): a margin as long as
// the longest form of a known secret, less one, goes at every such cut (once the kept side is
// redacted), so a secret across one leaves no part of itself and one next to it stays a marker.
// Ordinary output keeps its head and tail (only the margin at the cut goes).

import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { secretMatcher } from 'agent/sdk'
import { cutMargin, OutputBuffer, secretCutGuard } from '../../../extensions/tools-terminal/output.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

const TOKEN = 'mrg-Q7xK2pZ9vL4tW8nB3sD6'
const ENTRIES = [{ name: 'DEPLOY_TOKEN', value: TOKEN }]
/** What the runtime does to a tool result before the model sees it. */
const redact = (text: string) => secretMatcher(ENTRIES).redact(text)

/** Every 6-character piece of the secret: none may show. */
const pieces = Array.from({ length: TOKEN.length - 5 }, (_, i) => TOKEN.slice(i, i + 6))
const assertNoPiece = (what: string, text: string) => {
  for (const piece of pieces) assert.ok(!text.includes(piece), `${what} holds ${piece} of the secret: ${text.slice(0, 300)}`)
}

test('the margin is the longest form of a known secret less one; none without secrets', () => {
  // 24 characters: the hex form (48) is the longest.
  assert.equal(cutMargin(ENTRIES), 47)
  assert.equal(cutMargin([]), 0)
  assert.equal(cutMargin([{ name: 'X', value: 'true' }]), 0)
  // Secrets that cannot be read: everything on the kept side of a cut goes.
  const withheld = secretCutGuard({ secretEntries: () => { throw new Error('unreadable') } })
  assert.equal(withheld.afterCut('anything'), '')
  assert.equal(withheld.beforeCut('anything'), '')
})

test('cut guard: the part of a secret at the cut goes; a secret whole next to it stays a marker, even within the margin', () => {
  const guard = secretCutGuard({ secretEntries: () => ENTRIES })
  for (let shift = 1; shift < TOKEN.length; shift++) {
    // A secret cut at the start, then one right behind it (within the margin), then text.
    const after = guard.afterCut(`${TOKEN.slice(shift)}${TOKEN} and more`)
    assert.equal(after, '[REDACTED:DEPLOY_TOKEN] and more')
    const before = guard.beforeCut(`text ${TOKEN}${TOKEN.slice(0, shift)}`)
    assert.equal(before, 'text [REDACTED:DEPLOY_TOKEN]')
  }
  // Ordinary text: only the margin at the cut goes.
  assert.equal(guard.afterCut('x'.repeat(100)), 'x'.repeat(53))
  assert.equal(guard.beforeCut('x'.repeat(100)), 'x'.repeat(53))
})

test('rolling buffer: a secret across the head cut or the tail cut leaves no part; ordinary text keeps head and tail', () => {
  const guard = () => secretCutGuard({ secretEntries: () => ENTRIES })
  for (let shift = 1; shift < TOKEN.length; shift += 5) {
    const buffer = new OutputBuffer(100, guard)
    // Across the end of the head (100), across the start of the rolling tail (the last 100).
    const raw = `${'a'.repeat(100 - shift)}${TOKEN}${'b'.repeat(300)}${TOKEN}${'c'.repeat(100 - TOKEN.length + shift)}`
    for (let i = 0; i < raw.length; i += 37) buffer.push(raw.slice(i, i + 37))
    const text = redact(buffer.text())
    assertNoPiece('the buffer', text)
    assertNoPiece('last(n)', redact(buffer.last(50)))
    assertNoPiece('last(n) past the tail', redact(buffer.last(5000)))
    // Back to back: whatever the cut leaves of one, the next is a marker.
    const dense = new OutputBuffer(100, guard)
    dense.push(TOKEN.repeat(20))
    assertNoPiece('a dense buffer', dense.text())
    assertNoPiece('last(n) of a dense buffer', dense.last(50 + shift))
  }
  // Ordinary output: head and tail as before, less the margin at the gap.
  const raw = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}`).join('\n')
  const plain = new OutputBuffer(200)
  const guarded = new OutputBuffer(200, guard)
  plain.push(raw)
  guarded.push(raw)
  assert.equal(plain.text(), `${raw.slice(0, 200)}\n[… ${raw.length - 400} characters omitted …]\n${raw.slice(-200)}`)
  assert.equal(guarded.text(), `${raw.slice(0, 153)}\n[… ${raw.length - 400} characters omitted …]\n${raw.slice(-153)}`)
  assert.equal(guarded.last(100), raw.slice(-53))
  // Nothing cut: nothing dropped.
  const short = new OutputBuffer(200, guard)
  short.push('a short output\n')
  assert.equal(short.text(), 'a short output\n')
  assert.equal(short.last(100), 'a short output\n')
})

test('terminal: a long output with a secret across the rolling buffer cuts leaves no part of it', async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: TOKEN }, config: { terminal: { max_output_chars: 1000 } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  // The buffer keeps the first 1000 characters and the last 1000; the secret crosses both cuts.
  const raw = `${'h'.repeat(990)}${TOKEN}${'m'.repeat(3000)}${TOKEN}${'t'.repeat(990)}`
  writeFileSync(join(dir, 'out.txt'), raw)
  const result = await k.call('terminal', { command: 'cat out.txt' }, session(dir))
  assert.equal(result.truncated, true)
  assertNoPiece('the output', result.output)
  // Ordinary long output: the head and tail the cap keeps, as before.
  const ordinary = `${'h'.repeat(400)}${'m'.repeat(5000)}${'t'.repeat(600)}`
  writeFileSync(join(dir, 'plain.txt'), ordinary)
  const plain = await k.call('terminal', { command: 'cat plain.txt' }, session(dir))
  assert.match(plain.output, /^h{400}\n\[… \d+ characters omitted …\]\nt{600}$/)
})

test('persistent shell: a secret across its buffer cut leaves no part of it; the cut is marked', async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: TOKEN }, config: { terminal: { max_output_chars: 1000, persistent_shell: true } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  const s = session(dir)
  // Secrets back to back: wherever the buffer is cut (chunks arrive as they will), it cuts one.
  writeFileSync(join(dir, 'out.txt'), TOKEN.repeat(400))
  const result = await k.call('terminal', { command: 'cat out.txt' }, s)
  assert.equal(result.exit_code, 0)
  assertNoPiece('the output', result.output)
  assert.match(result.output, /^\[… \d+ characters omitted …\]\n/)
  assert.match(result.output, /\[REDACTED:DEPLOY_TOKEN\]$/)
  // Ordinary long output: its end as before, the start of what is kept less the margin only.
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n')
  writeFileSync(join(dir, 'plain.txt'), `${lines}\n`)
  const plain = await k.call('terminal', { command: 'cat plain.txt' }, s)
  assert.match(plain.output, /^\[… \d+ characters omitted …\]\n/)
  assert.match(plain.output, /line 0998\nline 0999\n$/)
  // Short output, same shell: whole.
  const short = await k.call('terminal', { command: 'echo still here' }, s)
  assert.equal(short.output, 'still here\n')
})

test('background process: a secret across the cut of its last characters leaves no part in polls and notifications', async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: TOKEN }, config: { terminal: { max_output_chars: 1000, background_output_interval: 1 } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  const progress: string[] = []
  const s = session(dir, { progress: (text) => progress.push(text) })
  // Across the start of the rolling tail (the last 1000), the 300 a list shows, the 2000 an output
  // notification sends.
  const raw = `${'x'.repeat(3000)}${TOKEN}${'y'.repeat(690)}${TOKEN}${'z'.repeat(290)}`
  const across2000 = raw.length - 2000 - 10
  writeFileSync(join(dir, 'out.txt'), `${raw.slice(0, across2000)}${TOKEN}${raw.slice(across2000 + TOKEN.length)}`)
  const started = await k.call('terminal', { command: 'cat out.txt', background: true }, s)
  const waited = await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 10 }, s)
  assert.equal(waited.status, 'exited')
  await new Promise((r) => setTimeout(r, 50))
  assertNoPiece('the polled output', redact(waited.output))
  assert.match(waited.output, /z{290}$/)
  const listed = await k.call('process', { action: 'list' }, s)
  assertNoPiece('the listed output', redact(listed.processes[0].output))
  assert.match(listed.processes[0].output, /^z{200,}$/)
  assert.ok(progress.some((p) => p.includes('exited with code 0')), JSON.stringify(progress))
  for (const text of progress) assertNoPiece('a notification', text)
})
