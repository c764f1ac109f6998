// The shared provider failure policy (sdk/provider-kit.ts) on its own: what is transient, how long
// backoff waits (bounded, Retry-After honoured up to the cap), what one error line says, and that
// abort, timeout and already-streamed output stop retries.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AgentError, backoffDelay, callProvider, describeProviderError, isTransient, parseRetryAfter, ProviderHttpError, ProviderProtocolError } from 'agent/sdk'

const base = { provider: 'p', baseUrl: 'http://127.0.0.1:1234/v1', timeoutMs: 5000, retries: 3, baseDelayMs: 1, maxDelayMs: 5 }
const sysError = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(`connect ${code}`), { code }) })

test('transient: 408/409/425/429/5xx, reset and dropped sockets, broken streams; not 4xx, refused, unknown host', () => {
  for (const status of [408, 409, 425, 429, 500, 502, 503, 529]) assert.equal(isTransient(new ProviderHttpError(status, 'x')), true, String(status))
  for (const status of [400, 401, 403, 404, 422]) assert.equal(isTransient(new ProviderHttpError(status, 'x')), false, String(status))
  assert.equal(isTransient(sysError('ECONNRESET')), true)
  assert.equal(isTransient(sysError('UND_ERR_SOCKET')), true)
  assert.equal(isTransient(new Error('socket hang up')), true)
  assert.equal(isTransient(new ProviderProtocolError('truncated')), true)
  assert.equal(isTransient(new ProviderProtocolError('not an API', false)), false)
  assert.equal(isTransient(sysError('ECONNREFUSED')), false)
  assert.equal(isTransient(sysError('ENOTFOUND')), false)
  assert.equal(isTransient(new Error('plain bug')), false)
})

test('backoff doubles with jitter, never past the cap; Retry-After is honoured up to the cap', () => {
  for (let retry = 0; retry < 8; retry++) {
    const d = backoffDelay(retry, { baseDelayMs: 100, maxDelayMs: 1000 })
    assert.ok(d >= Math.min(1000, 50 * 2 ** retry) && d <= 1000, `${retry}: ${d}`)
  }
  assert.equal(backoffDelay(0, { baseDelayMs: 10, maxDelayMs: 1000 }, 700), 700)
  assert.equal(backoffDelay(0, { baseDelayMs: 10, maxDelayMs: 1000 }, 60_000), 1000)
  assert.equal(parseRetryAfter('3'), 3000)
  assert.equal(parseRetryAfter(null), undefined)
  const at = parseRetryAfter(new Date(Date.now() + 5000).toUTCString())!
  assert.ok(at > 3000 && at <= 5000)
})

test('one line per failure: status and server words, network reasons, secrets masked, auth hint', () => {
  const opts = { provider: 'p', baseUrl: 'http://h/v1', secrets: ['s3cr3t-value'], authHint: 'set P_API_KEY' }
  assert.equal(describeProviderError(new ProviderHttpError(401, 'invalid key s3cr3t-value\nmore'), opts), 'p: HTTP 401 from http://h/v1: invalid key *** more (set P_API_KEY)')
  assert.equal(describeProviderError(sysError('ECONNREFUSED'), opts), 'p: cannot reach http://h/v1: connection refused')
  assert.equal(describeProviderError(sysError('ENOTFOUND'), opts), 'p: cannot reach http://h/v1: host not found')
  assert.equal(describeProviderError(Object.assign(new TypeError('fetch failed'), { cause: new Error('bad port') }), opts), 'p: cannot reach http://h/v1: bad port')
  assert.equal(describeProviderError(new Error('Bearer abcdefghijklmnop leaked'), opts), 'p: Bearer *** leaked')
})

test('callProvider: retries transient failures a bounded number of times, then one line with the count', async () => {
  let attempts = 0
  const ok = await callProvider(base, async () => {
    if (++attempts < 3) throw new ProviderHttpError(429, 'slow down', 1)
    return 'done'
  })
  assert.deepEqual([ok, attempts], ['done', 3])
  attempts = 0
  await assert.rejects(
    callProvider(base, async () => {
      attempts++
      throw new ProviderHttpError(500, 'boom')
    }),
    (e: unknown) => AgentError.isInstance(e) && e.code === 'E_PROVIDER' && e.message === 'p: HTTP 500 from http://127.0.0.1:1234/v1: boom (after 4 attempts)',
  )
  assert.equal(attempts, 4)
})

test('callProvider: output already delivered is not retried; abort and timeout end at once', async () => {
  let attempts = 0
  await assert.rejects(
    callProvider(base, async (attempt) => {
      attempts++
      attempt.markDelivered()
      throw new ProviderProtocolError('the stream ended early')
    }),
    /p: the stream ended early/,
  )
  assert.equal(attempts, 1)

  const controller = new AbortController()
  const pending = callProvider({ ...base, signal: controller.signal, baseDelayMs: 10_000, maxDelayMs: 10_000 }, async () => {
    throw new ProviderHttpError(503, 'busy')
  })
  setTimeout(() => controller.abort(), 20)
  await assert.rejects(pending, (e: unknown) => AgentError.isInstance(e) && e.code === 'E_INTERRUPTED')

  await assert.rejects(
    callProvider({ ...base, timeoutMs: 50 }, (attempt) => new Promise((_, reject) => attempt.signal.addEventListener('abort', () => reject(new Error('aborted'))))),
    (e: unknown) => AgentError.isInstance(e) && e.code === 'E_PROVIDER' && /no answer from http:\/\/127\.0\.0\.1:1234\/v1 within 0\.05 s \(AGENT_API_TIMEOUT\)/.test(e.message),
  )
})
