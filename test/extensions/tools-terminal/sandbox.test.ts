// The terminal sandbox (bubblewrap): a command no judge looked at still cannot change a protected
// place, rename its folder away or reach the host through /proc; ordinary work (the working folder,
// git) runs as before; `outside_sandbox` is an approval finding, and a call a person approved runs
// outside. Skipped where bwrap cannot run (CI installs it).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { runAgent } from '../../helpers/agent-process.ts'
import { approvalsKernel } from '../approvals/harness.ts'
import { pathWithoutBwrap, sandboxSkip, session, tempDir, terminalKernel } from './helpers.ts'

const skip = sandboxSkip

test('sandbox: a write into the agent home is refused even unjudged; the same write in the working folder runs', { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  writeFileSync(join(k.home, 'config.yaml'), 'model: {}\n')
  const s = session(dir)
  const refused = await k.call('terminal', { command: `echo '# planted' >> ${join(k.home, 'config.yaml')}` }, s)
  assert.notEqual(refused.exit_code, 0)
  assert.match(refused.output, /Read-only file system/)
  assert.match(refused.note, /terminal sandbox.*outside_sandbox: true/)
  assert.equal(readFileSync(join(k.home, 'config.yaml'), 'utf8'), 'model: {}\n')
  // Look-alikes: the working folder is writable, the agent home readable.
  const ran = await k.call('terminal', { command: `echo ok > out.txt && cat ${join(k.home, 'config.yaml')}` }, s)
  assert.equal(ran.exit_code, 0)
  assert.equal(ran.note, undefined)
  assert.equal(readFileSync(join(dir, 'out.txt'), 'utf8'), 'ok\n')
})

test('sandbox: renaming a protected folder away, or its parent, and /proc/1/root are refused', { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  const s = session(dir)
  // Where a broken sandbox would have moved the home: removed whatever happens.
  t.after(() => rmSync(`${k.home}-moved`, { recursive: true, force: true }))
  const attempts = [
    `mv ${k.home} ${k.home}-moved`,
    `echo x > /proc/1/root${k.home}/planted`,
    `echo x > /proc/self/root${k.home}/planted`,
    // Taking the read-only mount away (bwrap run as root would leave CAP_SYS_ADMIN without --cap-drop).
    `umount ${k.home} ; mount -o remount,bind,rw ${k.home} ; touch ${k.home}/planted`,
    `unshare -m sh -c 'umount ${k.home}; touch ${k.home}/planted'`,
    `unshare -Urm sh -c 'umount ${k.home}; touch ${k.home}/planted'`,
  ]
  for (const command of attempts) {
    const outcome = await k.call('terminal', { command }, s)
    assert.notEqual(outcome.exit_code, 0, command)
    assert.ok(existsSync(k.home) && !existsSync(join(k.home, 'planted')), command)
  }
  // The sandbox's own processes only: the agent's process (and its environment) is not there.
  const ps = await k.call('terminal', { command: 'ls /proc | grep -c "^[0-9]"' }, s)
  assert.ok(Number(ps.output.trim()) < 10, ps.output)
  process.env.SANDBOX_PROBE = 'only-in-the-agent-process'
  t.after(() => delete process.env.SANDBOX_PROBE)
  const environ = await k.call('terminal', { command: `tr '\\0' '\\n' < /proc/$PPID/environ; cat /proc/[0-9]*/environ | tr '\\0' '\\n'` }, s)
  assert.match(environ.output, /^PATH=/m)
  assert.doesNotMatch(environ.output, /only-in-the-agent-process/)
})

test("sandbox: the working folder's git hooks are read-only, git itself works", { skip }, async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  execFileSync('git', ['init', '-q', dir])
  const s = session(dir)
  const commit = await k.call('terminal', { command: 'git -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m one && git log --oneline | wc -l' }, s)
  assert.equal(commit.exit_code, 0, commit.output)
  assert.equal(commit.output.trim(), '1')
  for (const command of ['echo "touch pwned" > .git/hooks/post-commit', 'mv .git/hooks .git/old-hooks', 'mv .git .git-old && mkdir -p .git/hooks']) {
    const outcome = await k.call('terminal', { command }, s)
    assert.notEqual(outcome.exit_code, 0, command)
  }
  assert.ok(existsSync(join(dir, '.git', 'HEAD')) && !existsSync(join(dir, '.git', 'hooks', 'post-commit')))
})

test('sandbox: background and persistent-shell commands run inside it too', { skip }, async (t) => {
  const k = await terminalKernel({ config: { terminal: { persistent_shell: true } } })
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  const s = session(dir)
  const persistent = await k.call('terminal', { command: `cd ${dir} && touch ${join(k.home, 'planted')}` }, s)
  assert.notEqual(persistent.exit_code, 0)
  const started = await k.call('terminal', { command: `touch ${join(k.home, 'planted-bg')}; echo done-bg`, background: true }, s)
  const waited = await k.call('process', { action: 'wait', process_id: started.process_id, timeout: 20 }, s)
  assert.match(JSON.stringify(waited), /Read-only file system/)
  assert.ok(!existsSync(join(k.home, 'planted')) && !existsSync(join(k.home, 'planted-bg')))
})

test('sandbox modes: "off" runs unconfined; "bwrap" without bwrap refuses to run; an unknown value is an error', async (t) => {
  const dir = realpathSync(tempDir(t))
  const off = await terminalKernel({ config: { terminal: { sandbox: 'off' } } })
  t.after(() => off.close())
  assert.equal((await off.call('terminal', { command: `touch ${join(off.home, 'allowed')}` }, session(dir))).exit_code, 0)
  assert.ok(existsSync(join(off.home, 'allowed')))

  const required = await terminalKernel({ config: { terminal: { sandbox: 'bwrap' } }, env: { PATH: pathWithoutBwrap(t) } })
  t.after(() => required.close())
  await assert.rejects(required.call('terminal', { command: `echo ran > ${join(dir, 'marker')}` }, session(dir)), /sandbox cannot run here \(bubblewrap \(bwrap\) is not installed\); the command was not run/)
  assert.ok(!existsSync(join(dir, 'marker')))

  const unknown = await terminalKernel({ env: { AGENT_TERMINAL_SANDBOX: 'maybe' } })
  t.after(() => unknown.close())
  await assert.rejects(unknown.call('terminal', { command: `echo ran > ${join(dir, 'marker')}` }, session(dir)), /AGENT_TERMINAL_SANDBOX must be one of auto, bwrap, off/)
  assert.ok(!existsSync(join(dir, 'marker')))
})

const chat = { platform: 'fakechat', chatId: 'room-sbx', userId: 'alice', chatType: 'dm' as const }

test('outside_sandbox is a finding a person answers; approved, the command runs outside', { skip }, async (t) => {
  const k = await approvalsKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  // A project settings file: read-only in the sandbox, so only a person's approval lets a write out.
  const target = join(dir, '.agentrc.json')
  writeFileSync(target, '{}\n')
  const denied = k.runTool('terminal', { command: 'echo "{ }" > ./.agentrc.json', outside_sandbox: true }, { id: 'sbx-1', cwd: dir, source: chat })
  const [request] = await k.messages(1)
  assert.match(request!.text, /outside the terminal sandbox/)
  await k.slash('/deny', chat, 'sbx-1')
  assert.ok((await denied).blocked)

  const approved = k.runTool('terminal', { command: 'touch -c ./.agentrc.json && echo outside', outside_sandbox: true }, { id: 'sbx-2', cwd: dir, source: chat })
  await k.messages(2)
  await k.slash('/approve', chat, 'sbx-2')
  const outcome = (await approved).result
  assert.equal(outcome.exit_code, 0, outcome.output)
  assert.match(outcome.output, /outside/)
})

test('approvals off: outside_sandbox lets the command out without asking; without it the sandbox still holds', { skip }, async (t) => {
  const k = await approvalsKernel({ config: { approvals: { mode: 'off' } } })
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  const s = { id: 'sbx-off', cwd: dir, source: chat }
  const inside = (await k.runTool('terminal', { command: `touch ${join(k.home, 'inside')}` }, s)).result
  assert.notEqual(inside.exit_code, 0)
  const outside = (await k.runTool('terminal', { command: `touch ${join(k.home, 'outside')}`, outside_sandbox: true }, s)).result
  assert.equal(outside.exit_code, 0, outside.output)
  assert.ok(!existsSync(join(k.home, 'inside')) && existsSync(join(k.home, 'outside')))
  assert.equal(k.sent.length, 0)
})

test('outside_sandbox: only `true` asks to leave, and a let-out is used by its own call once, never replayed', { skip }, async (t) => {
  const k = await approvalsKernel({ config: { approvals: { mode: 'off' } } })
  t.after(() => k.close())
  const s = { id: 'sbx-replay', cwd: realpathSync(tempDir(t)), source: chat }
  for (const value of ['true', 1, 'yes']) {
    const outcome = (await k.runTool('terminal', { command: `touch ${join(k.home, 'look-alike')}`, outside_sandbox: value }, s)).result
    assert.notEqual(outcome.exit_code, 0, `outside_sandbox: ${JSON.stringify(value)} stays inside`)
  }
  // The guard lets call c-1 out; running c-1 a second time (a replayed call id) stays inside.
  const tool = k.kernel.registries.tools.get('terminal') as ToolDefinition
  const input = { command: `touch ${join(k.home, 'replayed')}`, outside_sandbox: true }
  const event = { tool: 'terminal', toolset: 'terminal', callId: 'c-1', input, session: s, modifiesFiles: true }
  assert.equal((await k.kernel.hooks.beforeToolCall.promise(event))?.block, undefined)
  const run = () => tool.execute({ input, callId: 'c-1', signal: new AbortController().signal, session: s }) as Promise<{ exit_code: number }>
  assert.equal((await run()).exit_code, 0)
  rmSync(join(k.home, 'replayed'))
  assert.notEqual((await run()).exit_code, 0)
  assert.ok(!existsSync(join(k.home, 'look-alike')) && !existsSync(join(k.home, 'replayed')))
})

test('an invalid terminal.sandbox is refused: the terminal does not load, and `agent config set` writes nothing', async (t) => {
  const k = await terminalKernel({ config: { terminal: { sandbox: 'maybe' } } })
  t.after(() => k.close())
  assert.equal(k.kernel.registries.tools.get('terminal'), undefined)
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'terminal:\n  sandbox: auto\n')
  const set = await runAgent(['config', 'set', 'terminal.sandbox', 'maybe'], { home, timeoutMs: 60_000 })
  assert.equal(set.code, 2, set.stderr)
  assert.match(set.stderr, /terminal\.sandbox/)
  assert.equal(readFileSync(join(home, 'config.yaml'), 'utf8'), 'terminal:\n  sandbox: auto\n')
})
