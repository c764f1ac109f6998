// observeLater: events reach the observe hook's taps after the current turn of the event loop and
// the loop's next poll for I/O, in the order raised, stamped when raised; a failing observer reaches
// nobody's caller.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension, observeLater, type ObservedEvent } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

/** Once the event loop has gone round once more (past the immediates of this turn, and the next poll). */
const nextIteration = () => new Promise((resolve) => setImmediate(() => setImmediate(resolve)))

function observing(tap: (event: ObservedEvent) => Promise<void> | void) {
  return { hooks: { observe: { promise: async (event: ObservedEvent) => tap(event) } } } as never
}

test('events are delivered after this turn, in order, with the time they were raised', async () => {
  const seen: ObservedEvent[] = []
  const api = observing((event) => void seen.push(event))
  const before = Date.now()
  observeLater(api, { type: 'run.start', sessionId: 's1' })
  observeLater(api, { type: 'run.end', sessionId: 's1' })
  await Promise.resolve()
  assert.equal(seen.length, 0, 'nothing is delivered within the turn that raised it')
  await nextIteration()
  assert.deepEqual(seen.map((e) => e.type), ['run.start', 'run.end'])
  assert.ok(seen[0]!.at >= before && seen[0]!.at <= Date.now())
  observeLater(api, { type: 'given', at: 42 })
  await nextIteration()
  assert.equal(seen.at(-1)!.at, 42, 'a time the event carries is kept')
})

test('work queued for right after this turn runs before the observers', async () => {
  const order: string[] = []
  observeLater(observing((event) => void order.push(event.type)), { type: 'observed' })
  // As the session's commit, queued behind an answer after the run raised its events.
  setImmediate(() => order.push('after this turn'))
  await nextIteration()
  await nextIteration()
  assert.deepEqual(order, ['after this turn', 'observed'])
})

test('an observer that fails does not stop the others or reach the caller', async () => {
  const seen: string[] = []
  observeLater(observing(() => Promise.reject(new Error('observer broke'))), { type: 'a' })
  observeLater(observing((event) => void seen.push(event.type)), { type: 'b' })
  await nextIteration()
  assert.deepEqual(seen, ['b'])
})

test('hooks that are gone by delivery cost that event only', async () => {
  const seen: string[] = []
  const gone = { get hooks(): never { throw new Error('extension unloaded') } } as never
  observeLater(gone, { type: 'lost' })
  observeLater(observing((event) => void seen.push(event.type)), { type: 'kept' })
  await nextIteration()
  assert.deepEqual(seen, ['kept'])
})

test('events raised right before a shutdown reach their observers before the shutdown hooks run', async () => {
  const seen: string[] = []
  let atShutdown: string[] | undefined
  let raise!: (type: string) => void
  const watcher = defineExtension({
    name: 'watcher',
    setup(api) {
      raise = (type) => observeLater(api, { type })
      api.hooks.observe.tap((event) => void seen.push(event.type))
      api.hooks.shutdown.tapPromise(async () => void (atShutdown = [...seen]))
    },
  })
  const host = await createTestKernel({ extensions: [watcher] })
  try {
    await host.kernel.start('command')
    raise('run.end')
    await host.kernel.shutdown()
    assert.deepEqual(atShutdown, ['run.end'])
  } finally {
    await host.close()
  }
})
