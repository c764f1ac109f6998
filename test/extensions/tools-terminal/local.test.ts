import assert from 'node:assert/strict'
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { session, tempDir, terminalKernel } from './helpers.ts'

test('local terminal: output, exit code, cwd and workdir', async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  mkdirSync(join(dir, 'sub'))
  const s = session(dir)
  const first = await k.call('terminal', { command: 'echo hello; echo oops >&2; exit 3' }, s)
  assert.equal(first.exit_code, 3)
  assert.match(first.output, /hello/)
  assert.match(first.output, /oops/)
  assert.equal(first.backend, 'local')
  assert.equal((await k.call('terminal', { command: 'pwd' }, s)).output.trim(), dir)
  assert.equal((await k.call('terminal', { command: 'pwd', workdir: 'sub' }, s)).output.trim(), join(dir, 'sub'))
  await assert.rejects(k.call('terminal', { command: '   ' }, s), /non-empty/)
})

test('local terminal: without persistence, cd does not carry over', async (t) => {
  const k = await terminalKernel()
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  mkdirSync(join(dir, 'sub'))
  const s = session(dir)
  await k.call('terminal', { command: 'cd sub' }, s)
  assert.equal((await k.call('terminal', { command: 'pwd' }, s)).output.trim(), dir)
})

test('local terminal: persistent shell keeps cd, variables and functions', async (t) => {
  const k = await terminalKernel({ config: { terminal: { persistent_shell: true } } })
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  mkdirSync(join(dir, 'sub'))
  const s = session(dir)
  const cd = await k.call('terminal', { command: 'cd sub && export GREETING=hi && greet() { echo "$GREETING there"; }' }, s)
  assert.equal(cd.exit_code, 0)
  const after = await k.call('terminal', { command: 'pwd; greet; false' }, s)
  assert.equal(after.output.trim(), `${join(dir, 'sub')}\nhi there`)
  assert.equal(after.exit_code, 1)
  // A command reading stdin gets /dev/null and cannot swallow the protocol.
  assert.equal((await k.call('terminal', { command: 'cat; echo after-cat' }, s)).output.trim(), 'after-cat')
  // Other sessions have their own shell.
  assert.equal((await k.call('terminal', { command: 'pwd' }, session(dir))).output.trim(), dir)
  // `exit` ends the shell; the next command gets a fresh one in the session's cwd.
  const exit = await k.call('terminal', { command: 'exit 4' }, s)
  assert.equal(exit.exit_code, 4)
  assert.match(exit.note, /persistent shell ended/)
  assert.equal((await k.call('terminal', { command: 'pwd' }, s)).output.trim(), dir)
})

test('per-backend environment override beats terminal.persistent_shell', async (t) => {
  const k = await terminalKernel({ config: { terminal: { persistent_shell: true } }, env: { AGENT_TERMINAL_LOCAL_PERSISTENT: 'false' } })
  t.after(() => k.close())
  const dir = realpathSync(tempDir(t))
  mkdirSync(join(dir, 'sub'))
  const s = session(dir)
  await k.call('terminal', { command: 'cd sub' }, s)
  assert.equal((await k.call('terminal', { command: 'pwd' }, s)).output.trim(), dir)
})

test('local terminal: timeout ends the command tree, output is capped', async (t) => {
  const k = await terminalKernel({ config: { terminal: { max_output_chars: 1000 } } })
  t.after(() => k.close())
  const s = session(tempDir(t))
  const slow = await k.call('terminal', { command: 'echo start; sleep 30; echo never', timeout: 0.5 }, s)
  assert.equal(slow.timed_out, true)
  assert.match(slow.output, /start/)
  assert.doesNotMatch(slow.output, /never/)
  const big = await k.call('terminal', { command: 'seq 1 20000' }, s)
  assert.equal(big.truncated, true)
  assert.ok(big.output.length < 1100)
  assert.match(big.output, /^1\n2\n/)
  assert.match(big.output, /20000\s*$/)
  assert.match(big.output, /characters omitted/)
})

test('local shell gets only the base environment and terminal.local.env, never the agent secrets', async (t) => {
  const k = await terminalKernel({ env: { SOME_SERVICE_PASSWORD: 'hunter2' }, config: { terminal: { local: { env: { MY_SETTING: 'x1' } } } } })
  t.after(() => k.close())
  const dir = tempDir(t)
  writeFileSync(join(dir, 'f.txt'), 'x')
  const out = (await k.call('terminal', { command: 'env' }, session(dir))).output
  assert.match(out, /MY_SETTING=x1/)
  assert.match(out, /^PATH=/m)
  assert.doesNotMatch(out, /hunter2/)
})

test('terminal rejects invalid config at load', async (t) => {
  const k = await terminalKernel({ config: { terminal: { backend: 'ssh' } } })
  t.after(() => k.close())
  const info = k.kernel.extensions().find((e) => e.name === 'tools-terminal')
  assert.equal(info?.state, 'failed')
  assert.match(info?.reason ?? '', /terminal\.backend/)
})

test('an unknown AGENT_TERMINAL_BACKEND refuses (never the host instead of a container); "local" runs', async (t) => {
  const dir = realpathSync(tempDir(t))
  for (const value of ['Container', 'docker', ' container']) {
    const k = await terminalKernel({ env: { AGENT_TERMINAL_BACKEND: value } })
    t.after(() => k.close())
    await assert.rejects(k.call('terminal', { command: 'echo ran' }, session(dir)), /AGENT_TERMINAL_BACKEND is .* not "local" or "container"; the command was not run/)
    assert.match(String(k.tool('terminal').available?.(k.kernel.settings)), /AGENT_TERMINAL_BACKEND/)
  }
  const k = await terminalKernel({ env: { AGENT_TERMINAL_BACKEND: 'local' } })
  t.after(() => k.close())
  assert.equal((await k.call('terminal', { command: 'echo ran' }, session(dir))).output.trim(), 'ran')
})
