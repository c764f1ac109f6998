// `agent plugins …` with the real CLI and real npm (registry pointed at a dead loopback port: nothing
// leaves the machine): local-path and git installs, manifest checks before any plugin code runs,
// rollback of a plugin that does not load, and hot swap / add / remove in a running agent.

import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, describe, it } from 'node:test'
import type { ToolDefinition } from 'agent/sdk'
import { createTestKernel, makeTempHome, type TestKernel } from 'agent/sdk/testing'
import { jsonOf, runAgent } from '../../fixtures/run-agent.ts'

const TEMPLATE = fileURLToPath(new URL('../../fixtures/plugins/hello', import.meta.url))
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A fresh copy of the sample plugin, optionally edited. */
function pluginCopy(root: string, name: string, edit: (files: { pkg: any; code: string }) => { pkg: any; code: string } = (f) => f): string {
  const dir = join(root, name)
  cpSync(TEMPLATE, dir, { recursive: true })
  const files = edit({ pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), code: readFileSync(join(dir, 'index.ts'), 'utf8') })
  writeFileSync(join(dir, 'package.json'), JSON.stringify(files.pkg, null, 2))
  writeFileSync(join(dir, 'index.ts'), files.code)
  return dir
}

describe('agent plugins', () => {
  let home: string
  let work: string
  let marker: string
  let source: string
  const env = () => ({ npm_config_registry: 'http://127.0.0.1:9/', npm_config_cache: join(work, 'npm-cache'), PLUGIN_SCRIPT_MARKER: marker })
  const agent = (...args: string[]) => runAgent(args, { home, env: env(), cwd: work, timeoutMs: 120_000 })
  const deps = () => JSON.parse(readFileSync(join(home, 'plugins', 'package.json'), 'utf8')).dependencies ?? {}

  before(() => {
    home = makeTempHome()
    work = mkdtempSync(join(tmpdir(), 'agent-plugins-work-'))
    marker = join(work, 'script-ran.txt')
    source = pluginCopy(work, 'hello')
  })
  after(() => {
    rmSync(home, { recursive: true, force: true })
    rmSync(work, { recursive: true, force: true })
  })

  it('installs a plugin from a local path without running its scripts; its tool is listed', async () => {
    const run = await agent('plugins', 'install', './hello', '--json')
    assert.equal(run.code, 0, run.stderr)
    const doc = jsonOf(run)
    assert.equal(doc.name, 'agent-plugin-hello')
    assert.equal(doc.kind, 'path')
    assert.deepEqual(doc.loaded, [{ name: 'hello-plugin', state: 'loaded' }])
    assert.deepEqual(doc.tools, ['hello_plugin'])
    assert.equal(existsSync(marker), false, 'no install script may run')
    assert.match(deps()['agent-plugin-hello'], /^file:\.packs\/agent-plugin-hello-1\.0\.0-/)
    const tools = jsonOf(await agent('tools', 'list', '--json'))
    assert.deepEqual(tools.filter((t: any) => t.name === 'hello_plugin').map((t: any) => [t.owner, t.enabled]), [['hello-plugin', true]])
    const extensions = jsonOf(await agent('extensions', 'list', '--json'))
    assert.deepEqual(extensions.filter((e: any) => e.name === 'hello-plugin').map((e: any) => [e.source, e.state]), [['plugin', 'loaded']])
    const list = jsonOf(await agent('plugins', 'list', '--json'))
    assert.deepEqual(list.map((p: any) => [p.name, p.version, p.kind, p.extensions]), [['agent-plugin-hello', '1.0.0', 'path', [{ name: 'hello-plugin', state: 'loaded' }]]])
  })

  it('refuses packages that are not valid plugins before any of their code runs, and changes nothing', async () => {
    const before = JSON.stringify(deps())
    const cases: Array<[string, (f: { pkg: any; code: string }) => { pkg: any; code: string }, RegExp]> = [
      ['no-manifest', (f) => ({ ...f, pkg: { ...f.pkg, name: 'no-manifest', agent: undefined } }), /"agent\.extensions" must list/],
      ['outside', (f) => ({ ...f, pkg: { ...f.pkg, name: 'outside', agent: { extensions: ['../evil.ts'] } } }), /points outside the package/],
      ['missing-entry', (f) => ({ ...f, pkg: { ...f.pkg, name: 'missing-entry', agent: { extensions: ['./nope.ts'] } } }), /"\.\/nope\.ts" is not in the package/],
      ['clash', (f) => ({ ...f, pkg: { ...f.pkg, name: 'skills' } }), /extension name "skills" is taken by the builtin extension/],
    ]
    for (const [name, edit, expected] of cases) {
      pluginCopy(work, name, edit)
      const run = await agent('plugins', 'install', `./${name}`)
      assert.equal(run.code, 2, `${name}: ${run.stderr}`)
      assert.match(run.stderr, expected)
      assert.doesNotMatch(run.stderr, /\n\s+at /)
    }
    for (const spec of ['./does-not-exist', 'Not A Package!']) {
      const run = await agent('plugins', 'install', spec)
      assert.equal(run.code, 2, run.stderr)
    }
    assert.equal(existsSync(marker), false)
    assert.equal(JSON.stringify(deps()), before)
  })

  it('rolls back a plugin whose setup fails', async () => {
    pluginCopy(work, 'broken', (f) => ({ pkg: { ...f.pkg, name: 'agent-plugin-broken' }, code: f.code.replace("name: 'hello-plugin'", "name: 'broken-plugin'").replace('setup(api) {', "setup(api) {\n    throw new Error('this plugin is broken')") }))
    const run = await agent('plugins', 'install', './broken')
    assert.equal(run.code, 1)
    assert.match(run.stderr, /agent-plugin-broken does not load: broken-plugin: this plugin is broken/)
    assert.equal(deps()['agent-plugin-broken'], undefined)
    assert.equal(existsSync(join(home, 'plugins', 'node_modules', 'agent-plugin-broken')), false)
  })

  it('installs from a git URL (npm git support, real git)', async () => {
    const repo = pluginCopy(work, 'git-plugin', (f) => ({ pkg: { ...f.pkg, name: 'agent-plugin-git' }, code: f.code.replace("name: 'hello-plugin'", "name: 'git-plugin'").replace("name: 'hello_plugin'", "name: 'git_plugin_tool'") }))
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'pipe', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } })
    git('init', '-q')
    git('add', '-A')
    git('commit', '-qm', 'plugin')
    const run = await agent('plugins', 'install', `git+file://${repo}`, '--json')
    assert.equal(run.code, 0, run.stderr)
    const doc = jsonOf(run)
    assert.equal(doc.kind, 'git')
    assert.deepEqual(doc.tools, ['git_plugin_tool'])
    assert.equal(existsSync(marker), false, 'git installs run no prepare script either')
    const removed = await agent('plugins', 'remove', 'git-plugin')
    assert.equal(removed.code, 0, removed.stderr)
    assert.equal(deps()['agent-plugin-git'], undefined)
  })

  describe('in a running agent', () => {
    let t: TestKernel
    const tool = (name: string) => t.kernel.registries.tools.get(name) as ToolDefinition | undefined
    const callHello = () => tool('hello_plugin')?.execute({ input: {}, callId: 'c', signal: new AbortController().signal, session: { id: 's', cwd: home } })

    async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs
      while (Date.now() < deadline) {
        if (await check()) return
        await sleep(50)
      }
      throw new Error(`timed out waiting for ${what}`)
    }

    before(async () => {
      t = await createTestKernel({ home, builtins: ['plugins-cli'] })
      await t.kernel.start('chat')
    })
    after(async () => t.close())

    it('an update from another process hot-swaps the running plugin', async () => {
      assert.equal(await callHello(), 'hello v1')
      const code = readFileSync(join(source, 'index.ts'), 'utf8').replace("'hello v1'", "'hello v2'").replace("version: '1.0.0'", "version: '1.1.0'")
      writeFileSync(join(source, 'index.ts'), code)
      const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'))
      writeFileSync(join(source, 'package.json'), JSON.stringify({ ...pkg, version: '1.1.0' }))
      const run = await agent('plugins', 'update', 'hello-plugin')
      assert.equal(run.code, 0, run.stderr)
      assert.match(run.stdout, /updated agent-plugin-hello 1\.0\.0 → 1\.1\.0/)
      await until('the new version to answer', async () => (await callHello()) === 'hello v2')
      assert.equal(t.kernel.extensions().find((e) => e.name === 'hello-plugin')?.version, '1.1.0')
      const again = await agent('plugins', 'update')
      assert.match(again.stdout, /agent-plugin-hello@1\.1\.0 is up to date/)
    })

    it('a plugin installed or removed by another process comes and goes', async () => {
      pluginCopy(work, 'second', (f) => ({ pkg: { ...f.pkg, name: 'agent-plugin-second' }, code: f.code.replace("name: 'hello-plugin'", "name: 'second-plugin'").replace("name: 'hello_plugin'", "name: 'second_tool'") }))
      assert.equal((await agent('plugins', 'install', './second')).code, 0)
      await until('the new plugin', () => tool('second_tool') !== undefined)
      const removed = await agent('plugins', 'remove', 'agent-plugin-second')
      assert.equal(removed.code, 0, removed.stderr)
      await until('the removal', () => tool('second_tool') === undefined)
      assert.equal(t.kernel.extensions().some((e) => e.name === 'second-plugin'), false)
    })

    it('/plugins lists what is installed', async () => {
      const replies: string[] = []
      await t.kernel.registries.commands.get('plugins')!.slash!({ args: '', invokedAs: 'plugins', surface: 'cli', reply: (text: string) => void replies.push(text) })
      assert.match(replies.join('\n'), /agent-plugin-hello@1\.1\.0 {2}\[path .*\] {2}hello-plugin: loaded/)
    })
  })
})
