// deferrals: clean-up in the reverse order of set-up, every step run even when one fails.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { deferrals } from './teardown.ts'

/** A stand-in for a test context whose after-hooks are run by hand. */
function context() {
  const hooks: Array<() => unknown> = []
  return { after: (fn: () => unknown) => void hooks.push(fn), end: async () => { for (const hook of hooks) await hook() } }
}

test('deferred steps run last first, awaited one by one', async () => {
  const t = context()
  const defer = deferrals(t)
  const order: string[] = []
  defer(() => order.push('remove the home'))
  defer(async () => {
    await new Promise((resolve) => setTimeout(resolve, 10))
    order.push('stop the gateway')
  })
  defer(() => order.push('close the browser'))
  await t.end()
  assert.deepEqual(order, ['close the browser', 'stop the gateway', 'remove the home'])
})

test('a failing step does not skip the others; the first failure is thrown', async () => {
  const t = context()
  const defer = deferrals(t)
  const order: string[] = []
  defer(() => order.push('remove the home'))
  defer(() => {
    throw new Error('gateway would not stop')
  })
  defer(() => {
    throw new Error('browser would not close')
  })
  await assert.rejects(t.end(), /browser would not close/)
  assert.deepEqual(order, ['remove the home'])
})
