// The `agent` bin as users and scripts see it.

import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { runAgent } from '../helpers/agent-process.ts'
import { tempDir } from '../helpers/temp.ts'

const version = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version

test('--version prints the version and nothing else', async (t) => {
  const result = await runAgent(['--version'], { home: tempDir(t) })
  assert.equal(result.code, 0)
  assert.equal(result.stdout, `${version}\n`)
  assert.equal(result.stderr, '')
})

test('--help lists the built-in commands', async (t) => {
  const result = await runAgent(['--help'], { home: tempDir(t) })
  assert.equal(result.code, 0)
  for (const command of ['config', 'extensions', 'gateway']) assert.match(result.stdout, new RegExp(`agent ${command}\\b`))
})

test('gateway run --help shows how to enable the API server', async (t) => {
  const result = await runAgent(['gateway', 'run', '--help'], { home: tempDir(t) })
  assert.equal(result.code, 0)
  assert.match(result.stdout, /API_SERVER_ENABLED=true agent gateway run\s+Serve the OpenAI-compatible API/)
  assert.match(result.stdout, /agent gateway setup --enable/)
})

test('gateway run on a busy port names the port and what changes it, exit 1', async (t) => {
  const { createServer } = await import('node:net')
  const busy = createServer()
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve))
  t.after(() => busy.close())
  const port = (busy.address() as { port: number }).port
  const result = await runAgent(['gateway', 'run'], { home: tempDir(t), env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: String(port) } })
  assert.equal(result.code, 1)
  // The gateway logs at info by default ("[cron] info: …"); beside those lines, only this one.
  const lines = result.stderr.split('\n').filter((line) => !/^\[[\w-]+\] info: /.test(line))
  assert.equal(lines.join('\n'), `agent: port ${port} on 127.0.0.1 is in use, so the "api" listener cannot start (API_SERVER_PORT or http.listeners.api.port changes it)\n`)
})

test('an unknown command exits 2 with one clear line and a hint', async (t) => {
  const result = await runAgent(['frobnicate'], { home: tempDir(t) })
  assert.equal(result.code, 2)
  assert.equal(result.stderr, 'agent: unknown command "frobnicate"; see `agent --help`\n')
})

test('extensions list --json prints one JSON document with every built-in loaded', async (t) => {
  const result = await runAgent(['extensions', 'list', '--json'], { home: tempDir(t) })
  assert.equal(result.code, 0, result.stderr)
  const rows = JSON.parse(result.stdout) as Array<{ name: string; source: string; state: string; version: string }>
  for (const name of ['http', 'gateway', 'config-cli', 'extensions-cli']) {
    const row = rows.find((r) => r.name === name)
    assert.equal(row?.source, 'builtin')
    assert.equal(row?.state, 'loaded', `${name}: ${JSON.stringify(row)}`)
  }
  const failed = rows.filter((r) => r.state === 'failed')
  assert.deepEqual(failed, [], 'no built-in fails to load')
})

test('--help is served from the registry snapshot only while it is valid', async (t) => {
  const { mkdirSync, writeFileSync, existsSync } = await import('node:fs')
  const { join } = await import('node:path')
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'switchy')
  mkdirSync(dir, { recursive: true })
  const source = (description: string) => `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'switchy', setup(api) {
  const flavour = api.settings.env('SWITCHY_FLAVOUR') ?? 'plain'
  api.commands.register({ name: 'switchy', category: 'Demo', description: '${description} (' + flavour + ')', cli: { run() {} } })
} })`
  writeFileSync(join(dir, 'index.ts'), source('first'))
  const full = await runAgent(['--help'], { home })
  assert.match(full.stdout, /first \(plain\)/)
  assert.ok(existsSync(join(home, 'cache', 'cli-help.json')), 'a full help run saves the snapshot')
  const served = await runAgent(['--help'], { home })
  assert.equal(served.stdout, full.stdout, 'the snapshot prints the same help')

  writeFileSync(join(dir, 'index.ts'), source('second'))
  assert.match((await runAgent(['--help'], { home })).stdout, /second \(plain\)/, 'an edited extension invalidates it')
  assert.match((await runAgent(['--help'], { home, env: { SWITCHY_FLAVOUR: 'spicy' } })).stdout, /second \(spicy\)/, 'an environment variable read while loading invalidates it')
  assert.match((await runAgent(['switchy', '--help'], { home, env: { SWITCHY_FLAVOUR: 'spicy' } })).stdout, /second \(spicy\)/)
})

test('gateway run starts itself with a capped young generation; signals reach it once; a killed parent takes it down', async (t) => {
  const { startAgent } = await import('../helpers/agent-process.ts')
  const { execFileSync } = await import('node:child_process')
  const home = tempDir(t)
  const childOf = (pid: number) => Number(execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' }).trim().split('\n')[0])
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0)
      return true
    } catch {
      return false
    }
  }
  const gateway = startAgent(['gateway', 'run'], { home, env: { API_SERVER_PORT: '0' } })
  t.after(() => gateway.stop('SIGKILL'))
  await gateway.waitFor(/gateway running/)
  assert.match(gateway.stderr(), /^agent: no adapter is enabled \(only cron jobs and extension endpoints run\): API_SERVER_ENABLED=true serves .*`agent gateway setup` lists the others/m, 'nothing enabled: one line says how to enable an adapter')
  const child = childOf(gateway.child.pid!)
  assert.match(readFileSync(`/proc/${child}/cmdline`, 'utf8'), /--max-semi-space-size=8\0--heap-growing-percent=60\0/)
  assert.equal(await gateway.stop('SIGINT'), 0, 'one SIGINT to the parent stops the gateway cleanly')
  assert.equal(alive(child), false)

  const second = startAgent(['gateway', 'run'], { home, env: { API_SERVER_ENABLED: 'true', API_SERVER_PORT: '0' } })
  await second.waitFor(/gateway running/)
  assert.doesNotMatch(second.stderr(), /no adapter is enabled/, 'with the API server enabled there is no hint')
  const [, url] = await second.waitFor(/listening: api on (http:\/\/\S+)/)
  assert.equal(((await (await fetch(`${url}/health`)).json()) as { version: string }).version, version, '/health reports the version `agent --version` prints')
  const orphan = childOf(second.child.pid!)
  await second.stop('SIGKILL')
  for (let i = 0; i < 100 && alive(orphan); i++) await new Promise((r) => setTimeout(r, 50))
  assert.equal(alive(orphan), false, 'the gateway does not outlive its parent')
})
