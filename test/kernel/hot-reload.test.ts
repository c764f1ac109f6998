// Hot reload: a changed extension is rebuilt and swapped in only if it loaded; its old registrations,
// taps and resources go; in-flight calls finish on the old version.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { createKernel } from '../../kernel/index.ts'
import { sealingSettled } from '../../kernel/loader/version.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'
import { tempDir } from '../helpers/temp.ts'

const versioned = (version: number, delayMs = 0) => `
import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'live', setup(api) {
  api.tools.register({ name: 'live_tool', description: 'd', parameters: {}, execute: async () => { await new Promise((r) => setTimeout(r, ${delayMs})); return ${version} } })
  api.hooks.observe.tap(() => { globalThis.__liveObserved = ${version} })
  api.onDispose(() => { globalThis.__liveDisposed = [...(globalThis.__liveDisposed ?? []), ${version}] })
} })
`

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached in time')
    await sleep(20)
  }
}

test('kernel.reload swaps versions; a broken version keeps the old one; in-flight calls finish on the old', async (t) => {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'live')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), versioned(1, 300))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const g = globalThis as any
  g.__liveDisposed = []

  const inflight = kernel.registries.tools.get('live_tool').execute({})
  writeFileSync(join(dir, 'index.ts'), versioned(2))
  const result = await kernel.reload('live')
  assert.deepEqual(result, { name: 'live', ok: true })
  assert.equal(await inflight, 1, 'the call started on version 1 finishes there')
  assert.deepEqual(g.__liveDisposed, [1], 'old disposers ran after the in-flight call settled')
  assert.equal(await kernel.registries.tools.get('live_tool').execute({}), 2)
  await kernel.hooks.observe.promise({ type: 'x', at: 0 })
  assert.equal(g.__liveObserved, 2, 'old taps are gone, new ones are live')

  writeFileSync(join(dir, 'index.ts'), 'export default {{ broken')
  const failed = await kernel.reload('live')
  assert.equal(failed.ok, false)
  assert.match(failed.reason!, /index\.ts:1:\d+/)
  assert.equal(await kernel.registries.tools.get('live_tool').execute({}), 2, 'version 2 keeps serving')
  assert.match(kernel.extensions().find((e) => e.name === 'live')!.reason!, /previous version still running/)
})

test('a package of its own inside an extension is not built with it, and the extension still imports from it', async (t) => {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'bridged')
  mkdirSync(join(dir, 'bridge'), { recursive: true })
  writeFileSync(join(dir, 'bridge', 'package.json'), '{ "name": "bridge", "type": "module", "private": true }\n')
  // A program run on its own: top-level await, which the extension's CommonJS build cannot hold.
  writeFileSync(join(dir, 'bridge', 'main.mjs'), 'await new Promise((resolve) => setTimeout(resolve, 1))\nexport {}\n')
  writeFileSync(join(dir, 'bridge', 'shared.mjs'), 'export const label = (n) => `v${n}`\n')
  const entry = (n: number) => `import { defineExtension } from 'agent/sdk'
import { label } from './bridge/shared.mjs'
export default defineExtension({ name: 'bridged', setup(api) {
  api.tools.register({ name: 'bridged_tool', description: 'd', parameters: {}, execute: async () => label(${n}) })
} })
`
  writeFileSync(join(dir, 'index.ts'), entry(1))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.equal(await kernel.registries.tools.get('bridged_tool').execute({}), 'v1')
  writeFileSync(join(dir, 'index.ts'), entry(2))
  assert.deepEqual(await kernel.reload('bridged'), { name: 'bridged', ok: true })
  assert.equal(await kernel.registries.tools.get('bridged_tool').execute({}), 'v2')
})

test('the watcher reloads a changed user extension, loads a new one and unloads a removed one', async (t) => {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'live')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), versioned(1))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  await kernel.start('gateway')
  const tool = () => kernel.registries.tools.get('live_tool')

  writeFileSync(join(dir, 'index.ts'), versioned(3))
  await until(() => tool() !== undefined && (tool().execute({}) as Promise<number>) !== undefined && (globalThis as any).__liveDisposed?.includes?.(1) !== false)
  await until(() => kernel.extensions().find((e) => e.name === 'live')?.state === 'loaded')
  let value = 0
  await until(() => {
    void Promise.resolve(tool()?.execute({})).then((v) => (value = v as number))
    return value === 3
  })

  const other = join(home, 'extensions', 'fresh')
  mkdirSync(other, { recursive: true })
  writeFileSync(join(other, 'index.ts'), `import { defineExtension } from 'agent/sdk'; export default defineExtension({ name: 'fresh', setup(api) { api.tools.register({ name: 'fresh_tool', description: 'd', parameters: {}, execute: () => 'new' }) } })`)
  await until(() => kernel.registries.tools.get('fresh_tool') !== undefined)

  rmSync(other, { recursive: true, force: true })
  await until(() => kernel.registries.tools.get('fresh_tool') === undefined)
  assert.equal(kernel.extensions().some((e) => e.name === 'fresh'), false)
})

test('built-in extensions hot-reload too', async (t) => {
  const home = tempDir(t)
  const builtins = tempDir(t)
  const dir = join(builtins, 'live')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), versioned(10))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: builtins, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.equal(kernel.extensions().find((e) => e.name === 'live')?.source, 'builtin')
  await kernel.start('gateway')
  writeFileSync(join(dir, 'index.ts'), versioned(11))
  let value = 0
  await until(() => {
    void Promise.resolve(kernel.registries.tools.get('live_tool')?.execute({})).then((v) => (value = v as number))
    return value === 11
  })
})

test('a reload lets running service calls finish before the old version is aborted', async (t) => {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'svc')
  mkdirSync(dir, { recursive: true })
  const source = (version: number) => `
import { defineExtension } from 'agent/sdk'
class Runner { #version = ${version}; get version() { return this.#version }
  constructor(signal) { this.signal = signal }
  async run(ms) { await new Promise((r) => setTimeout(r, ms)); return this.signal.aborted ? 'aborted' : 'finished on ' + this.#version } }
export default defineExtension({ name: 'svc', setup(api) { api.services.provide('runner', new Runner(api.signal)) } })`
  writeFileSync(join(dir, 'index.ts'), source(1))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  const runner = kernel.services.require<{ run(ms: number): Promise<string>; version: number }>('runner')
  assert.equal(runner.version, 1, 'getters and private fields work through the tracking proxy')
  assert.equal(await runner.run(1), 'finished on 1')
  // The second call takes the wrapper the first one made: still counted, still drained.
  const running = runner.run(300)
  writeFileSync(join(dir, 'index.ts'), source(2))
  assert.equal((await kernel.reload('svc')).ok, true)
  assert.equal(await running, 'finished on 1')
  assert.equal(kernel.services.require<{ version: number }>('runner').version, 2)
})

test('installed plugins (under plugins/node_modules) hot-reload, and reload by package name finds them', async (t) => {
  const home = tempDir(t)
  const pkg = join(home, 'plugins', 'node_modules', '@acme', 'agent-live')
  mkdirSync(pkg, { recursive: true })
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@acme/agent-live', version: '1.0.0', agent: { extensions: ['./index.ts'] } }))
  writeFileSync(join(pkg, 'index.ts'), versioned(20))
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  assert.equal(kernel.extensions().find((e) => e.name === 'live')?.source, 'plugin')
  await kernel.start('gateway')
  const value = async () => kernel.registries.tools.get('live_tool')?.execute({})
  writeFileSync(join(pkg, 'index.ts'), versioned(21))
  let seen: unknown
  await until(() => {
    void value().then((v) => (seen = v))
    return seen === 21
  })
  writeFileSync(join(pkg, 'index.ts'), versioned(22))
  const byPackage = await kernel.reload('agent-live')
  assert.deepEqual(byPackage, { name: 'live', ok: true })
  assert.equal(await value(), 22)
  assert.equal(kernel.extensions().filter((e) => e.name === 'live' || e.name === 'agent-live').length, 1, 'no duplicate record')
})

/** A user extension whose tool answers from a module it imports on first use. */
async function lazyExtension(t: import('node:test').TestContext) {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'lazy')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'lazy', setup(api) {
  api.tools.register({ name: 'lazy_tool', description: 'd', parameters: {}, execute: async () => (await import('./answer.ts')).answer() })
} })
`)
  const answer = (text: string) => writeFileSync(join(dir, 'answer.ts'), `export function answer(): string {\n  return ${JSON.stringify(text)}\n}\n`)
  const broken = () => writeFileSync(join(dir, 'answer.ts'), 'export function answer(): string {\n  return "half written";;\n  const = 1\n}\n')
  answer('v1')
  const lines: string[] = []
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'info', logSink: { write: (line) => lines.push(line) } })
  t.after(() => kernel.shutdown())
  await kernel.load()
  await kernel.start('gateway')
  await sealingSettled()
  const call = () => Promise.resolve(kernel.registries.tools.get('lazy_tool').execute({})).then(String, (error: Error) => `error: ${error.message}`)
  const failedReload = () => until(() => lines.some((l) => l.includes('reload of "lazy" failed')))
  return { dir, kernel, lines, answer, broken, call, failedReload }
}

test('a syntax error saved into a lazily imported file keeps the old version answering, reported with file:line:col', async (t) => {
  const { dir, kernel, lines, answer, broken, call, failedReload } = await lazyExtension(t)
  assert.equal(await call(), 'v1')

  broken()
  await failedReload()
  const report = lines.find((l) => l.includes('reload of "lazy" failed'))!
  assert.ok(report.includes(`reload of "lazy" failed, keeping the previous version: ${join(dir, 'answer.ts')}:3:`), report)
  assert.ok(!lines.some((l) => l.includes('reloaded "lazy"')), 'a broken save is never reported as reloaded')
  assert.equal(await call(), 'v1', 'the old version still answers')
  assert.match(kernel.extensions().find((e) => e.name === 'lazy')!.reason!, /previous version still running.*answer\.ts:3:/)

  answer('v2')
  await until(() => lines.some((l) => l.includes('reloaded "lazy"')))
  assert.equal(kernel.extensions().find((e) => e.name === 'lazy')!.state, 'loaded')
  // The new version's lazy module was compiled at build time: breaking the file again before its
  // first use does not reach it (the failed reload keeps this version, which still answers v2).
  lines.length = 0
  broken()
  await failedReload()
  assert.equal(await call(), 'v2')
  answer('v3')
  await until(async () => (await call()) === 'v3')
})

test('the version running since start answers from its own files even if its lazy module was never loaded before a broken save', async (t) => {
  const { broken, call, failedReload } = await lazyExtension(t)
  broken()
  await failedReload()
  assert.equal(await call(), 'v1')
})

test('lazily imported modules in an import cycle load once, from the sealed start-up version and from a reloaded one', async (t) => {
  const home = tempDir(t)
  const dir = join(home, 'extensions', 'cycle')
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'index.ts'), `import { defineExtension } from 'agent/sdk'
export default defineExtension({ name: 'cycle', setup(api) {
  api.tools.register({ name: 'cycle_tool', description: 'd', parameters: {}, execute: async () => (await import('./a.ts')).describe() })
} })
`)
  const write = (tag: string) => {
    writeFileSync(join(dir, 'a.ts'), `import { fromB, loads as bLoads } from './b.ts'\nexport let loads = 0\nloads++\nexport const tag = '${tag}'\nexport function describe() { return \`\${fromB()}:\${loads}:\${bLoads}\` }\n`)
    writeFileSync(join(dir, 'b.ts'), `import * as a from './a.ts'\nexport let loads = 0\nloads++\nexport function fromB() { return a.tag }\n`)
  }
  write('one')
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent' })
  t.after(() => kernel.shutdown())
  await kernel.load()
  await kernel.start('gateway')
  await sealingSettled()
  const call = () => kernel.registries.tools.get('cycle_tool').execute({})
  assert.equal(await call(), 'one:1:1')
  write('two')
  assert.equal((await kernel.reload('cycle')).ok, true)
  assert.equal(await call(), 'two:1:1')
  assert.equal(await call(), 'two:1:1')
})
