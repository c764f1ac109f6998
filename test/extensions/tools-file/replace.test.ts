// Writes replace a file without following links: not a link at the final name (replaced, not
// written through), not a folder on the way swapped for a link after the guard's check; and a link
// planted while write_file runs again and again never gets a protected file written.

import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync, lstatSync, chmodSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { realPath, type ToolDefinition } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { replaceFile } from '../../../extensions/tools-file/replace.ts'
import { tempDir } from '../../helpers/temp.ts'

test('a link at the final name is replaced, not written through; a linked folder is refused', async (t) => {
  const root = realPath(tempDir(t, 'agent-replace-'))
  const outside = join(root, 'outside')
  const work = join(root, 'work')
  mkdirSync(outside)
  mkdirSync(work)
  writeFileSync(join(outside, 'target'), 'original\n')
  symlinkSync(join(outside, 'target'), join(work, 'x'))
  await replaceFile(join(work, 'x'), 'new\n')
  assert.equal(readFileSync(join(outside, 'target'), 'utf8'), 'original\n')
  assert.equal(lstatSync(join(work, 'x')).isSymbolicLink(), false)
  assert.equal(readFileSync(join(work, 'x'), 'utf8'), 'new\n')
  // A folder on the way that is a link: refused, nothing left behind on either side.
  symlinkSync(outside, join(work, 'd'))
  await assert.rejects(replaceFile(join(work, 'd', 'target'), 'evil\n'), /changed while writing \(a link appeared on the way\); nothing was written/)
  assert.equal(readFileSync(join(outside, 'target'), 'utf8'), 'original\n')
  assert.deepEqual(readdirSync(outside), ['target'])
  // Look-alike: an ordinary file keeps its mode.
  writeFileSync(join(work, 'run.sh'), 'echo 1\n')
  chmodSync(join(work, 'run.sh'), 0o750)
  await replaceFile(join(work, 'run.sh'), 'echo 2\n')
  assert.equal(statSync(join(work, 'run.sh')).mode & 0o777, 0o750)
  assert.equal(readFileSync(join(work, 'run.sh'), 'utf8'), 'echo 2\n')
})

test('a link to a protected file toggled while write_file runs never gets it written', async (t) => {
  const tk = await createTestKernel({ builtins: ['tools-file'] })
  t.after(() => tk.close())
  const cwd = realPath(tempDir(t, 'agent-replace-race-'))
  const config = join(tk.home, 'config.yaml')
  writeFileSync(config, 'approvals: {mode: manual}\n')
  const tool = tk.kernel.registries.tools.get('write_file') as ToolDefinition
  const link = join(cwd, 'x')
  let toggling = true
  const toggle = () => {
    if (!toggling) return
    // At random turns: toggled every turn, the link was always in the same state at the same step.
    if (Math.random() < 0.5) return void setImmediate(toggle)
    try {
      if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link)
      else {
        rmSync(link, { force: true })
        symlinkSync(config, link)
      }
    } catch {
      // The write renamed over it at that moment: next turn.
    }
    setImmediate(toggle)
  }
  setImmediate(toggle)
  try {
    for (let i = 0; i < 300; i++) {
      // A refused call never leaves the microtask queue: let the toggling run between calls.
      await new Promise((resolve) => setImmediate(resolve))
      try {
        await tool.execute({ input: { path: 'x', content: 'approvals: {mode: off}\n' }, callId: `c${i}`, signal: new AbortController().signal, session: { id: 's1', cwd } })
      } catch {
        // Refused (the link was there at the check): the point is what the other calls wrote.
      }
    }
  } finally {
    toggling = false
  }
  assert.equal(readFileSync(config, 'utf8'), 'approvals: {mode: manual}\n')
})
