// File writes to protected real paths go through the approval flow: refused with no one to ask,
// written after approval, grants per area and per call (an allowlist entry with the retired bare key
// opens nothing), and the file tool itself refusing a protected write that the guard did not
// approve (a link swapped after the check).
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { realPath, type ApprovalChoice, type ApprovalRequest, type ToolSession } from 'agent/sdk'
import { tempDir } from '../../helpers/temp.ts'
import { approvalsKernel } from './harness.ts'

async function fixture(t: TestContext, approvals: Record<string, unknown> = {}) {
  const root = realPath(tempDir(t, 'agent-fguard-'))
  const home = join(root, 'home')
  const work = join(root, 'work')
  mkdirSync(join(home, '.ssh'), { recursive: true })
  mkdirSync(work)
  // The classifier reads the user's home from HOME: a temporary one, restored after the test.
  const saved = process.env.HOME
  process.env.HOME = home
  t.after(() => (saved === undefined ? delete process.env.HOME : (process.env.HOME = saved)))
  symlinkSync(join(home, '.ssh'), join(work, 'keys'))
  const k = await approvalsKernel({ builtins: ['tools-file'], config: { approvals } })
  t.after(() => k.close())
  const asked: ApprovalRequest[] = []
  const session = (answer?: ApprovalChoice): ToolSession => ({
    id: 's1',
    cwd: work,
    source: { platform: 'cli' },
    extra: answer ? { approvalPrompt: async (request: ApprovalRequest) => (asked.push(request), answer) } : {},
  })
  return { ...k, home, work, agentHome: k.home, asked, session }
}

test('a write through a link into ~/.ssh is refused with no one to ask', async (t) => {
  const { runTool, home, session } = await fixture(t)
  const out = await runTool('write_file', { path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }, session())
  assert.match(String(out.blocked), /did not approve.*protected path: .*\.ssh\/authorized_keys/)
  assert.match(String(out.blocked), /no interactive terminal/)
  assert.equal(existsSync(join(home, '.ssh', 'authorized_keys')), false)
})

test('after approval the protected write lands at the real path; the person saw that path and the text', async (t) => {
  const { runTool, home, session, asked } = await fixture(t)
  const out = await runTool('write_file', { path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA mine\n' }, session('once'))
  assert.match(String(out.result), /^Created keys\/authorized_keys/)
  assert.equal(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8'), 'ssh-ed25519 AAAA mine\n')
  assert.equal(asked.length, 1)
  assert.match(asked[0]!.command, new RegExp(`^write_file ${join(home, '.ssh', 'authorized_keys')}\nssh-ed25519 AAAA mine`))
  assert.deepEqual(asked[0]!.findings.map((f) => f.key), ['protected-path-write:~/.ssh'])
  // `once` is once: the next protected write asks again (and is refused without a prompt).
  const again = await runTool('patch', { path: 'keys/authorized_keys', old_string: 'mine', new_string: 'theirs' }, session())
  assert.match(String(again.blocked), /did not approve/)
  assert.equal(readFileSync(join(home, '.ssh', 'authorized_keys'), 'utf8'), 'ssh-ed25519 AAAA mine\n')
})

test('a session grant covers its place only: ~/.bashrc approved opens neither ~/.ssh nor the agent home', async (t) => {
  const { runTool, home, agentHome, session, asked } = await fixture(t)
  assert.ok((await runTool('write_file', { path: join(home, '.bashrc'), content: 'alias ll=ls\n' }, session('session'))).result)
  assert.ok((await runTool('patch', { path: '~/.bashrc', old_string: 'll', new_string: 'la' }, session())).result, 'granted for the session')
  const keys = await runTool('write_file', { path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }, session())
  assert.match(String(keys.blocked), /did not approve.*authorized_keys/)
  const code = await runTool('write_file', { path: join(agentHome, 'extensions', 'x', 'index.ts'), content: 'export default {}' }, session())
  assert.match(String(code.blocked), /did not approve.*inside the agent's home/)
  assert.equal(existsSync(join(agentHome, 'extensions', 'x', 'index.ts')), false)
  assert.equal(existsSync(join(home, '.ssh', 'authorized_keys')), false)
  assert.deepEqual(asked.map((r) => r.findings[0]!.key), ['protected-path-write:~/.bashrc'])
})

test("`always` for a write in the agent home is kept for the session only, and opens no other entry of it", async (t) => {
  const { runTool, agentHome, session, asked } = await fixture(t)
  const notes = await runTool('write_file', { path: join(agentHome, 'notes.md'), content: 'mine\n' }, session('always'))
  assert.match(String(notes.result), /^Created/)
  assert.deepEqual(asked.map((r) => r.findings[0]!.key), ['agent-home-write:notes.md'])
  const config = existsSync(join(agentHome, 'config.yaml')) ? readFileSync(join(agentHome, 'config.yaml'), 'utf8') : ''
  assert.doesNotMatch(config, /agent-home-write/, 'not saved: a saved grant would also hold in unattended runs')
  // The same session writes notes.md again without asking; extensions/ is asked (and refused here).
  assert.match(String((await runTool('patch', { path: join(agentHome, 'notes.md'), old_string: 'mine', new_string: 'ours' }, session())).result), /^Patched/)
  const code = await runTool('write_file', { path: join(agentHome, 'extensions', 'evil', 'index.ts'), content: 'export default {}' }, session())
  assert.match(String(code.blocked), /did not approve/)
  assert.equal(existsSync(join(agentHome, 'extensions', 'evil')), false)
  // A protected place outside the agent home is still saved by `always` (look-alike).
  await runTool('write_file', { path: '~/.gitconfig', content: '[user]\n\tname = me\n' }, session('always'))
  assert.match(readFileSync(join(agentHome, 'config.yaml'), 'utf8'), /protected-path-write:~\/\.gitconfig/)
})

test('grant keys: one per protected place; secret files apart from the protected ones beside them', async (t) => {
  const { home, agentHome } = await fixture(t)
  const { grantKey } = await import('../../../extensions/approvals/file-guard.ts')
  const { pathClassifier } = await import('agent/sdk')
  const classifier = pathClassifier({ agentHome })
  const key = (path: string) => grantKey(classifier.real(path), agentHome)
  assert.equal(key(join(agentHome, 'config.yaml')), 'agent-home-write:config.yaml')
  assert.equal(key(join(agentHome, 'extensions', 'x', 'index.ts')), 'agent-home-write:extensions')
  assert.equal(key(join(agentHome, 'notes.md')), 'agent-home-write:notes.md')
  assert.equal(key(join(agentHome, '.env')), `secret-path-write:${agentHome.replace(home, '~')}`)
  assert.equal(key(join(home, '.ssh', 'authorized_keys')), 'protected-path-write:~/.ssh')
  assert.equal(key(join(home, '.ssh', 'id_ed25519')), 'secret-path-write:~/.ssh')
  assert.equal(key(join(home, '.gitconfig')), 'protected-path-write:~/.gitconfig')
  assert.equal(key('/etc/hosts'), 'protected-path-write:/etc')
  assert.equal(key(join(home, 'a', '.git', 'hooks', 'pre-commit')), 'protected-path-write:~/a/.git')
  assert.equal(key(join(home, 'b', '.git', 'config')), 'protected-path-write:~/b/.git')
  assert.equal(key(join(home, 'a', '.agent', 'config.yaml')), 'protected-path-write:~/a/.agent')
})

test('ordinary writes, and links that stay in the workspace, need no approval', async (t) => {
  const { runTool, work, session, asked } = await fixture(t)
  mkdirSync(join(work, 'src'))
  symlinkSync(join(work, 'src'), join(work, 'lib'))
  assert.match(String((await runTool('write_file', { path: 'lib/a.ts', content: 'x' }, session())).result), /^Created lib\/a\.ts/)
  assert.equal(readFileSync(join(work, 'src', 'a.ts'), 'utf8'), 'x')
  assert.match(String((await runTool('patch', { path: 'src/a.ts', old_string: 'x', new_string: 'y' }, session())).result), /^Patched/)
  assert.match(String((await runTool('write_file', { path: '.bashrc', content: 'local look-alike' }, session())).result), /^Created/)
  assert.equal(asked.length, 0)
})

test('smart mode does not let the judge approve a file write: a person is asked', async (t) => {
  const { runTool, home, session, asked } = await fixture(t, { mode: 'smart' })
  assert.ok((await runTool('write_file', { path: join(home, '.zshrc'), content: 'x' }, session('once'))).result)
  assert.equal(asked.length, 1)
})

test('mode off lets protected writes through (only the never-allowed commands stay blocked)', async (t) => {
  const { runTool, home, session } = await fixture(t, { mode: 'off' })
  assert.ok((await runTool('write_file', { path: 'keys/config', content: 'Host x\n' }, session())).result)
  assert.equal(readFileSync(join(home, '.ssh', 'config'), 'utf8'), 'Host x\n')
})

test('the tool refuses a protected write the guard did not approve (a link re-pointed after the check)', async (t) => {
  const { kernel, home, work, session } = await fixture(t)
  mkdirSync(join(work, 'out'))
  symlinkSync(join(work, 'out'), join(work, 'dest'))
  const input = { path: 'dest/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }
  const event = { tool: 'write_file', toolset: 'file', callId: 'race', input, session: session(), modifiesFiles: true }
  assert.equal(await kernel.hooks.beforeToolCall.promise(event), undefined, 'an ordinary path passes the guard')
  rmSync(join(work, 'dest'))
  symlinkSync(join(home, '.ssh'), join(work, 'dest'))
  const tool = kernel.registries.tools.get('write_file')!
  await assert.rejects(tool.execute({ input, callId: 'race', signal: new AbortController().signal, session: event.session }), /refused without approval: .*authorized_keys/)
  assert.equal(existsSync(join(home, '.ssh', 'authorized_keys')), false)
})

test('the text a person reviews cannot restyle the prompt: control and bidi characters are shown as escapes', async (t) => {
  const { runTool, home, session, asked } = await fixture(t)
  await runTool('write_file', { path: join(home, '.bashrc'), content: 'ok\x1b[2K\r\u202eevil' }, session('deny'))
  assert.equal(asked.length, 1)
  assert.match(asked[0]!.command, /\nok\\u\{1b\}\[2K\\u\{d\}\\u\{202e\}evil$/)
  assert.equal(existsSync(join(home, '.bashrc')), false)
})

test('unattended surfaces (API server, cron, webhook) have no one to ask: a protected write is refused', async (t) => {
  const { runTool, agentHome, work } = await fixture(t)
  const before = readFileSync(join(agentHome, 'config.yaml'), 'utf8')
  for (const platform of ['api_server', 'cron', 'webhook']) {
    const out = await runTool('write_file', { path: join(agentHome, 'config.yaml'), content: 'approvals:\n  mode: off\n' }, { id: `s-${platform}`, cwd: work, source: { platform, chatId: 'x' } })
    assert.match(String(out.blocked), new RegExp(`did not approve.*no one to ask on ${platform}`), platform)
  }
  assert.equal(readFileSync(join(agentHome, 'config.yaml'), 'utf8'), before)
})

test('an allowlist entry with a retired key (bare protected-path-write) is not widened: every place is still asked', async (t) => {
  const { runTool, home, session, asked, kernel } = await fixture(t, { allowlist: ['protected-path-write', 'secret-path-write'] })
  const keys = await runTool('write_file', { path: 'keys/authorized_keys', content: 'ssh-ed25519 AAAA attacker\n' }, session())
  assert.match(String(keys.blocked), /did not approve.*authorized_keys/)
  assert.ok((await runTool('write_file', { path: join(home, '.gitconfig'), content: '[user]\n' }, session('once'))).result)
  assert.deepEqual(asked.map((r) => r.findings[0]!.key), ['protected-path-write:~/.gitconfig'])
  assert.deepEqual(kernel.settings.get('approvals.allowlist'), ['protected-path-write', 'secret-path-write'], 'kept as written')
})

test('look-alike: a per-place allowlist entry opens that place only', async (t) => {
  const { runTool, home, session, asked } = await fixture(t, { allowlist: ['protected-path-write:~/.gitconfig'] })
  assert.ok((await runTool('write_file', { path: join(home, '.gitconfig'), content: '[user]\n' }, session())).result)
  assert.match(String((await runTool('write_file', { path: 'keys/authorized_keys', content: 'x\n' }, session())).blocked), /did not approve/)
  assert.equal(asked.length, 0)
})
