// Discovery, validation, isolation of failures, staged setup, and the per-extension API.

import assert from 'node:assert/strict'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { createKernel } from '../../kernel/index.ts'
import { defineExtension, defineTool } from '../../sdk/index.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { tempDir } from '../helpers/temp.ts'

function userExtension(home: string, name: string, source: string): void {
  mkdirSync(join(home, 'extensions', name), { recursive: true })
  writeFileSync(join(home, 'extensions', name, 'index.ts'), source)
}

function kernelFor(home: string, extra: Parameters<typeof createKernel>[0] = {}) {
  return createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent', ...extra })
}

const toolExtension = (name: string, tool: string) => `
import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: '${name}', version: '2.0.0', setup(api) {
  api.tools.register({ name: '${tool}', description: 'd', parameters: { type: 'object' }, execute: () => '${name}' })
} })
`

test('user extensions load from <agent_home>/extensions and import agent/sdk', async (t) => {
  const home = tempDir(t)
  userExtension(home, 'alpha', toolExtension('alpha', 'alpha_tool'))
  const kernel = kernelFor(home)
  t.after(() => kernel.shutdown())
  await kernel.load()
  const info = kernel.extensions().find((e) => e.name === 'alpha')
  assert.equal(info?.state, 'loaded')
  assert.equal(info?.source, 'user')
  assert.equal(info?.version, '2.0.0')
  assert.equal(await kernel.registries.tools.get('alpha_tool').execute({}), 'alpha')
})

test('a broken extension is isolated and reported; the others load', async (t) => {
  const home = tempDir(t)
  userExtension(home, 'good', toolExtension('good', 'good_tool'))
  userExtension(home, 'syntax', 'export default {{{')
  userExtension(home, 'shape', 'export default { name: "shape" }')
  userExtension(home, 'throws', `import { defineExtension } from 'agent/sdk'; export default defineExtension({ name: 'throws', setup() { throw new Error('setup exploded') } })`)
  userExtension(home, 'misnamed', `export default { name: 'other-name', setup() {} }`)
  const kernel = kernelFor(home)
  t.after(() => kernel.shutdown())
  await kernel.load()
  const state = Object.fromEntries(kernel.extensions().map((e) => [e.name, e]))
  assert.equal(state.good?.state, 'loaded')
  assert.equal(state.syntax?.state, 'failed')
  assert.match(state.syntax!.reason!, /syntax[/\\]index\.ts:1:\d+/)
  assert.match(state.shape!.reason!, /"setup" must be a function/)
  assert.match(state.throws!.reason!, /setup exploded/)
  assert.match(state.misnamed!.reason!, /named "other-name" but its folder is "misnamed"/)
})

test('dependsOn is checked before setup; a missing or failed dependency fails the dependant', async (t) => {
  const home = tempDir(t)
  const kernel = kernelFor(home, {
    inline: [
      { definition: defineExtension({ name: 'needs-missing', dependsOn: ['nowhere'], setup() {} }) },
      { definition: defineExtension({ name: 'base', setup() { throw new Error('base broke') } }) },
      { definition: defineExtension({ name: 'needs-base', dependsOn: ['base'], setup() {} }) },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const reason = (n: string) => kernel.extensions().find((e) => e.name === n)?.reason
  assert.match(reason('needs-missing')!, /depends on "nowhere", which is not installed/)
  assert.match(reason('needs-base')!, /depends on "base", which is failed/)
})

test('config is validated against the schema with a clear error naming file and key', async (t) => {
  const home = tempDir(t)
  writeFileSync(join(home, 'config.yaml'), 'terminal:\n  timeout: soon\n')
  const kernel = kernelFor(home, {
    inline: [
      {
        definition: defineExtension<{ timeout: number; shell: string }>({
          name: 'term',
          configKey: 'terminal',
          config: { type: 'object', properties: { timeout: { type: 'integer' }, shell: { type: 'string', default: 'bash' } } },
          setup() {},
        }),
      },
      { definition: defineExtension<{ shell: string }>({ name: 'defaults', configKey: 'other', config: { type: 'object', properties: { shell: { type: 'string', default: 'bash' } } }, setup(api) { api.services.provide('seen', api.config) } }) },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const failed = kernel.extensions().find((e) => e.name === 'term')!
  assert.equal(failed.state, 'failed')
  assert.match(failed.reason!, /config\.yaml: terminal\.timeout: .*integer/)
  assert.doesNotMatch(failed.reason!, /\n|at .*\.ts:\d+/)
  assert.deepEqual(kernel.services.get('seen'), { shell: 'bash' })
})

test('a duplicate tool across extensions fails the second, naming both owners', async (t) => {
  const home = tempDir(t)
  const tool = defineTool({ name: 'same', description: 'd', parameters: { type: 'object' }, execute: () => 1 })
  const kernel = kernelFor(home, {
    inline: [
      { definition: defineExtension({ name: 'first', setup: (api) => api.tools.register(tool) }) },
      { definition: defineExtension({ name: 'second', setup: (api) => api.tools.register(tool) }) },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const second = kernel.extensions().find((e) => e.name === 'second')!
  assert.equal(second.state, 'failed')
  assert.match(second.reason!, /tool "same" of extension "second" is already registered by extension "first"/)
  assert.equal(kernel.registries.tools.entries()[0]?.owner, 'first')
})

test('setup is staged: a failing setup leaves nothing registered and its disposers run', async (t) => {
  const home = tempDir(t)
  let disposed = false
  const kernel = kernelFor(home, {
    inline: [
      {
        definition: defineExtension({
          name: 'half',
          setup(api) {
            api.tools.register({ name: 'half_tool', description: 'd', parameters: {}, execute: () => 1 })
            api.onDispose(() => void (disposed = true))
            throw new Error('second step failed')
          },
        }),
      },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.equal(kernel.registries.tools.get('half_tool'), undefined)
  assert.equal(disposed, true)
})

test('setup has a timeout; registering after setup is refused', async (t) => {
  const home = tempDir(t)
  let late: (() => void) | undefined
  const kernel = kernelFor(home, {
    setupTimeoutMs: 200,
    inline: [
      { definition: defineExtension({ name: 'slow', setup: () => new Promise(() => {}) }) },
      { definition: defineExtension({ name: 'late', setup(api) { late = () => api.tools.register({ name: 'late_tool', description: 'd', parameters: {}, execute: () => 1 }) } }) },
    ],
  })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.match(kernel.extensions().find((e) => e.name === 'slow')!.reason!, /did not finish within 200 ms/)
  assert.throws(() => late!(), /only legal during setup/)
})

test('plugin packages are found by their package.json "agent.extensions"; bad manifests are reported', async (t) => {
  const home = tempDir(t)
  const pkg = join(home, 'plugins', 'node_modules', 'agent-plugin-demo')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'agent-plugin-demo', version: '1.2.3', agent: { extensions: ['./index.ts'] } }))
  writeFileSync(join(pkg, 'index.ts'), toolExtension('agent-plugin-demo', 'demo_tool'))
  const bad = join(home, 'plugins', 'node_modules', 'bad-plugin')
  mkdirSync(bad, { recursive: true })
  writeFileSync(join(bad, 'package.json'), JSON.stringify({ name: 'bad-plugin', agent: { extensions: ['./missing.ts'] } }))
  const kernel = kernelFor(home)
  t.after(() => kernel.shutdown())
  await kernel.load()
  const demo = kernel.extensions().find((e) => e.name === 'agent-plugin-demo')!
  assert.equal(demo.source, 'plugin')
  assert.equal(demo.state, 'loaded')
  assert.match(kernel.extensions().find((e) => e.name === 'bad-plugin')!.reason!, /"\.\/missing\.ts" does not exist/)
})

test('project-local extensions load only with the explicit opt-in', async (t) => {
  const home = tempDir(t)
  const project = tempDir(t)
  mkdirSync(join(project, '.agent', 'extensions', 'local'), { recursive: true })
  writeFileSync(join(project, '.agent', 'extensions', 'local', 'index.ts'), toolExtension('local', 'local_tool'))
  const closed = kernelFor(home, { cwd: project })
  await closed.load()
  assert.equal(closed.extensions().some((e) => e.name === 'local'), false)
  await closed.shutdown()
  const opened = kernelFor(home, { cwd: project, projectExtensions: true })
  await opened.load()
  assert.equal(opened.extensions().find((e) => e.name === 'local')?.source, 'project')
  await opened.shutdown()
})

test('services resolve at call time and disposers run LIFO on shutdown', async (t) => {
  const home = tempDir(t)
  const order: string[] = []
  const kernel = kernelFor(home, {
    inline: [
      { definition: defineExtension({ name: 'provider', setup(api) { api.services.provide('clock', { now: () => 42 }); api.onDispose(() => void order.push('provider')) } }) },
      {
        definition: defineExtension({
          name: 'consumer',
          dependsOn: ['provider'],
          setup(api) {
            api.onDispose(() => void order.push('consumer-1'))
            api.onDispose(() => void order.push('consumer-2'))
            api.services.provide('reader', { read: () => api.services.require<{ now(): number }>('clock').now() })
          },
        }),
      },
    ],
  })
  await kernel.load()
  assert.equal(kernel.services.require<{ read(): number }>('reader').read(), 42)
  await kernel.shutdown()
  assert.deepEqual(order, ['consumer-2', 'consumer-1', 'provider'])
})

test('a service frozen after it was provided still answers, through its own method', async (t) => {
  const home = tempDir(t)
  const service = { twice: (n: number) => n * 2 }
  const kernel = kernelFor(home, { inline: [{ definition: defineExtension({ name: 'freezer', setup(api) { api.services.provide('twice', service) } }) }] })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const seen = kernel.services.require<typeof service>('twice')
  assert.equal(seen.twice(2), 4, 'the first call makes the counting wrapper')
  // Now a proxy may only answer with the property itself (a wrapper would make the access throw).
  Object.freeze(service)
  assert.equal(seen.twice, service.twice)
  assert.equal(seen.twice(3), 6)
})

test('modules the loader hands an extension are its exports, not proxies around them', async (t) => {
  // jiti's interopDefault wrapped every module in a Proxy: each call of an imported function in
  // transformed code went through a trap, on every request's path.
  const home = tempDir(t)
  userExtension(home, 'probe', `
import { types } from 'node:util'
import { defineExtension } from 'agent/sdk'
import byDefault, { helper } from './helper.ts'
export default defineExtension({ name: 'probe', setup(api) {
  api.tools.register({ name: 'probe_tool', description: 'd', parameters: { type: 'object' }, execute: () => JSON.stringify([helper(), byDefault, types.isProxy(require('agent/sdk')), types.isProxy(require('./helper.ts'))]) })
} })
`)
  writeFileSync(join(home, 'extensions', 'probe', 'helper.ts'), `export const helper = () => 'helped'\nexport default 'the default'\n`)
  const kernel = kernelFor(home)
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.equal(kernel.extensions().find((e) => e.name === 'probe')?.state, 'loaded')
  assert.deepEqual(JSON.parse(await kernel.registries.tools.get('probe_tool').execute({})), ['helped', 'the default', false, false], 'named and default imports still resolve')
})
