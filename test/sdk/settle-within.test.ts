// settleWithin: a shutdown wait that ends when the promise settles either way, or at the deadline
// when it never does, and never rejects.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { settleWithin } from 'agent/sdk'

test('ends when the promise resolves or rejects, without rejecting', async () => {
  let resolved = false
  await settleWithin(Promise.resolve().then(() => (resolved = true)), 60_000)
  assert.equal(resolved, true)
  await settleWithin(Promise.reject(new Error('socket gone')), 60_000)
})

test('a promise that never settles ends the wait at the deadline', async () => {
  await settleWithin(new Promise(() => undefined), 5)
})
