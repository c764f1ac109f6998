// Connection slots come back: a peer that is answered 408 (slow headers, slow body) or 501 (CONNECT)
// and then never closes nor reads must not keep its max_connections slot, or a few hundred idle
// sockets lock a listener out with no key. A slow but complete client is still answered.

import assert from 'node:assert/strict'
import { connect, type Socket } from 'node:net'
import { test } from 'node:test'
import { defineExtension, readJson, type EndpointDefinition, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'

const health: EndpointDefinition = { listener: 'api', method: 'GET', path: '/health', auth: 'none', handler(ctx) { ctx.body = { status: 'ok' } } }
const echo: EndpointDefinition = { listener: 'api', method: 'POST', path: '/echo', auth: 'api-key', async handler(ctx) { ctx.body = { got: await readJson(ctx, 1024) } } }

const MAX = 6

async function start(t: import('node:test').TestContext) {
  const routes = defineExtension({ name: 'routes', setup: (api) => [health, echo].forEach((e) => api.endpoints.register(e)) })
  const config = { http: { listeners: { api: { headers_timeout_seconds: 0.5, request_timeout_seconds: 1, max_connections: MAX } } } }
  const testKernel = await createTestKernel({ builtins: ['http'], extensions: [routes], env: { API_SERVER_PORT: '0' }, config })
  t.after(testKernel.close)
  await testKernel.kernel.start('gateway')
  return testKernel.kernel.services.require<HttpService>('http').address('api')!.port
}

/** A peer that sends `text` and then never closes (it keeps its half open after the server's FIN). */
function stubborn(port: number, text: string, read = false): Promise<{ socket: Socket; got: () => string }> {
  return new Promise((resolve, reject) => {
    let got = ''
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
      socket.write(text)
      resolve({ socket, got: () => got })
    })
    if (read) socket.on('data', (c) => (got += c))
    else socket.pause()
    socket.on('error', () => {})
    socket.once('connect', () => socket.off('error', reject))
    socket.once('error', reject)
  })
}

/** One request on a fresh socket: the whole answer, '' when the server dropped the connection. */
function exchange(port: number, pieces: string[], gapMs = 0): Promise<string> {
  return new Promise((resolve) => {
    let got = ''
    const socket = connect(port, '127.0.0.1', async () => {
      for (const [i, piece] of pieces.entries()) {
        if (i > 0 && gapMs) await new Promise((r) => setTimeout(r, gapMs))
        if (!socket.destroyed) socket.write(piece)
      }
    })
    socket.setEncoding('utf8')
    socket.on('data', (c) => {
      got += c
      if (/\r\n\r\n[\s\S]*\}$/.test(got)) socket.end()
    })
    socket.on('close', () => resolve(got))
    socket.on('error', () => {})
  })
}

const GET_HEALTH = 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n'

/** Polls /health until it is answered 200; the time it took, or Infinity past the deadline. */
async function healthyWithin(port: number, deadlineMs: number): Promise<number> {
  const started = Date.now()
  while (Date.now() - started < deadlineMs) {
    if (/^HTTP\/1\.1 200 /.test(await exchange(port, [GET_HEALTH]))) return Date.now() - started
    await new Promise((r) => setTimeout(r, 50))
  }
  return Infinity
}

test('peers answered 408 that never close give their slots back after the timeouts', async (t) => {
  const port = await start(t)
  // Half stop in the middle of their headers, half in the middle of a promised body.
  const held = await Promise.all(
    Array.from({ length: MAX }, (_, i) => stubborn(port, i % 2 ? 'GET /health HTTP/1.1\r\n' : 'POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{')),
  )
  t.after(() => held.forEach(({ socket }) => socket.destroy()))
  // Every slot is taken: a further connection is dropped at once.
  assert.equal(await exchange(port, [GET_HEALTH]), '')
  // The request timeout (1 s) plus Node's sweep bounds it; before the fix this never recovered.
  const took = await healthyWithin(port, 6_000)
  assert.ok(took < 6_000, 'the listener stayed locked out by sockets it had already answered')
})

test('CONNECT peers that never close give their slots back at once', async (t) => {
  const port = await start(t)
  const held = await Promise.all(Array.from({ length: MAX }, () => stubborn(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', true)))
  t.after(() => held.forEach(({ socket }) => socket.destroy()))
  // Well under the headers timeout: no timeout is involved, the answer itself frees the slot.
  const took = await healthyWithin(port, 400)
  assert.ok(took < 400, 'CONNECT sockets kept their slots after the 501')
  for (const { got } of held) assert.match(got(), /^HTTP\/1\.1 501 /)
})

test('a slow but complete client is still answered, headers and body in pieces within the timeouts', async (t) => {
  const port = await start(t)
  const slowGet = await exchange(port, ['GET /health HTTP/1.1\r\n', 'Host: localhost\r\n', '\r\n'], 100)
  assert.match(slowGet, /^HTTP\/1\.1 200 /)
  assert.match(slowGet, /"status":"ok"/)
  const slowPost = await exchange(port, ['POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n', '{"a"', ':1}'], 150)
  assert.match(slowPost, /^HTTP\/1\.1 200 /)
  assert.match(slowPost, /\{"got":\{"a":1\}\}/)
})
