// sdk/protected-paths: real paths through links and `..`, and the secret / protected / ordinary
// classification, each refusal next to a harmless look-alike.
import assert from 'node:assert/strict'
import { linkSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { classifyPath, classifyRealPath, pathClassifier, realPath } from 'agent/sdk'
import { tempDir } from '../helpers/temp.ts'

function fixture(t: import('node:test').TestContext) {
  const root = realPath(tempDir(t, 'agent-ppaths-'))
  const home = join(root, 'home')
  const agentHome = join(home, '.agent')
  const work = join(root, 'work')
  for (const dir of [join(home, '.ssh'), join(agentHome, 'extensions'), join(work, 'src')]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(agentHome, '.env'), 'KEY=x\n')
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'private\n')
  return { root, home, agentHome, work, roots: { agentHome, home } }
}

test('realPath resolves links at every level, `..` after a link, and missing tails', (t) => {
  const { root, home, agentHome, work } = fixture(t)
  symlinkSync(agentHome, join(work, 'cfg'))
  assert.equal(realPath(join(work, 'cfg', '.env')), join(agentHome, '.env'))
  // `cfg/..` is the link target's parent, not `work`.
  assert.equal(realPath(`${work}/cfg/../.agent/.env`), join(agentHome, '.env'))
  assert.equal(realPath('cfg/../.agent/.env', work), join(agentHome, '.env'))
  assert.equal(realPath('cfg/extensions/new/index.ts', work), join(agentHome, 'extensions', 'new', 'index.ts'))
  assert.equal(realPath(`${work}/missing/../src`), join(work, 'src'))
  // A dangling link resolves to where a write through it lands.
  symlinkSync(join(root, 'home', '.ssh', 'authorized_keys'), join(work, 'keys'))
  assert.equal(realPath(join(work, 'keys')), join(root, 'home', '.ssh', 'authorized_keys'))
  // A dangling relative link whose text goes through another link: `..` applies after that link.
  symlinkSync(join(home, '.ssh'), join(work, 'ssh'))
  symlinkSync('ssh/../.agent/extensions/new.ts', join(work, 'plugin.ts'))
  assert.equal(realPath(join(work, 'plugin.ts')), join(agentHome, 'extensions', 'new.ts'))
  symlinkSync(join(work, 'loop-b'), join(work, 'loop-a'))
  symlinkSync(join(work, 'loop-a'), join(work, 'loop-b'))
  assert.throws(() => realPath(join(work, 'loop-a', 'x')), /too many symbolic links/)
})

test('secrets: agent .env and state.db, private SSH keys, credentials, /proc environ', (t) => {
  const { home, agentHome, work, roots } = fixture(t)
  symlinkSync(agentHome, join(work, 'cfg'))
  symlinkSync(join(home, '.ssh'), join(work, 'keys'))
  const kind = (p: string) => classifyRealPath(p, roots, work).kind
  assert.equal(kind('cfg/.env'), 'secret')
  assert.equal(kind(join(agentHome, 'state.db-wal')), 'secret')
  assert.equal(kind(join(agentHome, 'capability-token.secret')), 'secret')
  // The agent's credential stores: MCP OAuth tokens, the WhatsApp session keys; the MCP tool cache beside them is not secret.
  assert.equal(kind(join(agentHome, 'mcp', 'auth', 'demo.json')), 'secret')
  assert.equal(kind('cfg/whatsapp/auth/creds.json'), 'secret')
  assert.equal(kind(join(agentHome, 'mcp', 'tools', 'demo.json')), 'protected')
  assert.equal(kind(join(work, 'mcp', 'auth', 'demo.json')), 'ordinary')
  assert.equal(kind('keys/id_ed25519'), 'secret')
  assert.equal(kind(join(home, '.aws', 'credentials')), 'secret')
  assert.equal(kind(join(home, '.netrc')), 'secret')
  assert.equal(kind(join(home, '.config', 'gh', 'hosts.yml')), 'secret')
  if (process.platform === 'linux') {
    assert.equal(kind('/proc/self/environ'), 'secret')
    assert.equal(kind('/proc/thread-self/environ'), 'secret')
    assert.equal(classifyPath('/proc/1/task/1/environ', roots).kind, 'secret')
    assert.equal(kind('/proc/self/status'), 'protected')
  }
  assert.match(classifyRealPath('cfg/.env', roots, work).reason, /\.agent\/\.env holds the agent's secrets/)
  // Look-alikes: public SSH files, a project's .env.example, a workspace file named like a secret.
  assert.equal(kind('keys/id_ed25519.pub'), 'protected')
  assert.equal(kind('keys/known_hosts'), 'protected')
  assert.equal(kind('.env.example'), 'ordinary')
  assert.equal(kind('.env'), 'ordinary')
  assert.equal(kind('state.db'), 'ordinary')
})

test("a hard link to a file of the agent's credential stores is secret", (t) => {
  const { agentHome, work, roots } = fixture(t)
  mkdirSync(join(agentHome, 'mcp', 'auth'), { recursive: true })
  writeFileSync(join(agentHome, 'mcp', 'auth', 'demo.json'), '{"tokens":{}}\n')
  linkSync(join(agentHome, 'mcp', 'auth', 'demo.json'), join(work, 'copy.json'))
  assert.match(pathClassifier(roots).hardLinkedSecret(join(work, 'copy.json'))?.reason ?? '', /a hard link\) of .*mcp\/auth\/demo\.json/)
})

test('protected: all of the agent home, ~/.ssh, shell start-up files, /etc; workspace ordinary', (t) => {
  const { home, agentHome, work, roots } = fixture(t)
  const classifier = pathClassifier(roots)
  for (const p of [join(agentHome, 'config.yaml'), join(agentHome, 'extensions', 'x', 'index.ts'), join(agentHome, 'plugins'), join(agentHome, 'skills', 's', 'SKILL.md'), agentHome, join(home, '.ssh', 'authorized_keys'), join(home, '.bashrc'), join(home, '.zshenv'), join(home, '.config', 'fish', 'config.fish'), join(home, '.gitconfig'), '/etc/passwd']) {
    assert.equal(classifier.real(p).kind, 'protected', p)
  }
  for (const p of [join(work, 'src', 'a.ts'), join(work, '.bashrc'), join(home, 'project', 'config.yaml'), join(home, '.agent-notes'), join(home, '.sshx', 'a')]) {
    assert.equal(classifier.real(p).kind, 'ordinary', p)
  }
  // A link inside the workspace that stays inside is harmless.
  symlinkSync(join(work, 'src'), join(work, 'lib'))
  assert.equal(classifier.real('lib/a.ts', work).path, join(work, 'src', 'a.ts'))
  assert.equal(classifier.real('lib/a.ts', work).kind, 'ordinary')
})

test('lexical classification: ~ expansion and `..` as text, relative paths refused', (t) => {
  const { home, roots } = fixture(t)
  assert.equal(classifyPath('~/.ssh/id_rsa', roots).kind, 'secret')
  assert.equal(classifyPath('~/.ssh/id_rsa.pub', roots).kind, 'protected')
  assert.equal(classifyPath(join(home, 'project', '..', '.agent', '.env'), roots).kind, 'secret')
  assert.equal(classifyPath('~/.bashrc', roots).kind, 'protected')
  assert.equal(classifyPath('~/notes.txt', roots).kind, 'ordinary')
  assert.equal(classifyPath('/etc/hosts', roots).kind, 'protected')
  assert.throws(() => classifyPath('.env', roots), /absolute path/)
})

test('case-insensitive volumes compare folded (lexical on darwin and win32)', { skip: process.platform !== 'darwin' && process.platform !== 'win32' }, (t) => {
  const { agentHome, roots } = fixture(t)
  assert.equal(classifyPath(join(agentHome, '.ENV'), roots).kind, 'secret')
  assert.equal(classifyPath(join(agentHome.toUpperCase(), 'config.yaml'), roots).kind, 'protected')
})

test('realPath: a missing folder then `..` climbs back through the links that exist', (t) => {
  const { agentHome, work, roots } = fixture(t)
  symlinkSync(agentHome, join(work, 'cfg'))
  // mkdir -p of `nope` and a write to `nope/../cfg/.env` land in the agent home.
  assert.equal(realPath('nope/../cfg/.env', work), join(agentHome, '.env'))
  assert.equal(classifyRealPath('nope/deeper/../../cfg/.env', roots, work).kind, 'secret')
  // Look-alike: the same climb to a real folder stays where it is.
  assert.equal(realPath('nope/../src/a.ts', work), join(work, 'src', 'a.ts'))
  assert.equal(realPath('nope/more/file.ts', work), join(work, 'nope', 'more', 'file.ts'))
})

test("protected: the agent's own code, a project's agent settings, git control files", (t) => {
  const { root, work, roots } = fixture(t)
  const code = join(root, 'install')
  mkdirSync(join(code, 'extensions', 'tools-file'), { recursive: true })
  const classifier = pathClassifier({ ...roots, agentCode: code })
  const protectedAs = (p: string) => {
    const found = classifier.real(p, work)
    return found.kind === 'ordinary' ? 'ordinary' : `${found.kind}:${found.area}`
  }
  assert.equal(protectedAs(join(code, 'extensions', 'tools-file', 'paths.ts')), 'protected:agent-home')
  assert.equal(protectedAs(join(code, 'node_modules', 'x', 'index.js')), 'protected:agent-home')
  assert.equal(protectedAs(join(root, 'installer', 'a.ts')), 'ordinary')
  // By default, the installation this sdk belongs to.
  const sdkFile = new URL(import.meta.resolve('agent/sdk'))
  assert.equal(pathClassifier(roots).real(sdkFile.pathname).kind, 'protected')
  for (const p of ['.agent/config.yaml', '.agent/extensions/evil/index.ts', '.agentrc', '.agentrc.json', 'agent.config.yaml', 'sub/.agent/skills/x/SKILL.md']) {
    assert.equal(protectedAs(p), 'protected:agent-home', p)
  }
  for (const p of ['.git/hooks/pre-commit', '.git/config', '.git', 'vendor/lib/.git/info/attributes']) {
    assert.equal(protectedAs(p), 'protected:repository', p)
  }
  // Look-alikes.
  for (const p of ['.agents/notes.md', 'agent.config.yaml.bak', 'docs/agent.md', '.gitignore', '.github/workflows/ci.yml', 'src/git/config', '.agentrc.d/x']) {
    assert.equal(protectedAs(p), 'ordinary', p)
  }
})

test('protected: more of the home that runs code; vendor CLI credentials are secret', (t) => {
  const { home, roots } = fixture(t)
  const classifier = pathClassifier(roots)
  for (const rel of ['.bash_aliases', '.bashrc.d/10-x.sh', '.local/lib/python3.12/site-packages/evil.pth', '.config/environment.d/x.conf', '.pam_environment', '.xprofile', '.vimrc', '.config/nvim/init.lua', '.tmux.conf', '.local/share/systemd/user/x.service', '.cargo/bin/cargo']) {
    assert.equal(classifier.real(join(home, rel)).kind, 'protected', rel)
  }
  assert.equal(classifier.real(join(home, '.claude', '.credentials.json')).kind, 'secret')
  for (const rel of ['bin/tool', '.vimrc.md', '.local/share/notes.txt', '.claude/settings.json']) {
    assert.equal(classifier.real(join(home, rel)).kind, 'ordinary', rel)
  }
})
