// The container backend, against the recording fake `docker` first on PATH (no container engine
// runs on the test machine: `docker info` cannot reach a daemon). The fake runs each command with
// only the container's environment, so isolation is observed, and every command line is recorded.
import assert from 'node:assert/strict'
import { realpathSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { installFakeDocker } from './fixtures/fake-engine.ts'
import { session, tempDir, terminalKernel } from './helpers.ts'

function setup(t: TestContext, config: Record<string, unknown>, env: Record<string, string> = {}, dotenv: Record<string, string> = {}) {
  const dir = realpathSync(tempDir(t))
  const engine = installFakeDocker(dir)
  const path = `${engine.bin}:${process.env.PATH}`
  return { dir, engine, options: { config: { terminal: { backend: 'container', container_image: 'debian:test', ...config } }, env: { PATH: path, ...env }, dotenv } }
}

test('only the named variables reach a container: process env first, then .env, nothing else', async (t) => {
  const { dir, engine, options } = setup(
    t,
    { container_forward_env: ['FORWARD_ME', 'FROM_DOTENV', 'IN_BOTH', 'UNSET_ONE'] },
    { FORWARD_ME: 'from-process', IN_BOTH: 'process-wins', NOT_NAMED: 'must-not-leak', GITHUB_TOKEN_X: 'ghp_secret' },
    { FROM_DOTENV: 'from-dotenv', IN_BOTH: 'dotenv-loses', DOTENV_ONLY_NOT_NAMED: 'nope' },
  )
  const k = await terminalKernel(options)
  t.after(() => k.close())
  const work = join(dir, 'project')
  const s = session(dir)
  const result = await k.call('terminal', { command: 'env | sort' }, s)
  assert.equal(result.exit_code, 0, result.output)
  const vars = Object.fromEntries(result.output.trim().split('\n').map((l: string) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
  assert.equal(vars.FORWARD_ME, 'from-process')
  assert.equal(vars.FROM_DOTENV, 'from-dotenv')
  assert.equal(vars.IN_BOTH, 'process-wins')
  for (const leaked of ['NOT_NAMED', 'GITHUB_TOKEN_X', 'DOTENV_ONLY_NOT_NAMED', 'UNSET_ONE', 'AGENT_HOME', 'USER']) assert.equal(vars[leaked], undefined, `${leaked} leaked`)
  assert.equal(vars.HOME, '/root')

  const [run, exec] = engine.calls()
  // The exact command line: values never on it, no mount, the image, a long-lived container.
  assert.deepEqual(run!.argv.slice(0, 4), ['run', '-d', '--rm', '--name'])
  assert.match(run!.argv[4]!, /^agent-[0-9a-f]{10}-[0-9a-f]{6}$/)
  assert.deepEqual(run!.argv.slice(5), [
    '--init', '--security-opt', 'no-new-privileges', '--pids-limit', '512',
    '-w', '/workspace', '-e', 'FORWARD_ME', '-e', 'FROM_DOTENV', '-e', 'IN_BOTH',
    'debian:test', 'sleep', 'infinity',
  ])
  assert.deepEqual(run!.forwardedValues, { FORWARD_ME: 'from-process', FROM_DOTENV: 'from-dotenv', IN_BOTH: 'process-wins' })
  assert.ok(!run!.argv.some((a) => a.includes('from-process') || a.includes(dir) || a.includes(work)))
  assert.deepEqual(exec!.argv, ['exec', '-w', '/workspace', run!.argv[4], 'bash', '-c', 'env | sort'])
})

test('the working directory enters the container only with container_mount_cwd_to_workspace', async (t) => {
  const isolated = setup(t, {})
  const k1 = await terminalKernel(isolated.options)
  t.after(() => k1.close())
  writeFileSync(join(isolated.dir, 'marker.txt'), 'x')
  const s1 = session(isolated.dir)
  assert.equal((await k1.call('terminal', { command: 'ls' }, s1)).output.trim(), '')
  assert.ok(!isolated.engine.calls()[0]!.argv.includes('-v'))

  const mounted = setup(t, { container_mount_cwd_to_workspace: true })
  const k2 = await terminalKernel(mounted.options)
  t.after(() => k2.close())
  writeFileSync(join(mounted.dir, 'marker.txt'), 'x')
  const s2 = session(mounted.dir)
  assert.match((await k2.call('terminal', { command: 'ls' }, s2)).output, /marker\.txt/)
  const run = mounted.engine.calls()[0]!.argv
  assert.equal(run[run.indexOf('-v') + 1], `${mounted.dir}:/workspace`)
})

test('container persistent shell keeps cd; the session container is started once and removed on close', async (t) => {
  const { dir, engine, options } = setup(t, { persistent_shell: true })
  const k = await terminalKernel(options)
  const s = session(dir)
  await k.call('terminal', { command: 'mkdir -p deep/er && cd deep/er && export X=42' }, s)
  const out = await k.call('terminal', { command: 'pwd; echo $X' }, s)
  assert.equal(out.output.trim(), '/workspace/deep/er'.replace('/workspace', join(engine.state, 'fs', engine.calls()[0]!.argv[4]!, 'workspace')) + '\n42')
  const calls = engine.calls()
  assert.equal(calls.filter((c) => c.argv[0] === 'run').length, 1)
  const shell = calls.find((c) => c.argv[0] === 'exec')!
  assert.deepEqual(shell.argv.slice(0, 4), ['exec', '-i', '-w', '/workspace'])
  assert.deepEqual(shell.argv.slice(5), ['bash', '--noprofile', '--norc'])
  await k.close()
  const rm = engine.calls().find((c) => c.argv[0] === 'rm')
  assert.deepEqual(rm?.argv, ['rm', '-f', calls[0]!.argv[4]])
})

test('podman is used when terminal.container_engine says so, and a missing engine is a clear error', async (t) => {
  const dir = tempDir(t)
  const k = await terminalKernel({ config: { terminal: { backend: 'container', container_engine: 'podman' } }, env: { PATH: join(dir, 'empty-bin') } })
  t.after(() => k.close())
  assert.match(String(k.tool('terminal').available!(k.kernel.settings)), /podman is not on PATH/)
  await assert.rejects(k.call('terminal', { command: 'true' }, session(dir)), /cannot run podman/)
})
