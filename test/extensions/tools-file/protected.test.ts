// Secret files through the file tools, decided on real paths: a link to the agent home, `..`
// traversal, a hard link, /proc/self/environ and search walks are refused or skipped; look-alikes
// (a project's .env.example, a link that stays in the workspace, an ordinary hard link) pass.
import assert from 'node:assert/strict'
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { basename, join, relative } from 'node:path'
import { test, type TestContext } from 'node:test'
import { realPath, type ToolDefinition } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

async function fileTools(t: TestContext) {
  const tk = await createTestKernel({ builtins: ['tools-file'], dotenv: { OPENAI_API_KEY: 'sk-secret-value' } })
  t.after(() => tk.close())
  const cwd = realPath(tempDir(t))
  const call = async (name: string, input: Record<string, unknown>) => {
    const tool = tk.kernel.registries.tools.get(name) as ToolDefinition
    return String(await tool.execute({ input, callId: 'c1', signal: new AbortController().signal, session: { id: 's1', cwd } }))
  }
  return { home: tk.home, cwd, call }
}

test('read_file refuses the agent .env through a link to the agent home, and through `..`', async (t) => {
  const { home, cwd, call } = await fileTools(t)
  symlinkSync(home, join(cwd, 'cfg'))
  await assert.rejects(call('read_file', { path: 'cfg/.env' }), /^Error: reading is refused: .*\.env holds the agent's secrets \(.*cfg\/\.env leads there\)$/)
  mkdirSync(join(cwd, 'sub'))
  const traversal = join('sub', relative(join(cwd, 'sub'), home), '.env')
  assert.match(traversal, /\.\.\//)
  await assert.rejects(call('read_file', { path: traversal }), /reading is refused/)
  // `cfg/..` is the agent home's parent, not the workspace: resolved the way the kernel does.
  await assert.rejects(call('read_file', { path: `cfg/../${basename(home)}/.env` }), /reading is refused/)
  // A link to the secret file itself.
  symlinkSync(join(home, '.env'), join(cwd, 'innocent.txt'))
  await assert.rejects(call('read_file', { path: 'innocent.txt' }), /reading is refused/)
  // The agent's config is protected for writes, not secret: readable.
  writeFileSync(join(home, 'config.yaml'), 'model: x\n')
  assert.equal(await call('read_file', { path: 'cfg/config.yaml' }), '1|model: x')
})

test('read_file refuses /proc/self/environ', { skip: process.platform !== 'linux' }, async (t) => {
  const { call } = await fileTools(t)
  await assert.rejects(call('read_file', { path: '/proc/self/environ' }), /reading is refused: \/proc\/\d+\/environ holds a process's environment/)
  await assert.rejects(call('read_file', { path: '/proc/thread-self/environ' }), /reading is refused/)
})

test('look-alikes pass: a workspace .env.example, a link that stays inside the workspace', async (t) => {
  const { cwd, call } = await fileTools(t)
  writeFileSync(join(cwd, '.env.example'), 'OPENAI_API_KEY=\n')
  assert.equal(await call('read_file', { path: '.env.example' }), '1|OPENAI_API_KEY=')
  mkdirSync(join(cwd, 'src'))
  writeFileSync(join(cwd, 'src', 'a.ts'), 'export {}\n')
  symlinkSync(join(cwd, 'src'), join(cwd, 'lib'))
  assert.equal(await call('read_file', { path: 'lib/a.ts' }), '1|export {}')
  assert.match(await call('write_file', { path: 'lib/b.ts', content: 'x' }), /^Created lib\/b\.ts/)
})

test('search_files never shows the agent .env: not through a link root, not through a link inside', async (t) => {
  const { home, cwd, call } = await fileTools(t)
  writeFileSync(join(home, 'config.yaml'), 'note: OPENAI here\n')
  symlinkSync(home, join(cwd, 'cfg'))
  writeFileSync(join(cwd, 'notes.txt'), 'OPENAI is a word\n')
  // Walking the workspace: the link to the agent home is not followed.
  const inWork = await call('search_files', { pattern: 'OPENAI' })
  assert.equal(inWork, 'notes.txt:1: OPENAI is a word')
  // Walking the agent home through the link: its .env is skipped, the config is searched.
  const inHome = await call('search_files', { pattern: 'OPENAI', path: 'cfg' })
  assert.equal(inHome, 'cfg/config.yaml:1: note: OPENAI here')
  assert.doesNotMatch(inHome, /sk-secret-value/)
  await assert.rejects(call('search_files', { pattern: 'sk-', path: 'cfg/.env' }), /reading is refused/)
  // A missing folder and `..` in front of the link: still the agent home, its .env still skipped.
  const climbed = await call('search_files', { pattern: 'OPENAI|sk-', path: 'nope/../cfg' })
  assert.equal(climbed, 'cfg/config.yaml:1: note: OPENAI here')
})

test("writes refused without approval: a project's agent settings and extensions, git hooks and config", async (t) => {
  const { cwd, call } = await fileTools(t)
  for (const path of ['.agent/extensions/evil/index.ts', '.agent/config.yaml', '.agentrc', '.git/hooks/pre-commit', '.git/config']) {
    await assert.rejects(call('write_file', { path, content: 'x' }), /^Error: writing is refused without approval: .*(configures or extends the agent|git repository's control file)/, path)
  }
  // Through a link and a climb, the same.
  symlinkSync(join(cwd, '.git'), join(cwd, 'hooks-link'), 'dir')
  await assert.rejects(call('write_file', { path: 'nope/../hooks-link/hooks/post-checkout', content: 'x' }), /writing is refused without approval/)
  // Look-alikes write.
  for (const path of ['.agents/notes.md', '.gitignore', '.github/workflows/ci.yml', 'docs/agent.config.yaml.md']) {
    assert.match(await call('write_file', { path, content: 'x' }), /^Created /, path)
  }
})

test('a hard link to the agent .env is refused too (it has no target to resolve); an ordinary hard link reads', async (t) => {
  const { home, cwd, call } = await fileTools(t)
  try {
    linkSync(join(home, '.env'), join(cwd, 'copy.txt'))
  } catch {
    return t.skip('the temp folders are on different volumes')
  }
  await assert.rejects(call('read_file', { path: 'copy.txt' }), /reading is refused: .*copy\.txt is another name \(a hard link\) of .*\.env/)
  assert.match(await call('search_files', { pattern: 'sk-secret' }), /^No matches for "sk-secret"/)
  // patch reads before it writes: it would rewrite the secret into an ordinary file, and "not found" tells about its text.
  await assert.rejects(call('patch', { path: 'copy.txt', old_string: 'OPENAI', new_string: 'OPENAI ' }), /reading is refused: .*a hard link/)
  await assert.rejects(call('read_file', { path: 'copy.txt' }), /reading is refused/, 'nothing was rewritten into an ordinary file')
  writeFileSync(join(cwd, 'a.txt'), 'plain\n')
  linkSync(join(cwd, 'a.txt'), join(cwd, 'b.txt'))
  assert.equal(await call('read_file', { path: 'b.txt' }), '1|plain')
  assert.match(await call('patch', { path: 'b.txt', old_string: 'plain', new_string: 'patched' }), /^Patched b\.txt/)
})
