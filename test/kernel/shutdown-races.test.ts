// Stopping while start-up work is still under way: the extension watcher being set up, and what a
// ready hook opens after awaiting something, must still be closed, or their handles keep the process
// alive after the gateway says it stopped.

import assert from 'node:assert/strict'
import { mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { createKernel, type KernelOptions } from '../../kernel/index.ts'
import { defineExtension } from '../../sdk/index.ts'
import { hermeticEnv, makeTempHome } from '../../sdk/testing/index.ts'
import { deferrals } from '../helpers/teardown.ts'

/** Open fs.watch handles (chokidar's), by resource name. */
const watches = () => process.getActiveResourcesInfo().filter((name) => name === 'FSEventWrap').length

/** The open watches once those being closed are gone (a closed handle leaves on a later turn); bounded. */
async function watchesAfterClose(expected: number): Promise<number> {
  for (let waited = 0; watches() !== expected && waited < 1_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
  return watches()
}

/** A loaded kernel on a home of its own; both go when the test ends, the kernel first (also after a failed assertion). */
async function kernelFor(t: TestContext, options: Partial<KernelOptions> = {}) {
  const defer = deferrals(t)
  const home = makeTempHome()
  defer(() => rmSync(home, { recursive: true, force: true }))
  // A few folders, so that the watcher's set-up takes some turns of the event loop.
  for (const name of ['a', 'b', 'c']) mkdirSync(join(home, 'extensions', name, 'lib'), { recursive: true })
  const kernel = createKernel({ home, env: hermeticEnv({}, home), cwd: home, builtinsDir: false, logLevel: 'silent', ...options })
  defer(() => kernel.shutdown())
  await kernel.load()
  return kernel
}

for (const [when, pause] of [['as start begins', () => Promise.resolve()], ['while the watcher is being set up', () => new Promise((resolve) => setImmediate(resolve))]] as const) {
  test(`a shutdown ${when} leaves no file watch open`, async (t) => {
    const before = watches()
    const kernel = await kernelFor(t)
    const started = kernel.start('gateway')
    await pause()
    await kernel.shutdown()
    await started
    assert.equal(await watchesAfterClose(before), before)
  })
}

test('start after a shutdown watches again; the second shutdown closes it', async (t) => {
  const before = watches()
  const kernel = await kernelFor(t)
  await kernel.start('gateway')
  assert.ok(watches() > before, 'started in gateway mode, the extension folders are watched')
  await kernel.shutdown()
  assert.equal(await watchesAfterClose(before), before)
  await kernel.start('gateway')
  assert.ok(watches() > before, 'watched again after a restart')
  await kernel.shutdown()
  assert.equal(await watchesAfterClose(before), before)
})

test('watch() called twice at once sets up one watcher', async (t) => {
  const before = watches()
  const kernel = await kernelFor(t)
  await Promise.all([kernel.watch(), kernel.watch()])
  const one = watches() - before
  await kernel.shutdown()
  assert.equal(await watchesAfterClose(before), before, `both calls' watches are closed (${one} were open)`)
})

test('a disposer registered after its extension was unloaded runs at once', async (t) => {
  // An unload lets calls under way settle first, for a bounded time: a ready hook slower than that is
  // still running when the version is torn down.
  const kernel = await kernelFor(t, { drainTimeoutMs: 20 })
  let release!: () => void
  const slow = new Promise<void>((resolve) => (release = resolve))
  const events: string[] = []
  await kernel.add({
    definition: defineExtension({
      name: 'late-dispose',
      setup(api) {
        api.onDispose(() => void events.push('registered in setup'))
        // As a ready hook that opens something once an awaited step is done.
        api.hooks.ready.tapPromise(async () => {
          await slow
          api.onDispose(() => void events.push('registered late'))
        })
      },
    }),
  })
  const started = kernel.start('command')
  // The hook goes on well after the unload has given up waiting for it.
  const released = setTimeout(() => release(), 300)
  t.after(() => clearTimeout(released))
  await kernel.unload('late-dispose')
  assert.deepEqual(events, ['registered in setup'])
  await started
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(events, ['registered in setup', 'registered late'], 'the late disposer ran although the unload was over')
})

test('a late disposer that fails is logged, not thrown at the caller', async (t) => {
  const lines: string[] = []
  const kernel = await kernelFor(t, { logLevel: 'warn', logSink: { write: (line) => void lines.push(line) } })
  let late!: (fn: () => void) => void
  await kernel.add({ definition: defineExtension({ name: 'late-fail', setup(api) { late = (fn) => api.onDispose(fn) } }) })
  await kernel.unload('late-fail')
  assert.doesNotThrow(() => late(() => { throw new Error('cannot close') }))
  await new Promise((resolve) => setImmediate(resolve))
  assert.ok(lines.some((l) => /a disposer failed: cannot close/.test(l)), lines.join('\n'))
})
