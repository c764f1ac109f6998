// The shared provider failure policy (sdk/provider-kit.ts) on its own: what is transient, how long
// backoff waits (bounded, Retry-After honoured up to the cap), what one error line says, and that
// abort, timeout and already-streamed output stop retries.

import { test } from 'node:test'
import assert from 'node:assert/strict'
import { AgentError, AnswerTooLargeError, backoffDelay, callProvider, describeProviderError, isTransient, limitResponse, MAX_ANSWER_BYTES, maxAnswerBytes, parseRetryAfter, ProviderHttpError, ProviderProtocolError } from 'agent/sdk'

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

test('answer cap: 64 MiB by default, AGENT_API_MAX_ANSWER_MB overrides; past it one line, not retried', async () => {
  const env = (values: Record<string, string>) => ({ env: (name: string) => values[name] })
  assert.equal(MAX_ANSWER_BYTES, 64 * 1024 * 1024)
  assert.equal(maxAnswerBytes(), MAX_ANSWER_BYTES)
  assert.equal(maxAnswerBytes(env({})), MAX_ANSWER_BYTES)
  assert.equal(maxAnswerBytes(env({ AGENT_API_MAX_ANSWER_MB: '256' })), 256 * 1024 * 1024)
  assert.equal(maxAnswerBytes(env({ AGENT_API_MAX_ANSWER_MB: '0.5' })), 512 * 1024)
  assert.equal(maxAnswerBytes(env({ AGENT_API_MAX_ANSWER_MB: '' })), MAX_ANSWER_BYTES)
  // A value that is set but not a size is an error, never a silent default.
  for (const bad of ['0', '-3', 'lots', 'NaN']) assert.throws(() => maxAnswerBytes(env({ AGENT_API_MAX_ANSWER_MB: bad })), /AGENT_API_MAX_ANSWER_MB must be a positive number of MiB/, bad)
  const error = new AnswerTooLargeError(MAX_ANSWER_BYTES)
  assert.ok(error instanceof ProviderProtocolError)
  assert.equal(isTransient(error), false)
  assert.equal(describeProviderError(error, { provider: 'p', baseUrl: 'http://h/v1' }), "p: the endpoint's answer is larger than 64 MiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)")
  let attempts = 0
  await assert.rejects(
    callProvider(base, async () => {
      attempts++
      throw new AnswerTooLargeError(1024, 'streamed answer')
    }),
    (e: unknown) => AgentError.isInstance(e) && e.message === "p: the endpoint's streamed answer is larger than 1 KiB; refused (AGENT_API_MAX_ANSWER_MB raises the cap)",
  )
  assert.equal(attempts, 1)
})

test('limitResponse: a body past the cap fails as read, a declared length past it at once; SSE is capped per event', async () => {
  const bytes = (n: number) => new Uint8Array(n).fill(0x20)
  const from = (chunks: Uint8Array[], init: ResponseInit = {}) => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull: (c) => void (chunks.length ? c.enqueue(chunks.shift()!) : c.close()),
      cancel: () => void (cancelled = true),
    })
    return { response: new Response(body, init), cancelled: () => cancelled }
  }
  assert.equal(await limitResponse(from([bytes(600), bytes(400)]).response, 1000).text(), ' '.repeat(1000), 'exactly the cap passes')
  const over = from([bytes(600), bytes(401), bytes(10)])
  await assert.rejects(limitResponse(over.response, 1000).text(), (e: unknown) => e instanceof AnswerTooLargeError && e.limit === 1000)
  assert.equal(over.cancelled(), true, 'the source is cancelled (the connection closed)')
  const declared = from([bytes(10)], { status: 502, headers: { 'content-length': '1001', 'x-id': 'a' } })
  const refused = limitResponse(declared.response, 1000)
  assert.deepEqual([refused.status, refused.headers.get('x-id')], [502, 'a'])
  assert.equal(declared.cancelled(), true, 'refused without reading')
  await assert.rejects(refused.arrayBuffer(), AnswerTooLargeError)
  const events = (text: string) => new TextEncoder().encode(text)
  const sse = { headers: { 'content-type': 'text/event-stream; charset=utf-8' } }
  const many = Array.from({ length: 50 }, (_, i) => events(`data: ${'x'.repeat(90)}${i % 2 ? '\r\n\r\n' : '\n\n'}`))
  assert.equal((await limitResponse(from(many, sse).response, 200).text()).length, 50 * 98 + 25 * 2, 'events of any number, each under the cap')
  const split = [events('data: aaaa\r'), events('\n'), events('\r'), events('\ndata: '), events('b'.repeat(150)), events('\n\n')]
  assert.match(await limitResponse(from(split, sse).response, 160).text(), /b{150}/, 'a blank line split across chunks ends the event')
  const endless = Array.from({ length: 30 }, () => events('data: yyyyyyyyyy\n'))
  await assert.rejects(limitResponse(from(endless, sse).response, 200).text(), (e: unknown) => e instanceof AnswerTooLargeError && /stream event is larger than 200 bytes/.test((e as Error).message))
  assert.equal(limitResponse(new Response(null, { status: 204 })).status, 204)
})
