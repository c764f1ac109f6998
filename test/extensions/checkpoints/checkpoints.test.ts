import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { defineExtension, defineTool, type SlashContext, type ToolDefinition, type ToolSession } from 'agent/sdk'
import { createTestKernel, makeTempHome, type TestKernelOptions } from 'agent/sdk/testing'

/** A file-writing tool like the file toolset's: modifiesFiles, so checkpoints snapshot before it. */
const writeTool = defineExtension({
  name: 'test-write',
  setup(api) {
    api.tools.register(defineTool({
      name: 'test_write_file',
      description: 'write a file',
      parameters: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
      modifiesFiles: true,
      execute: ({ input, session }) => {
        writeFileSync(join(session.cwd, input.path), input.content)
        return 'ok'
      },
    }))
  },
})

async function kernel(options: TestKernelOptions = {}) {
  const k = await createTestKernel({ builtins: ['checkpoints', 'tools-terminal'], extensions: [writeTool], ...options })
  async function call(tool: string, input: unknown, session: ToolSession) {
    const definition = k.kernel.registries.tools.get(tool) as ToolDefinition
    const event = { tool, toolset: definition.toolset ?? tool, callId: `c${Math.random()}`, input, session, modifiesFiles: Boolean(definition.modifiesFiles) }
    const verdict = await k.kernel.hooks.beforeToolCall.promise(event)
    assert.equal(verdict, undefined, 'checkpoints never block')
    return definition.execute({ input, callId: event.callId, signal: new AbortController().signal, session })
  }
  async function rollback(args: string, sessionId: string, surface: 'cli' | 'gateway' = 'gateway'): Promise<string> {
    const replies: string[] = []
    const ctx: SlashContext = { args, invokedAs: 'rollback', surface, reply: (t) => void replies.push(t), chat: { sessionId } as never }
    await (k.kernel.registries.commands.get('rollback') as { slash: (c: SlashContext) => Promise<void> }).slash(ctx)
    return replies.join('\n')
  }
  const shadowRepos = () => (existsSync(join(k.home, 'checkpoints')) ? readdirSync(join(k.home, 'checkpoints')) : [])
  return { ...k, call, rollback, shadowRepos }
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@x', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@x' } }).trim()

test('a file edit is rolled back by /rollback 1, and the rollback itself is undoable; the project .git is untouched', async (t) => {
  const k = await kernel()
  t.after(() => k.close())
  const dir = realpathSync(makeTempHome('agent-ckpt-'))
  t.after(() => execFileSync('rm', ['-rf', dir]))
  writeFileSync(join(dir, 'app.txt'), 'original\n')
  git(dir, 'init', '-q')
  git(dir, 'add', '.')
  git(dir, 'commit', '-qm', 'project commit')
  const projectHead = git(dir, 'rev-parse', 'HEAD')
  const session: ToolSession = { id: 'sess-ck', cwd: dir }

  await k.call('terminal', { command: "printf 'edited\\n' > app.txt && echo new > added.txt" }, session)
  assert.equal(readFileSync(join(dir, 'app.txt'), 'utf8'), 'edited\n')
  const list = await k.rollback('', 'sess-ck')
  assert.match(list, /1\. [0-9a-f]{8} .* before terminal: printf/)

  const restored = await k.rollback('1', 'sess-ck')
  assert.match(restored, /Restored .* \/rollback 1 undoes this/)
  assert.equal(readFileSync(join(dir, 'app.txt'), 'utf8'), 'original\n')
  assert.ok(!existsSync(join(dir, 'added.txt')), 'files created after the checkpoint are removed')

  assert.match(await k.rollback('', 'sess-ck'), /1\. .*before rollback/)
  await k.rollback('1', 'sess-ck')
  assert.equal(readFileSync(join(dir, 'app.txt'), 'utf8'), 'edited\n')
  assert.equal(readFileSync(join(dir, 'added.txt'), 'utf8'), 'new\n')

  // The project's own repository saw none of this.
  assert.equal(git(dir, 'rev-parse', 'HEAD'), projectHead)
  assert.equal(git(dir, 'log', '--format=%s'), 'project commit')
  assert.equal(k.shadowRepos().length, 1)
  assert.equal(readFileSync(join(k.home, 'checkpoints', k.shadowRepos()[0]!, 'AGENT_WORKDIR'), 'utf8').trim(), dir)

  assert.match(await k.rollback('9', 'sess-ck'), /Rollback failed: no checkpoint #9/)
  assert.match(await k.rollback('x y', 'sess-ck'), /Usage/)
  assert.match(await k.rollback('diff 1', 'sess-ck'), /app\.txt|No differences/)
})

test('checkpointing a directory of 50,001 files is skipped without blocking the write', async (t) => {
  const k = await kernel()
  t.after(() => k.close())
  const dir = makeTempHome('agent-ckpt-big-')
  t.after(() => execFileSync('rm', ['-rf', dir]))
  for (let d = 0; d < 51; d++) {
    const sub = join(dir, `d${d}`)
    mkdirSync(sub)
    for (let f = 0; f < (d === 50 ? 1 : 1000); f++) writeFileSync(join(sub, `f${f}`), '')
  }
  const result = await k.call('test_write_file', { path: 'written.txt', content: 'hello' }, { id: 's-big', cwd: dir })
  assert.equal(result, 'ok')
  assert.equal(readFileSync(join(dir, 'written.txt'), 'utf8'), 'hello')
  assert.deepEqual(k.shadowRepos(), [])
})

test('home directory, missing git and checkpoints.enabled false are quiet skips; --checkpoints re-enables', async (t) => {
  const home = makeTempHome('agent-ckpt-home-')
  t.after(() => execFileSync('rm', ['-rf', home]))
  const k1 = await kernel({ env: { HOME: home } })
  t.after(() => k1.close())
  assert.equal(await k1.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's1', cwd: home }), 'ok')
  assert.deepEqual(k1.shadowRepos(), [])

  const dir = makeTempHome('agent-ckpt-nogit-')
  t.after(() => execFileSync('rm', ['-rf', dir]))
  const k2 = await kernel({ env: { PATH: join(dir, 'no-bin') } })
  t.after(() => k2.close())
  assert.equal(await k2.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's2', cwd: dir }), 'ok')
  assert.deepEqual(k2.shadowRepos(), [])

  const k3 = await kernel({ config: { checkpoints: { enabled: false } } })
  t.after(() => k3.close())
  await k3.call('test_write_file', { path: 'b.txt', content: 'x' }, { id: 's3', cwd: dir })
  assert.deepEqual(k3.shadowRepos(), [])
  await k3.call('test_write_file', { path: 'b.txt', content: 'y' }, { id: 's3', cwd: dir, extra: { checkpoints: true } })
  assert.equal(k3.shadowRepos().length, 1)
  assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'y')
  // The snapshot holds the content from before the write.
  await k3.rollback('1', 's3')
  assert.equal(readFileSync(join(dir, 'b.txt'), 'utf8'), 'x')
})

test('max_snapshots bounds the history; unchanged directories take no new snapshot; .env is never copied', async (t) => {
  const k = await kernel({ config: { checkpoints: { max_snapshots: 3 } } })
  t.after(() => k.close())
  const dir = makeTempHome('agent-ckpt-prune-')
  t.after(() => execFileSync('rm', ['-rf', dir]))
  writeFileSync(join(dir, '.env'), 'SECRET_TOKEN=abc\n')
  const session = { id: 's-prune', cwd: dir }
  for (let i = 0; i < 9; i++) await k.call('test_write_file', { path: 'n.txt', content: String(i) }, session)
  const numbered = async () => (await k.rollback('', 's-prune')).split('\n').filter((l) => /^\s+\d+\./.test(l))
  const lines = await numbered()
  assert.ok(lines.length >= 3 && lines.length <= 4, lines.join('\n'))
  await k.call('test_write_file', { path: 'n.txt', content: '8' }, session) // snapshots the state '8'
  const count = (await numbered()).length
  await k.call('test_write_file', { path: 'n.txt', content: '8' }, session) // nothing changed since: no snapshot
  assert.equal((await numbered()).length, count)
  assert.match(await k.rollback('2', 's-prune'), /^Restored/)
  assert.equal(readFileSync(join(dir, 'n.txt'), 'utf8'), '7')
  const gitDir = join(k.home, 'checkpoints', k.shadowRepos()[0]!)
  const files = execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' })
  assert.doesNotMatch(files, /\.env/)
})

/** The paths the newest snapshot holds. */
function snapshotFiles(agentHome: string, repo: string): string[] {
  const gitDir = join(agentHome, 'checkpoints', repo)
  return execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', 'main'], { encoding: 'utf8' }).trim().split('\n').filter(Boolean).sort()
}

/** A project folder with ignored files and the agent's home (holding a state.db) inside it. */
function projectWithHomeInside(t: { after(fn: () => void): void }, prefix: string) {
  const dir = realpathSync(makeTempHome(prefix))
  t.after(() => execFileSync('rm', ['-rf', dir]))
  const home = join(dir, '.agent-home')
  mkdirSync(home)
  writeFileSync(join(home, 'state.db'), 'the agent state')
  mkdirSync(join(dir, 'src'))
  writeFileSync(join(dir, 'src', 'app.ts'), 'kept\n')
  mkdirSync(join(dir, 'build'))
  writeFileSync(join(dir, 'build', 'bundle.js'), 'generated\n')
  writeFileSync(join(dir, 'debug.log'), 'noise\n')
  writeFileSync(join(dir, 'notes.md'), 'kept too\n')
  writeFileSync(join(dir, '.gitignore'), 'build/\n*.log\n')
  return { dir, home }
}

test('in a git work tree the project’s ignore rules apply (info/exclude too) and the agent home is never copied', async (t) => {
  const { dir, home } = projectWithHomeInside(t, 'agent-ckpt-ignore-')
  git(dir, 'init', '-q')
  writeFileSync(join(dir, '.git', 'info', 'exclude'), 'private.txt\n')
  writeFileSync(join(dir, 'private.txt'), 'excluded by the project only\n')
  // A tracked file that the project ignores stays: the project itself keeps it.
  writeFileSync(join(dir, 'tracked.log'), 'committed before the rule\n')
  git(dir, 'add', '-f', 'tracked.log')
  const k = await kernel({ home })
  t.after(() => k.close())
  const session = { id: 's-ignore', cwd: dir }
  await k.call('test_write_file', { path: 'notes.md', content: 'edited\n' }, session)
  assert.deepEqual(snapshotFiles(home, k.shadowRepos()[0]!), ['.gitignore', 'notes.md', 'src/app.ts', 'tracked.log'])
  // A file that became ignored, and one deleted, leave the next snapshot; a new one enters it.
  writeFileSync(join(dir, '.gitignore'), 'build/\n*.log\nnotes.md\n')
  rmSync(join(dir, 'src', 'app.ts'))
  writeFileSync(join(dir, 'new.txt'), 'new\n')
  await k.call('test_write_file', { path: 'other.txt', content: 'x' }, session)
  assert.deepEqual(snapshotFiles(home, k.shadowRepos()[0]!), ['.gitignore', 'new.txt', 'tracked.log'])
  assert.match(await k.rollback('2', 's-ignore'), /^Restored/)
  assert.equal(readFileSync(join(dir, 'src', 'app.ts'), 'utf8'), 'kept\n')
  assert.equal(readFileSync(join(home, 'state.db'), 'utf8'), 'the agent state', 'a rollback leaves the agent home alone')
})

test('outside a git work tree the folder’s .gitignore applies and the agent home (reached through a symlink) is left out', async (t) => {
  const { dir, home } = projectWithHomeInside(t, 'agent-ckpt-plain-')
  // The agent's home named through a symlink outside the folder: compared by real path.
  const outside = realpathSync(makeTempHome('agent-ckpt-link-'))
  t.after(() => execFileSync('rm', ['-rf', outside]))
  const link = join(outside, 'home-link')
  symlinkSync(home, link)
  const k = await kernel({ home: link })
  t.after(() => k.close())
  await k.call('test_write_file', { path: 'notes.md', content: 'edited\n' }, { id: 's-plain', cwd: dir })
  assert.deepEqual(snapshotFiles(home, k.shadowRepos()[0]!), ['.gitignore', 'notes.md', 'src/app.ts'])
})

test('a working directory inside the agent home is not checkpointed; a look-alike sibling is', async (t) => {
  const k = await kernel()
  t.after(() => k.close())
  const inside = join(k.home, 'workspace')
  mkdirSync(inside)
  assert.equal(await k.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's-in', cwd: inside }), 'ok')
  assert.deepEqual(k.shadowRepos(), [])
  const sibling = `${k.home}-sibling`
  mkdirSync(sibling)
  t.after(() => execFileSync('rm', ['-rf', sibling]))
  await k.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's-out', cwd: sibling })
  assert.equal(k.shadowRepos().length, 1)
})

test('a snapshot at or above report_slower_than is reported on the tool’s status with its file count; below it, nothing is', async (t) => {
  const dir = realpathSync(makeTempHome('agent-ckpt-cost-'))
  t.after(() => execFileSync('rm', ['-rf', dir]))
  git(dir, 'init', '-q')
  writeFileSync(join(dir, 'a.txt'), 'a\n')
  writeFileSync(join(dir, 'b.txt'), 'b\n')
  const always = await kernel({ config: { checkpoints: { report_slower_than: 0 } } })
  t.after(() => always.close())
  const lines: string[] = []
  await always.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's-cost', cwd: dir, progress: (line) => lines.push(line) })
  assert.equal(lines.length, 1, lines.join('\n'))
  assert.match(lines[0]!, new RegExp(`^checkpoint of ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} took \\d+\\.\\d s, 2 files `))
  // Far below the threshold: nothing (no timing assumed: the threshold is ten minutes).
  const quiet = await kernel({ config: { checkpoints: { report_slower_than: 600 } } })
  t.after(() => quiet.close())
  const none: string[] = []
  await quiet.call('test_write_file', { path: 'b.txt', content: 'y' }, { id: 's-quiet', cwd: dir, progress: (line) => none.push(line) })
  assert.deepEqual(none, [])
})

// A known secret (a secret-named variable of the environment); its first characters are what a
// cut-then-redact order would leave behind.
const SECRET = 'Zq7vKp3mWx9rTb2nLc8dHf4g'

test('a known secret in a command or a file name is redacted in the commit message, the reflog and /rollback (before the 80-character cut); other text stays', async (t) => {
  const k = await kernel({ env: { DEPLOY_TOKEN: SECRET } })
  t.after(() => k.close())
  const dir = realpathSync(makeTempHome('agent-ckpt-secret-'))
  t.after(() => execFileSync('rm', ['-rf', dir]))
  writeFileSync(join(dir, 'app.txt'), 'a\n')
  const session = { id: 's-secret', cwd: dir }
  // The secret straddles the cut: `echo ` and 70 x's and a space put it at characters 76 to 100.
  await k.call('terminal', { command: `echo ${'x'.repeat(70)} ${SECRET} > out.txt` }, session)
  await k.call('test_write_file', { path: `${SECRET}.txt`, content: 'named after the secret\n' }, session)
  // Deep enough that a stat of the usual width would shorten the path to `…/<end of the secret>.txt`.
  mkdirSync(join(dir, 'a-rather-long-folder-name', 'and-another-long-folder-name'), { recursive: true })
  writeFileSync(join(dir, 'a-rather-long-folder-name', 'and-another-long-folder-name', `${SECRET}.txt`), 'deep\n')
  await k.call('terminal', { command: 'echo harmless-value > out.txt' }, session)
  const gitDir = join(k.home, 'checkpoints', k.shadowRepos()[0]!)
  const list = await k.rollback('', 's-secret')
  const recorded = [readFileSync(join(gitDir, 'COMMIT_EDITMSG'), 'utf8'), readFileSync(join(gitDir, 'logs', 'HEAD'), 'utf8'), execFileSync('git', ['--git-dir', gitDir, 'log', '--format=%B', 'main'], { encoding: 'utf8' }), list]
  for (const text of recorded) assert.doesNotMatch(text, new RegExp(SECRET.slice(0, 4)), text)
  assert.match(list, /before terminal: echo x{70} \[RED\n/)
  assert.match(list, /before test_write_file: \[REDACTED:DEPLOY_TOKEN\]\.txt/)
  assert.match(list, /1\. .*before terminal: echo harmless-value > out\.txt/)
  // The file named after the secret is in a snapshot; what /rollback shows of it is redacted.
  const diff = await k.rollback('diff 3', 's-secret')
  assert.match(diff, /^ ?\[REDACTED:DEPLOY_TOKEN\]\.txt /m)
  assert.match(diff, /^ a-rather-long-folder-name\/and-another-long-folder-name\/\[REDACTED:DEPLOY_TOKEN\]\.txt /m)
  assert.match(diff, /out\.txt/)
  assert.doesNotMatch(diff, new RegExp(SECRET.slice(-6)))
})

test('env files in their usual spellings are never snapshotted (a git work tree or not); look-alike names are', async (t) => {
  const envFiles = ['.env', '.env.local', '.env-production', '.envrc', 'prod.env', 'secrets.env']
  const lookAlikes = ['.environment', 'env.txt', 'prod.env.example', 'environment.ts']
  for (const inGit of [false, true]) {
    const k = await kernel()
    t.after(() => k.close())
    const dir = realpathSync(makeTempHome('agent-ckpt-envfiles-'))
    t.after(() => execFileSync('rm', ['-rf', dir]))
    if (inGit) git(dir, 'init', '-q')
    mkdirSync(join(dir, 'deploy'))
    for (const name of [...envFiles, ...lookAlikes]) {
      writeFileSync(join(dir, name), 'SECRET_TOKEN=abc\n')
      writeFileSync(join(dir, 'deploy', name), 'SECRET_TOKEN=abc\n')
    }
    await k.call('test_write_file', { path: 'a.txt', content: 'x' }, { id: 's-env', cwd: dir })
    const expected = [...lookAlikes, ...lookAlikes.map((n) => `deploy/${n}`)].sort()
    assert.deepEqual(snapshotFiles(k.home, k.shadowRepos()[0]!), expected, inGit ? 'in a git work tree' : 'outside one')
  }
})

/**
 * A nested repository (with a commit) at `<dir>/<name>` whose core.fsmonitor is a script that
 * creates `marker`: any git that enters it (a `git status` there) runs the script.
 */
function armedNestedRepo(dir: string, name: string, marker: string): string {
  const sub = join(dir, name)
  mkdirSync(sub, { recursive: true })
  git(sub, 'init', '-q')
  writeFileSync(join(sub, 'inner.txt'), 'inner\n')
  git(sub, 'add', 'inner.txt')
  git(sub, 'commit', '-qm', 'inner')
  const script = join(dirname(marker), 'fsmonitor.sh')
  writeFileSync(script, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 })
  git(sub, 'config', 'core.fsmonitor', script)
  // Armed: the repository's own git runs it.
  git(sub, 'status', '--porcelain')
  assert.ok(existsSync(marker), 'the fsmonitor script runs for a git inside the nested repository')
  rmSync(marker)
  return sub
}

test('a nested repository’s core.fsmonitor never runs: it is never staged (nor entered); an ordinary folder beside it is snapshotted and restored', async (t) => {
  for (const inGit of [false, true]) {
    const k = await kernel()
    t.after(() => k.close())
    const dir = realpathSync(makeTempHome('agent-ckpt-nested-'))
    const outside = realpathSync(makeTempHome('agent-ckpt-marker-'))
    t.after(() => execFileSync('rm', ['-rf', dir, outside]))
    const marker = join(outside, 'PWNED')
    if (inGit) git(dir, 'init', '-q')
    armedNestedRepo(dir, 'sub', marker)
    // Skipped too: a nested `git init` without a commit, and one reached through a `.git` file.
    mkdirSync(join(dir, 'deep', 'unborn'), { recursive: true })
    git(join(dir, 'deep', 'unborn'), 'init', '-q')
    writeFileSync(join(dir, 'deep', 'unborn', 'u.txt'), 'unborn\n')
    mkdirSync(join(dir, 'linked'))
    writeFileSync(join(dir, 'linked', '.git'), `gitdir: ${join(dir, 'sub', '.git')}\n`)
    writeFileSync(join(dir, 'linked', 'l.txt'), 'linked\n')
    // The look-alike: an ordinary folder (a `.github` folder and a stray empty `.git` folder in it).
    mkdirSync(join(dir, 'plain', '.github'), { recursive: true })
    mkdirSync(join(dir, 'plain', 'stray', '.git'), { recursive: true })
    writeFileSync(join(dir, 'plain', 'p.txt'), 'original\n')
    writeFileSync(join(dir, 'plain', '.github', 'ci.yml'), 'ci\n')
    writeFileSync(join(dir, 'plain', 'stray', 's.txt'), 'stray\n')
    const session = { id: 's-nested', cwd: dir }
    const where = inGit ? 'in a git work tree' : 'outside one'
    await k.call('test_write_file', { path: 'a.txt', content: 'a' }, session)
    writeFileSync(join(dir, 'plain', 'p.txt'), 'edited\n')
    writeFileSync(join(dir, 'sub', 'inner.txt'), 'changed inside the nested repository\n')
    await k.call('test_write_file', { path: 'b.txt', content: 'b' }, session)
    await k.call('test_write_file', { path: 'c.txt', content: 'c' }, session)
    assert.ok(!existsSync(marker), `no checkpoint git runs the nested repository's fsmonitor (${where})`)
    assert.deepEqual(snapshotFiles(k.home, k.shadowRepos()[0]!), ['a.txt', 'b.txt', 'plain/.github/ci.yml', 'plain/p.txt', 'plain/stray/s.txt'], where)
    const gitDir = join(k.home, 'checkpoints', k.shadowRepos()[0]!)
    assert.doesNotMatch(execFileSync('git', ['--git-dir', gitDir, 'ls-tree', '-r', 'main'], { encoding: 'utf8' }), /^160000 /m, 'no gitlink')
    // Checkpoint 3 (before a.txt was written) holds the original plain/p.txt.
    assert.match(await k.rollback('3', 's-nested'), /^Restored/)
    assert.equal(readFileSync(join(dir, 'plain', 'p.txt'), 'utf8'), 'original\n', where)
    assert.equal(readFileSync(join(dir, 'plain', '.github', 'ci.yml'), 'utf8'), 'ci\n', where)
    assert.equal(readFileSync(join(dir, 'deep', 'unborn', 'u.txt'), 'utf8'), 'unborn\n', 'a skipped folder is left alone')
    assert.ok(!existsSync(join(dir, 'a.txt')), where)
    assert.equal(readFileSync(join(dir, 'sub', 'inner.txt'), 'utf8'), 'changed inside the nested repository\n', 'a rollback leaves the nested repository alone')
    await k.rollback('diff 1', 's-nested')
    assert.ok(!existsSync(marker), `nor does /rollback (${where})`)
  }
})

test('a gitlink an older version staged is dropped at the next checkpoint without entering the repository', async (t) => {
  const k = await kernel()
  t.after(() => k.close())
  const dir = realpathSync(makeTempHome('agent-ckpt-gitlink-'))
  const outside = realpathSync(makeTempHome('agent-ckpt-marker-'))
  t.after(() => execFileSync('rm', ['-rf', dir, outside]))
  const marker = join(outside, 'PWNED')
  const session = { id: 's-gitlink', cwd: dir }
  await k.call('test_write_file', { path: 'a.txt', content: 'a' }, session)
  const sub = armedNestedRepo(dir, 'sub', marker)
  // What `git add --all` used to stage: the nested repository as a gitlink, in index and snapshot.
  const gitDir = join(k.home, 'checkpoints', k.shadowRepos()[0]!)
  const shadow = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, '--work-tree', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'u', GIT_AUTHOR_EMAIL: 'u@x', GIT_COMMITTER_NAME: 'u', GIT_COMMITTER_EMAIL: 'u@x' } })
  shadow('update-index', '--add', '--cacheinfo', `160000,${git(sub, 'rev-parse', 'HEAD')},sub`)
  shadow('commit', '-qm', 'old snapshot with a gitlink')
  writeFileSync(join(sub, 'inner.txt'), 'dirty\n')
  await k.call('test_write_file', { path: 'b.txt', content: 'b' }, session)
  await k.call('test_write_file', { path: 'c.txt', content: 'c' }, session)
  assert.ok(!existsSync(marker))
  assert.deepEqual(snapshotFiles(k.home, k.shadowRepos()[0]!), ['a.txt', 'b.txt'])
  // Restoring the old snapshot that holds the gitlink does not enter the repository either.
  assert.match(await k.rollback('3', 's-gitlink'), /^Restored/)
  assert.ok(!existsSync(marker))
  assert.equal(readFileSync(join(sub, 'inner.txt'), 'utf8'), 'dirty\n')
})

test('a file that becomes a folder, and back, is snapshotted and restored each way (a git work tree or not)', async (t) => {
  for (const inGit of [false, true]) {
    const k = await kernel()
    t.after(() => k.close())
    const dir = realpathSync(makeTempHome('agent-ckpt-df-'))
    t.after(() => execFileSync('rm', ['-rf', dir]))
    if (inGit) git(dir, 'init', '-q')
    const session = { id: 's-df', cwd: dir }
    writeFileSync(join(dir, 'a'), 'a file\n')
    await k.call('test_write_file', { path: 'x.txt', content: '1' }, session)
    rmSync(join(dir, 'a'))
    mkdirSync(join(dir, 'a'))
    writeFileSync(join(dir, 'a', 'inner'), 'in a folder\n')
    await k.call('test_write_file', { path: 'x.txt', content: '2' }, session)
    rmSync(join(dir, 'a'), { recursive: true })
    writeFileSync(join(dir, 'a'), 'a file again\n')
    await k.call('test_write_file', { path: 'x.txt', content: '3' }, session)
    assert.deepEqual(snapshotFiles(k.home, k.shadowRepos()[0]!), ['a', 'x.txt'])
    assert.match(await k.rollback('2', 's-df'), /^Restored/)
    assert.equal(readFileSync(join(dir, 'a', 'inner'), 'utf8'), 'in a folder\n')
  }
})
