// `agent plugins install` from a local path with the real CLI and real npm: no install script runs,
// the manifest is checked from the packed tarball before any plugin code runs, a plugin that does
// not load is rolled back, and bad input changes nothing.

import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, it } from 'node:test'
import { jsonOf } from '../../helpers/agent-process.ts'
import { pluginCopy, pluginsWorld, renamed, type PluginFiles, type PluginsWorld } from './helpers.ts'

describe('agent plugins install (local path)', () => {
  let w: PluginsWorld
  before(() => {
    w = pluginsWorld()
    pluginCopy(w.work, 'hello')
  })
  after(() => w.cleanup())
  it('installs a plugin from a local path without running its scripts; its tool is listed', async () => {
    const run = await w.agent('plugins', 'install', './hello', '--json')
    assert.equal(run.code, 0, run.stderr)
    const doc = jsonOf(run)
    assert.equal(doc.name, 'agent-plugin-hello')
    assert.equal(doc.kind, 'path')
    assert.deepEqual(doc.loaded, [{ name: 'hello-plugin', state: 'loaded' }])
    assert.deepEqual(doc.tools, ['hello_plugin'])
    assert.equal(existsSync(w.marker), false, 'no install script may run')
    assert.match(w.deps()['agent-plugin-hello'] ?? '', /^file:\.packs\/agent-plugin-hello-1\.0\.0-/)
    const tools = jsonOf(await w.agent('tools', 'list', '--json'))
    assert.deepEqual(tools.filter((t: any) => t.name === 'hello_plugin').map((t: any) => [t.owner, t.enabled]), [['hello-plugin', true]])
    const extensions = jsonOf(await w.agent('extensions', 'list', '--json'))
    assert.deepEqual(extensions.filter((e: any) => e.name === 'hello-plugin').map((e: any) => [e.source, e.state]), [['plugin', 'loaded']])
    const list = jsonOf(await w.agent('plugins', 'list', '--json'))
    assert.deepEqual(list.map((p: any) => [p.name, p.version, p.kind, p.extensions]), [['agent-plugin-hello', '1.0.0', 'path', [{ name: 'hello-plugin', state: 'loaded' }]]])
  })

  it('refuses packages that are not valid plugins before any of their code runs, and changes nothing', async () => {
    const before = JSON.stringify(w.deps())
    const cases: Array<[string, (f: PluginFiles) => PluginFiles, RegExp]> = [
      ['no-manifest', (f) => ({ ...f, pkg: { ...f.pkg, name: 'no-manifest', agent: undefined } }), /"agent\.extensions" must list/],
      ['outside', (f) => ({ ...f, pkg: { ...f.pkg, name: 'outside', agent: { extensions: ['../evil.ts'] } } }), /points outside the package/],
      ['missing-entry', (f) => ({ ...f, pkg: { ...f.pkg, name: 'missing-entry', agent: { extensions: ['./nope.ts'] } } }), /"\.\/nope\.ts" is not in the package/],
      ['clash', (f) => ({ ...f, pkg: { ...f.pkg, name: 'skills' } }), /extension name "skills" is taken by the builtin extension/],
    ]
    for (const [name, edit, expected] of cases) {
      pluginCopy(w.work, name, edit)
      const run = await w.agent('plugins', 'install', `./${name}`)
      assert.equal(run.code, 2, `${name}: ${run.stderr}`)
      assert.match(run.stderr, expected)
      assert.doesNotMatch(run.stderr, /\n\s+at /)
    }
    for (const spec of ['./does-not-exist', 'Not A Package!']) {
      const run = await w.agent('plugins', 'install', spec)
      assert.equal(run.code, 2, run.stderr)
    }
    assert.equal(existsSync(w.marker), false)
    assert.equal(JSON.stringify(w.deps()), before)
  })

  it('rolls back a plugin whose setup fails', async () => {
    pluginCopy(w.work, 'broken', (f) => {
      const r = renamed('agent-plugin-broken', 'broken-plugin', 'broken_tool')(f)
      return { ...r, code: r.code.replace('setup(api) {', "setup(api) {\n    throw new Error('this plugin is broken')") }
    })
    const run = await w.agent('plugins', 'install', './broken')
    assert.equal(run.code, 1)
    assert.match(run.stderr, /agent-plugin-broken does not load: broken-plugin: this plugin is broken/)
    assert.equal(w.deps()['agent-plugin-broken'], undefined)
    assert.equal(existsSync(join(w.home, 'plugins', 'node_modules', 'agent-plugin-broken')), false)
  })
})
