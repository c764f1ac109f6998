// startOnce: a second start while one is under way joins it; after it settles (even failed) a new
// start runs again; settled() never throws.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startOnce } from 'agent/sdk'

test('a start under way is joined, not repeated; the next one runs again', async () => {
  let calls = 0
  let finish!: () => void
  const starting = startOnce(async (_ctx: string) => {
    calls++
    await new Promise<void>((resolve) => (finish = resolve))
  })
  const first = starting.run('a')
  const second = starting.run('b')
  assert.equal(first, second)
  assert.equal(starting.busy, true)
  finish()
  await first
  assert.equal(starting.busy, false)
  const third = starting.run('c')
  finish()
  await third
  assert.equal(calls, 2)
})

test('a failed start rejects its callers but settles for stop()', async () => {
  const starting = startOnce(async () => {
    throw new Error('no route')
  })
  const run = starting.run(undefined)
  await starting.settled()
  await assert.rejects(run, /no route/)
  assert.equal(starting.busy, false)
  await starting.settled()
})
