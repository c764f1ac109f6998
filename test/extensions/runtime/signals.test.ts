// The run's abort signal: it follows the caller's signal and the runtime extension's own (unload),
// and is released when the run ends: many concurrent runs leave no listener behind and raise no
// listener-leak warning.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { runtimeFixture } from './helpers.ts'

test('concurrent runs sharing a caller signal leave no listener on it and no leak warning', async (t) => {
  const { runtime } = await runtimeFixture(t, { model: { respond: () => ({ text: 'ok' }) } })
  const warnings: Error[] = []
  const onWarning = (w: Error) => warnings.push(w)
  process.on('warning', onWarning)
  t.after(() => process.off('warning', onWarning))
  const shared = new AbortController()
  const results = await Promise.all(Array.from({ length: 24 }, (_, i) => runtime.run({ input: `hello ${i}`, signal: shared.signal, persist: false })))
  assert.deepEqual(new Set(results.map((r) => r.exitReason)), new Set(['completed']))
  assert.equal(getEventListeners(shared.signal, 'abort').length, 0)
  await new Promise((resolve) => setImmediate(resolve))
  assert.deepEqual(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message), [])
})

test('unloading the runtime interrupts the runs in flight', async (t) => {
  const { tk, runtime } = await runtimeFixture(t, { model: { turns: [{ text: 'late', delayMs: 20_000 }, { text: 'late', delayMs: 20_000 }] } })
  const runs = [runtime.run({ input: 'one', persist: false }), runtime.run({ input: 'two', persist: false, signal: new AbortController().signal })]
  await new Promise((resolve) => setTimeout(resolve, 200))
  await tk.kernel.unload('runtime')
  const results = await Promise.all(runs)
  assert.deepEqual(results.map((r) => r.exitReason), ['interrupted', 'interrupted'])
})
