// The HTTP host's edges: keyless serving only on loopback (parsed, so `127.1` counts) and only to a
// loopback Host, held per request so a hot-loaded keyed endpoint is covered; every status in the
// envelope (405 with Allow, 501 for methods nobody implements, even ones Node's parser refuses);
// slow clients cut off by the configured timeouts; the connection cap refuses and the server lives.

import assert from 'node:assert/strict'
import { request } from 'node:http'
import { connect, type Socket } from 'node:net'
import { test } from 'node:test'
import { defineExtension, readJson, type EndpointDefinition, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'

function endpointsExtension(name: string, endpoints: EndpointDefinition[]) {
  return defineExtension({ name, setup: (api) => endpoints.forEach((e) => api.endpoints.register(e)) })
}

const echo: EndpointDefinition = { listener: 'api', method: 'POST', path: '/echo', auth: 'api-key', async handler(ctx) { ctx.body = { got: await readJson(ctx, 1024) } } }
const health: EndpointDefinition = { listener: 'api', method: 'GET', path: '/health', auth: 'none', handler(ctx) { ctx.body = { status: 'ok' } } }

async function start(t: import('node:test').TestContext, endpoints: EndpointDefinition[], env: Record<string, string> = {}, config?: Record<string, unknown>) {
  const testKernel = await createTestKernel({ builtins: ['http'], extensions: [endpointsExtension('routes', endpoints)], env: { API_SERVER_PORT: '0', WEBHOOK_PORT: '0', ...env }, config })
  t.after(testKernel.close)
  await testKernel.kernel.start('gateway')
  const http = testKernel.kernel.services.require<HttpService>('http')
  const port = http.address('api')!.port
  return { ...testKernel, http, port }
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }

/** node:http, not fetch: fetch may not set Host nor send methods like TRACE. */
function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c) => (text += c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

function envelope(answer: Answer): { message: string; code: string | null } {
  assert.match(String(answer.headers['content-type']), /application\/json/)
  const parsed = JSON.parse(answer.body) as { error: { message: string; type: string; code: string | null } }
  assert.equal(typeof parsed.error.message, 'string')
  assert.equal(typeof parsed.error.type, 'string')
  return parsed.error
}

test('no key and API_SERVER_HOST=127.1: the listener starts and serves keyed endpoints to a loopback Host only', async (t) => {
  const { port } = await start(t, [echo, health], { API_SERVER_HOST: '127.1' })
  const ok = await send(port, 'POST', '/echo', { host: `127.0.0.1:${port}` }, '{"a":1}')
  assert.equal(ok.status, 200)
  for (const host of ['localhost', `localhost:${port}`, `[::1]:${port}`, '127.1']) assert.equal((await send(port, 'POST', '/echo', { host }, '{}')).status, 200, host)
  for (const host of ['evil.example', `evil.example:${port}`, '127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.1']) {
    const refused = await send(port, 'POST', '/echo', { host }, '{}')
    assert.equal(refused.status, 421, host)
    assert.equal(envelope(refused).code, 'misdirected_request')
  }
  // Endpoints that need no key are not held to the Host (a reverse proxy may name itself).
  assert.equal((await send(port, 'GET', '/health', { host: 'evil.example' })).status, 200)
})

test('with a key the Host is not checked: the key is the guard', async (t) => {
  const { port } = await start(t, [echo], { API_SERVER_KEY: 'right-key-123' })
  assert.equal((await send(port, 'POST', '/echo', { host: 'api.example.com', authorization: 'Bearer right-key-123' }, '{}')).status, 200)
  assert.equal((await send(port, 'POST', '/echo', { host: 'api.example.com' }, '{}')).status, 401)
})

test('a keyed endpoint hot-loaded onto a keyless non-loopback listener is refused per request', async (t) => {
  // Bound to every interface only for this test's life: the case is precisely a non-loopback bind.
  const { kernel, port } = await start(t, [health], { API_SERVER_HOST: '0.0.0.0' })
  await kernel.add({ definition: endpointsExtension('late', [echo]) })
  const refused = await send(port, 'POST', '/echo', { host: `127.0.0.1:${port}` }, '{}')
  assert.equal(refused.status, 503)
  assert.equal(envelope(refused).code, 'api_key_required')
  assert.equal((await send(port, 'GET', '/health')).status, 200)
})

test('every status is an envelope: 405 with Allow, 501 for TRACE/PROPFIND/MKCOL and unknown methods', async (t) => {
  const { port } = await start(t, [echo, health])
  const wrong = await send(port, 'PUT', '/echo', {}, '{}')
  assert.equal(wrong.status, 405)
  assert.equal(wrong.headers.allow, 'POST')
  assert.equal(envelope(wrong).code, 'method_not_allowed')
  for (const method of ['TRACE', 'PROPFIND', 'MKCOL']) {
    for (const path of ['/echo', '/nowhere']) {
      const answer = await send(port, method, path)
      assert.equal(answer.status, 501, `${method} ${path}`)
      assert.equal(envelope(answer).code, 'method_not_implemented')
    }
  }
  // A method Node's parser does not know never reaches Koa: answered on the socket, same envelope.
  const raw = await rawExchange(port, 'BREW /echo HTTP/1.1\r\nHost: localhost\r\n\r\n')
  assert.match(raw, /^HTTP\/1\.1 501 /)
  assert.match(raw, /"code":"method_not_implemented"/)
  const tunnel = await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n')
  assert.match(tunnel, /^HTTP\/1\.1 501 /)
  assert.match(tunnel, /"code":"method_not_implemented"/)
  const hostless = await rawExchange(port, 'GET /health HTTP/1.1\r\n\r\n')
  assert.match(hostless, /^HTTP\/1\.1 400 /)
  assert.match(hostless, /"code":"missing_host"/)
  // HTTP/1.0 has no Host requirement.
  assert.match(await rawExchange(port, 'GET /health HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /)
  const garbage = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n')
  assert.match(garbage, /^HTTP\/1\.1 400 /)
  assert.match(garbage, /"error":\{/)
  assert.equal((await send(port, 'GET', '/health')).status, 200)
})

function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text))
    let got = ''
    socket.setEncoding('utf8')
    socket.on('data', (c) => (got += c))
    socket.on('close', () => resolve(got))
    socket.on('error', reject)
  })
}

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket))
    socket.on('error', reject)
  })
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())))

test('400 slow-body and slow-header connections are cut off by the timeouts and the server stays healthy', async (t) => {
  const config = { http: { listeners: { api: { headers_timeout_seconds: 0.3, request_timeout_seconds: 0.6, max_connections: 1000 } } } }
  const { port } = await start(t, [echo, health], {}, config)
  const sockets = await Promise.all(Array.from({ length: 400 }, () => open(port)))
  t.after(() => sockets.forEach((s) => s.destroy()))
  const answers = sockets.map((s) => {
    let got = ''
    s.setEncoding('utf8')
    s.on('data', (c) => (got += c))
    s.on('error', () => {})
    return closed(s).then(() => got)
  })
  // Most send headers at once, then one byte of a promised 100 and nothing more; every tenth stops
  // in the middle of its headers.
  sockets.forEach((s, i) => s.write(i % 10 === 0 ? 'POST /echo HTTP/1.1\r\nHost: local' : `POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`))
  // The server closes every one of them (the test's own timeout bounds "not for minutes").
  const texts = await Promise.all(answers)
  assert.ok(texts.every((text) => text === '' || /^HTTP\/1\.1 (408|400) /.test(text)), texts.find((x) => x && !/^HTTP\/1\.1 (408|400) /.test(x)))
  assert.ok(texts.filter((text) => text.startsWith('HTTP/1.1 408')).length > 0)
  assert.equal((await send(port, 'GET', '/health')).status, 200)
})

test('the connection cap refuses sockets beyond it; below it the server answers', async (t) => {
  const config = { http: { listeners: { api: { max_connections: 5 } } } }
  const { port } = await start(t, [health], {}, config)
  const held = await Promise.all(Array.from({ length: 5 }, () => open(port)))
  t.after(() => held.forEach((s) => s.destroy()))
  // Node accepts and at once closes a socket over the cap: no answer arrives.
  const over = await rawExchange(port, 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n').catch(() => '')
  assert.equal(over, '')
  held.forEach((s) => s.destroy())
  await Promise.all(held.map(closed))
  let status = 0
  for (let i = 0; i < 50 && status !== 200; i++) {
    status = await send(port, 'GET', '/health').then((a) => a.status, () => 0)
    if (status !== 200) await new Promise((r) => setTimeout(r, 20))
  }
  assert.equal(status, 200)
})

test('listener limits must be finite and in range: .inf is a config error, the http extension does not load', async (t) => {
  for (const bad of [{ request_timeout_seconds: Infinity }, { headers_timeout_seconds: 0 }, { max_connections: 1.5 }, { max_connections: Infinity }]) {
    const testKernel = await createTestKernel({ builtins: ['http'], env: { API_SERVER_PORT: '0' }, config: { http: { listeners: { api: bad } } } })
    t.after(testKernel.close)
    const http = testKernel.kernel.extensions().find((e) => e.name === 'http')
    assert.equal(http?.state, 'failed', JSON.stringify(bad))
    assert.match(http?.reason ?? '', new RegExp(Object.keys(bad)[0]!))
  }
  const crossed = await createTestKernel({ builtins: ['http'], extensions: [endpointsExtension('routes', [health])], env: { API_SERVER_PORT: '0' }, config: { http: { listeners: { api: { headers_timeout_seconds: 10, request_timeout_seconds: 5 } } } } })
  t.after(crossed.close)
  await assert.rejects(crossed.kernel.start('gateway'), /headers_timeout_seconds \(10\) must not exceed request_timeout_seconds \(5\)/)
})
