// Which program the sandbox and its watch use (sandbox-watched.ts trustedProgram): the first one on
// the read-only PATH folders, and only when its real file is in a read-only place too.
import assert from 'node:assert/strict'
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { trustedProgram } from '../../../extensions/tools-terminal/sandbox-watched.ts'
import { tempDir } from './helpers.ts'

test('trustedProgram: a link from a read-only PATH folder into a writable one is refused; a file or a link within is taken', (t) => {
  const root = realpathSync(tempDir(t))
  const bin = join(root, 'bin')
  const cellar = join(root, 'cellar')
  const system = join(root, 'system')
  for (const dir of [bin, cellar, system]) mkdirSync(dir)
  writeFileSync(join(cellar, 'git'), '')
  symlinkSync(join(cellar, 'git'), join(bin, 'git'))
  assert.equal(trustedProgram('git', [bin], [system]), undefined, 'its real file is in a writable folder')
  assert.equal(trustedProgram('git', [bin], [cellar]), join(cellar, 'git'), 'the same link into a trusted place')
  writeFileSync(join(bin, 'bwrap'), '')
  assert.equal(trustedProgram('bwrap', [bin], []), join(bin, 'bwrap'))
  assert.equal(trustedProgram('missing', [bin], [system]), undefined)
})
