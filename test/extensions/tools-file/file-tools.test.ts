// The file toolset against a real temporary folder: numbered reads with windows, binary and folder
// refusals, atomic writes with folders created, exact-text patches (unique, replace_all, CRLF),
// content and name search, protected paths, and clear errors that change nothing.

import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

async function fileTools(t: TestContext) {
  const tk = await createTestKernel({ builtins: ['tools-file'] })
  t.after(() => tk.close())
  const cwd = tempDir(t)
  const call = async (name: string, input: Record<string, unknown>) => {
    const tool = tk.kernel.registries.tools.get(name) as ToolDefinition
    return String(await tool.execute({ input, callId: 'c1', signal: new AbortController().signal, session: { id: 's1', cwd } }))
  }
  return { tk, cwd, call }
}

test('the file toolset registers four tools; write_file and patch modify files', async (t) => {
  const { tk } = await fileTools(t)
  const tools = tk.kernel.registries.tools.list().filter((x: ToolDefinition) => x.toolset === 'file')
  assert.deepEqual(tools.map((x: ToolDefinition) => x.name).sort(), ['patch', 'read_file', 'search_files', 'write_file'])
  assert.deepEqual(tools.filter((x: ToolDefinition) => x.modifiesFiles).map((x: ToolDefinition) => x.name).sort(), ['patch', 'write_file'])
})

test('read_file numbers lines, pages big files and refuses what it cannot show', async (t) => {
  const { cwd, call, tk } = await fileTools(t)
  writeFileSync(join(cwd, 'notes.txt'), 'alpha\nbeta\ngamma\n')
  assert.equal(await call('read_file', { path: 'notes.txt' }), '1|alpha\n2|beta\n3|gamma')
  assert.equal(await call('read_file', { path: join(cwd, 'notes.txt'), offset: 2, limit: 1 }), '2|beta\n[lines 2-2 of 3; continue with offset 3]')
  writeFileSync(join(cwd, 'crlf.txt'), 'one\r\ntwo\r\n')
  assert.equal(await call('read_file', { path: 'crlf.txt' }), '1|one\n2|two')
  writeFileSync(join(cwd, 'empty.txt'), '')
  assert.match(await call('read_file', { path: 'empty.txt' }), /empty/)
  writeFileSync(join(cwd, 'blob.bin'), Buffer.from([1, 2, 0, 3]))
  await assert.rejects(call('read_file', { path: 'blob.bin' }), /binary file/)
  await assert.rejects(call('read_file', { path: 'missing.txt' }), /missing\.txt does not exist/)
  mkdirSync(join(cwd, 'dir'))
  await assert.rejects(call('read_file', { path: 'dir' }), /is a directory/)
  await assert.rejects(call('read_file', { path: 'notes.txt', offset: 9 }), /past the end/)
  await assert.rejects(call('read_file', { path: '' }), /non-empty string/)
  writeFileSync(join(cwd, 'long.txt'), 'x'.repeat(5000))
  assert.match(await call('read_file', { path: 'long.txt' }), /line shortened from 5000 characters/)
  writeFileSync(join(tk.home, '.env'), 'SECRET_KEY=abc\n')
  await assert.rejects(call('read_file', { path: join(tk.home, '.env') }), /secrets/)
})

test('write_file creates folders, replaces atomically, and refuses protected places', async (t) => {
  const { cwd, call, tk } = await fileTools(t)
  assert.equal(await call('write_file', { path: 'a/b/c.txt', content: 'hello\nworld\n' }), 'Created a/b/c.txt (12 bytes, 2 lines)')
  assert.equal(readFileSync(join(cwd, 'a/b/c.txt'), 'utf8'), 'hello\nworld\n')
  assert.match(await call('write_file', { path: 'a/b/c.txt', content: 'new' }), /^Replaced a\/b\/c\.txt/)
  assert.equal(readFileSync(join(cwd, 'a/b/c.txt'), 'utf8'), 'new')
  await assert.rejects(call('write_file', { path: 'a/b', content: 'x' }), /is a directory/)
  // Protected paths need the approvals guard's grant for this call (test/extensions/tools-file/protected.test.ts).
  await assert.rejects(call('write_file', { path: join(tk.home, '.env'), content: 'x' }), /refused without approval: .*secrets/)
  await assert.rejects(call('write_file', { path: '/etc/agent-test', content: 'x' }), /refused without approval: .*system location/)
  await assert.rejects(call('write_file', { path: 'x.txt', content: 42 as never }), /must be a string/)
  assert.equal(existsSync(join(cwd, 'x.txt')), false)
})

test('patch replaces exact unique text and explains every refusal without changing the file', async (t) => {
  const { cwd, call } = await fileTools(t)
  const file = join(cwd, 'app.py')
  writeFileSync(file, 'def f():\n    return 1\n\ndef g():\n    return 1\n')
  await assert.rejects(call('patch', { path: 'app.py', old_string: 'return 1', new_string: 'return 2' }), /occurs 2 times/)
  await assert.rejects(call('patch', { path: 'app.py', old_string: 'return 3', new_string: 'x' }), /was not found/)
  await assert.rejects(call('patch', { path: 'app.py', old_string: '', new_string: 'x' }), /use write_file/)
  await assert.rejects(call('patch', { path: 'app.py', old_string: 'a', new_string: 'a' }), /the same/)
  await assert.rejects(call('patch', { path: 'nope.py', old_string: 'a', new_string: 'b' }), /does not exist/)
  assert.equal(readFileSync(file, 'utf8'), 'def f():\n    return 1\n\ndef g():\n    return 1\n', 'refusals change nothing')
  assert.equal(await call('patch', { path: 'app.py', old_string: 'def g():\n    return 1', new_string: 'def g():\n    return 2' }), 'Patched app.py: 1 replacement, first at line 4')
  assert.equal(await call('patch', { path: 'app.py', old_string: 'def', new_string: 'async def', replace_all: true }), 'Patched app.py: 2 replacements, first at line 1')
  assert.equal(readFileSync(file, 'utf8'), 'async def f():\n    return 1\n\nasync def g():\n    return 2\n')
  writeFileSync(join(cwd, 'win.txt'), 'one\r\ntwo\r\nthree\r\n')
  await call('patch', { path: 'win.txt', old_string: 'one\ntwo', new_string: 'uno\ndos' })
  assert.equal(readFileSync(join(cwd, 'win.txt'), 'utf8'), 'uno\r\ndos\r\nthree\r\n')
  // $-patterns in the replacement are literal text.
  await call('patch', { path: 'win.txt', old_string: 'three', new_string: "$& $1 $'" })
  assert.match(readFileSync(join(cwd, 'win.txt'), 'utf8'), /\$& \$1 \$'/)
})

test('search_files finds content lines and file names, skipping .git, node_modules and binaries', async (t) => {
  const { cwd, call } = await fileTools(t)
  mkdirSync(join(cwd, 'src/lib'), { recursive: true })
  mkdirSync(join(cwd, 'node_modules/dep'), { recursive: true })
  mkdirSync(join(cwd, '.git'))
  writeFileSync(join(cwd, 'src/main.ts'), 'import { helper } from "./lib/helper"\nconsole.log(helper())\n')
  writeFileSync(join(cwd, 'src/lib/helper.ts'), 'export function helper() {\n  return 42\n}\n')
  writeFileSync(join(cwd, 'node_modules/dep/index.js'), 'helper()')
  writeFileSync(join(cwd, '.git/config'), 'helper')
  writeFileSync(join(cwd, 'src/data.bin'), Buffer.from('helper\0\0'))
  assert.equal(
    await call('search_files', { pattern: 'helper\\(' }),
    // A folder's files come before its subfolders.
    ['src/main.ts:2: console.log(helper())', 'src/lib/helper.ts:1: export function helper() {'].join('\n'),
  )
  assert.equal(await call('search_files', { pattern: '*.ts', target: 'files' }), 'src/main.ts\nsrc/lib/helper.ts')
  assert.equal(await call('search_files', { pattern: 'src/lib/*', target: 'files' }), 'src/lib/helper.ts')
  assert.equal(await call('search_files', { pattern: 'HELPER', ignore_case: true, file_glob: 'main.ts' }), 'src/main.ts:1: import { helper } from "./lib/helper"\nsrc/main.ts:2: console.log(helper())')
  assert.match(await call('search_files', { pattern: 'return', context: 1, path: 'src/lib' }), /helper\.ts:1- export function helper\(\) \{\nsrc\/lib\/helper\.ts:2: {3}return 42\nsrc\/lib\/helper\.ts:3- \}/)
  assert.match(await call('search_files', { pattern: 'helper', limit: 1 }), /more results left out/)
  assert.match(await call('search_files', { pattern: 'nothing-here' }), /^No matches/)
  await assert.rejects(call('search_files', { pattern: '(' }), /invalid regular expression/)
  await assert.rejects(call('search_files', { pattern: 'x', path: 'nowhere' }), /nowhere does not exist/)
})
