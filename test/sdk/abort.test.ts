// linkAbort (sdk/abort.ts): a signal following other signals until disposed, leaving no listener
// behind on its sources; and callProvider, which uses it per attempt.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { getEventListeners } from 'node:events'
import { callProvider, linkAbort } from 'agent/sdk'

test('linkAbort follows the first source to abort, with its reason, and then lets go of all sources', () => {
  const a = new AbortController()
  const b = new AbortController()
  const link = linkAbort(a.signal, undefined, b.signal)
  assert.equal(link.signal.aborted, false)
  assert.equal(getEventListeners(a.signal, 'abort').length, 1)
  b.abort(new Error('b stopped'))
  assert.equal(link.signal.aborted, true)
  assert.equal((link.signal.reason as Error).message, 'b stopped')
  assert.equal(getEventListeners(a.signal, 'abort').length, 0, 'the other source is released at once')
})

test('linkAbort: an already aborted source, abort() and dispose()', () => {
  const done = AbortSignal.abort('early')
  const later = new AbortController()
  const link = linkAbort(done, later.signal)
  assert.equal(link.signal.reason, 'early')
  assert.equal(getEventListeners(later.signal, 'abort').length, 0)

  const source = new AbortController()
  const own = linkAbort(source.signal)
  own.abort('mine')
  assert.equal(own.signal.reason, 'mine')
  assert.equal(source.signal.aborted, false, 'aborting the link never aborts a source')
  assert.equal(getEventListeners(source.signal, 'abort').length, 0)

  const disposed = linkAbort(source.signal)
  disposed.dispose()
  source.abort()
  assert.equal(disposed.signal.aborted, false, 'a disposed link no longer follows')
})

test('callProvider leaves no listener on the caller signal, after success, failure and retries', async () => {
  const caller = new AbortController()
  const base = { provider: 'p', baseUrl: 'http://127.0.0.1:1/v1', timeoutMs: 5000, retries: 2, baseDelayMs: 1, maxDelayMs: 2, signal: caller.signal }
  for (let i = 0; i < 20; i++) {
    const value = await callProvider(base, async (attempt) => {
      // What fetch clients do: a listener on the attempt's signal, never removed.
      attempt.signal.addEventListener('abort', () => undefined)
      return i
    })
    assert.equal(value, i)
  }
  let attempts = 0
  await assert.rejects(
    callProvider(base, async () => {
      attempts++
      throw Object.assign(new Error('socket hang up'), {})
    }),
    /after 3 attempts/,
  )
  assert.equal(attempts, 3)
  assert.equal(getEventListeners(caller.signal, 'abort').length, 0)
})

test('many links following one signal share one listener on it (no listener-leak warning), released with the last', () => {
  const source = new AbortController()
  const links = Array.from({ length: 50 }, () => linkAbort(source.signal))
  assert.equal(getEventListeners(source.signal, 'abort').length, 1)
  for (const link of links.slice(0, 49)) link.dispose()
  assert.equal(getEventListeners(source.signal, 'abort').length, 1)
  const again = linkAbort(source.signal)
  links[49]!.dispose()
  assert.equal(getEventListeners(source.signal, 'abort').length, 1, 'still followed by `again`')
  source.abort('stop')
  assert.equal(again.signal.reason, 'stop')
  assert.equal(links[0]!.signal.aborted, false, 'disposed links stay as they were')
  assert.equal(getEventListeners(source.signal, 'abort').length, 0)
  const late = linkAbort(source.signal)
  assert.equal(late.signal.reason, 'stop')
})

test('linkAbortWithTimeout fires its deadline even when nothing else holds the signal (Node 20 GC)', async () => {
  const { linkAbortWithTimeout } = await import('../../sdk/abort.ts')
  const parent = new AbortController()
  const link = linkAbortWithTimeout(50, parent.signal)
  const seen = await new Promise<string>((resolve) => {
    link.signal.addEventListener('abort', () => resolve((link.signal.reason as Error).name), { once: true })
    // Pressure the garbage collector while waiting, where the runtime exposes it.
    for (let i = 0; i < 5; i++) (globalThis as { gc?: () => void }).gc?.()
  })
  assert.equal(seen, 'TimeoutError')
  link.dispose()
  const early = linkAbortWithTimeout(10_000, parent.signal)
  parent.abort(new Error('stop'))
  assert.equal((early.signal.reason as Error).message, 'stop')
  early.dispose()
})
