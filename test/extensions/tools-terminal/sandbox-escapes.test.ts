// Ways around the terminal sandbox an audit found, each refused now, each beside a look-alike that
// still works: kernel settings under /proc/sys, another working folder's settings and the hooks git
// really runs (from a subfolder, in a worktree), a persistent shell whose places changed under it,
// the agent's secret files, tmux's server running a command for a client, a container engine's
// socket, PATH folders.
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { pathFolders } from '../../../extensions/tools-terminal/sandbox-extra.ts'
import { sandboxNote } from '../../../extensions/tools-terminal/sandbox-notes.ts'
import { committedRepo, git, pathWithoutBwrap, sandboxSkip, session, tempDir, terminalKernel } from './helpers.ts'

const skip = sandboxSkip

test('sandbox: /proc/sys and /sys are read-only (a kernel setting written back unchanged is refused)', { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const s = session(realpathSync(tempDir(t)))
  const write = await k.call('terminal', { command: 'v=$(cat /proc/sys/kernel/core_pattern) && printf "%s\\n" "$v" > /proc/sys/kernel/core_pattern' }, s)
  assert.notEqual(write.exit_code, 0)
  assert.match(write.output, /Read-only file system/)
  const read = await k.call('terminal', { command: 'cat /proc/sys/kernel/ostype' }, s)
  assert.equal(read.output.trim(), 'Linux')
})

test("sandbox: the session folder's settings stay read-only for a command run in a subfolder", { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  mkdirSync(join(dir, 'sub'))
  mkdirSync(join(dir, '.agent'))
  writeFileSync(join(dir, '.agentrc.json'), '{}\n')
  const outcome = await k.call('terminal', { command: 'echo planted > ../.agentrc.json; echo planted > ../.agent/config.yaml; echo ok > here.txt', workdir: 'sub' }, session(dir))
  assert.equal(readFileSync(join(dir, '.agentrc.json'), 'utf8'), '{}\n')
  assert.ok(!existsSync(join(dir, '.agent', 'config.yaml')))
  assert.equal(readFileSync(join(dir, 'sub', 'here.txt'), 'utf8'), 'ok\n', outcome.output)
})

test('sandbox: the hooks git runs are read-only from a subfolder of the repository and in a worktree', { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const repo = committedRepo(t)
  mkdirSync(join(repo, 'pkg'))
  const tree = join(realpathSync(tempDir(t)), 'tree')
  git(repo, 'worktree', 'add', '-q', tree)
  const plant = 'h=$(git rev-parse --git-path hooks) && echo "touch pwned" > "$h/post-commit"; h=$(git rev-parse --git-common-dir)/hooks && echo "touch pwned" > "$h/post-checkout"; git status --short | wc -l'
  for (const cwd of [join(repo, 'pkg'), tree]) {
    const outcome = await k.call('terminal', { command: plant }, session(cwd))
    assert.match(outcome.output, /Read-only file system/, cwd)
    assert.equal(outcome.exit_code, 0, 'git itself still works')
  }
  assert.ok(!existsSync(join(repo, '.git', 'hooks', 'post-commit')) && !existsSync(join(repo, '.git', 'hooks', 'post-checkout')))
})

test('sandbox: a persistent shell whose protected file was replaced by a rename starts again, with the file read-only', { skip }, async (t) => {
  const k = await terminalKernel({ config: { terminal: { persistent_shell: true } } })
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  writeFileSync(join(dir, '.agentrc.json'), '{}\n')
  const s = session(dir)
  assert.notEqual((await k.call('terminal', { command: 'echo planted > .agentrc.json' }, s)).exit_code, 0)
  // An approved file-tool write replaces the file by a rename, which takes the old file's mount away.
  writeFileSync(join(dir, '.agentrc.json.tmp'), '{"approved": true}\n')
  renameSync(join(dir, '.agentrc.json.tmp'), join(dir, '.agentrc.json'))
  const again = await k.call('terminal', { command: 'echo planted > .agentrc.json' }, s)
  assert.notEqual(again.exit_code, 0)
  assert.match(again.note, /fresh sandboxed shell/)
  assert.equal(readFileSync(join(dir, '.agentrc.json'), 'utf8'), '{"approved": true}\n')
  // Unchanged places: the same shell (its variables) carries on.
  await k.call('terminal', { command: 'export KEPT=yes' }, s)
  assert.equal((await k.call('terminal', { command: 'echo $KEPT' }, s)).output.trim(), 'yes')
})

test("sandbox: the agent's secret files and credential folders cannot be read; its other files as they are", { skip }, async (t) => {
  const k = await terminalKernel({ dotenv: { DEPLOY_TOKEN: 'tok-sandbox-0123456789abcdef' } })
  t.after(() => k.close())
  writeFileSync(join(k.home, 'config.yaml'), 'model: {}\n')
  // The credential stores (MCP OAuth tokens) are folders: an empty one is mounted over each.
  for (const dir of ['auth', 'tools']) mkdirSync(join(k.home, 'mcp', dir), { recursive: true })
  writeFileSync(join(k.home, 'mcp', 'auth', 'demo.json'), '{"tokens":{"access_token":"mcp-oauth-token-sandbox"}}\n')
  writeFileSync(join(k.home, 'mcp', 'tools', 'demo.json'), '{"tools":"cached"}\n')
  // Base64, so the output's redaction cannot be what hides it.
  const command = `base64 < ${join(k.home, '.env')}; echo "read=$?"; cat ${join(k.home, 'config.yaml')}; ls ${join(k.home, 'mcp', 'auth')} | wc -l; cat ${join(k.home, 'mcp', 'tools', 'demo.json')}`
  const outcome = await k.call('terminal', { command }, session(realpathSync(tempDir(t))))
  assert.match(outcome.output, /^read=1$/m)
  assert.doesNotMatch(outcome.output, /REDACTED|DEPLOY|mcp-oauth/)
  assert.match(outcome.output, /^model: \{\}\n0\n\{"tools":"cached"\}$/m)
})

test("sandbox: tmux's default servers cannot be asked to run a command; tmux itself runs", { skip: skip || (spawnSync('tmux', ['-V']).status === 0 ? false : 'tmux is not installed') }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  const name = `sbx-${process.pid}-${Date.now()}`
  execFileSync('tmux', ['-L', name, 'new-session', '-d', 'sleep 60'])
  t.after(() => spawnSync('tmux', ['-L', name, 'kill-server']))
  const outcome = await k.call('terminal', { command: `tmux -L ${name} run-shell "touch ${join(dir, 'pwned')}"; tmux -V` }, session(dir))
  assert.match(outcome.output, /^tmux \d/m)
  assert.ok(!existsSync(join(dir, 'pwned')), outcome.output)
})

test("sandbox: a container engine's socket (root on the host) cannot be reached; another program's socket can", { skip }, async (t) => {
  const home = realpathSync(tempDir(t, 'agent-home-'))
  const engine = join(home, '.docker', 'run', 'docker.sock')
  const other = join(home, '.myapp', 'app.sock')
  const servers = [engine, other].map((path) => {
    mkdirSync(dirname(path), { recursive: true })
    const server = createServer((socket) => socket.end('hello\n'))
    server.listen(path)
    t.after(() => server.close())
    return once(server, 'listening')
  })
  await Promise.all(servers)
  const saved = process.env.HOME
  process.env.HOME = home
  t.after(() => void (process.env.HOME = saved))
  const k = await terminalKernel()
  t.after(() => k.close())
  const probe = `const s=require("net").connect(process.argv[1]);s.on("data",d=>console.log(process.argv[1],"answered",String(d).trim()));s.on("error",e=>console.log(process.argv[1],"refused",e.code))`
  const outcome = await k.call('terminal', { command: `node -e '${probe}' ${engine}; node -e '${probe}' ${other}` }, session(realpathSync(tempDir(t))))
  assert.match(outcome.output, new RegExp(`${engine} refused`), outcome.output)
  assert.match(outcome.output, new RegExp(`${other} answered hello`), outcome.output)
})

test('sandbox: no disk, memory or console device is there; null, random, shared memory, fd links and FUSE are', { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const host = readdirSync('/dev')
  const command = [
    'echo "blocks=$(find /dev -type b | wc -l)"',
    'for d in kmsg mem port console tty1 loop-control cpu_dma_latency input uinput watchdog; do [ -e /dev/$d ] && echo "present $d"; done',
    'echo gone > /dev/null && head -c 4 /dev/urandom | wc -c',
    'f=/dev/shm/agent-sbx-$$ && echo shm-ok > $f && cat $f && rm $f',
    'cat <(echo fd-ok)',
    '[ -e /dev/fuse ] && echo fuse-there',
  ].join('; ')
  const outcome = await k.call('terminal', { command }, session(realpathSync(tempDir(t))))
  assert.match(outcome.output, /^blocks=0$/m, outcome.output)
  assert.doesNotMatch(outcome.output, /present/)
  assert.match(outcome.output, /^4\nshm-ok\nfd-ok$/m)
  if (host.includes('fuse')) assert.match(outcome.output, /^fuse-there$/m)
})

test("sandbox: a refused command's note says why and how (the engine's socket, a read-only place); other failures get none", () => {
  assert.match(sandboxNote('Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?')!, /container engines.*outside_sandbox/)
  assert.match(sandboxNote('Error: dial unix /run/podman/podman.sock: connect: connection refused')!, /container engines/)
  assert.match(sandboxNote("touch: cannot touch '/home/u/.bashrc': Read-only file system")!, /protected places .* read-only/)
  assert.equal(sandboxNote('Error response from daemon: No such container: web'), undefined)
  assert.equal(sandboxNote('make: *** [all] Error 2'), undefined)
})

test('sandbox: a bwrap planted in a temp folder on PATH (where a sandboxed command can write) is never used', { skip }, async (t) => {
  const planted = join(realpathSync(tempDir(t, 'agent-planted-')), 'bin')
  mkdirSync(planted)
  const marker = join(planted, 'ran')
  writeFileSync(join(planted, 'bwrap'), `#!/bin/sh\ntouch ${marker}\nwhile [ "$1" != "--" ]; do shift; done; shift; exec "$@"\n`, { mode: 0o755 })
  const k = await terminalKernel({ env: { PATH: `${planted}:${process.env.PATH}` } })
  t.after(() => k.close())
  const outcome = await k.call('terminal', { command: `touch ${join(k.home, 'planted')}` }, session(realpathSync(tempDir(t))))
  assert.notEqual(outcome.exit_code, 0, 'the real sandbox refused the write')
  assert.ok(!existsSync(marker) && !existsSync(join(k.home, 'planted')))
})

test('sandbox: PATH folders are read-only unless a working or temp folder', () => {
  assert.deepEqual(pathFolders('/opt/tools/bin:relative/bin:/tmp/x/bin:/srv/ws/node_modules/.bin:/srv:/usr/bin', ['/srv/ws']), ['/opt/tools/bin', '/usr/bin'])
  // A service started in `/` (systemd's default): its working folder leaves every PATH folder read-only.
  assert.deepEqual(pathFolders('/opt/tools/bin:/usr/bin', ['/']), ['/opt/tools/bin', '/usr/bin'])
})
