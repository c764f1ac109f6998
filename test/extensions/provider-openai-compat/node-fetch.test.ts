// The openai client's transport (extensions/provider-openai-compat/node-fetch.ts) against loopback
// servers: request and answer as fetch gives them, kept-alive connections, compressed answers, SSE
// streamed as it arrives, redirects, aborts, a dropped connection, and HTTPS with certificate
// verification (a self-signed loopback certificate is refused, and accepted once trusted). The
// same for postJson, the hot path's POST over undici.

import { test, type TestContext } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { createNodeFetch } from '../../../extensions/provider-openai-compat/node-fetch.ts'

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void

async function serve(t: TestContext, handler: Handler) {
  const connections = { count: 0 }
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => handler(req, body, res))
  })
  server.on('connection', () => connections.count++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  t.after(() => server.closeAllConnections())
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections }
}

function transport(t: TestContext) {
  return poster(t).fetch
}

function poster(t: TestContext) {
  const nf = createNodeFetch()
  t.after(() => nf.close())
  return nf
}

/** `/drop` starts an answer and drops the connection mid-way; `/hang` never answers. */
const dropOrHang: Handler = (req, _body, res) => {
  if (req.url !== '/drop') return
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' })
  res.write('{"partial":')
  setTimeout(() => res.socket!.destroy(), 20)
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
  const port = (closed.address() as AddressInfo).port
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  return port
}

test('a JSON request and answer as fetch gives them, over one kept-alive connection', async (t) => {
  const seen: Array<{ method: string; headers: IncomingMessage['headers']; body: string }> = []
  const server = await serve(t, (req, body, res) => {
    seen.push({ method: req.method!, headers: req.headers, body })
    res.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-request-id': 'r1' })
    res.end(JSON.stringify({ echo: JSON.parse(body) }))
  })
  const fetch = transport(t)
  for (let i = 0; i < 3; i++) {
    const headers = new Headers({ 'content-type': 'application/json', authorization: 'Bearer k' })
    const response = await fetch(`${server.url}/v1/chat/completions`, { method: 'post', headers, body: JSON.stringify({ n: i, text: 'héllo' }) })
    assert.equal(response.status, 201)
    assert.equal(response.statusText, 'Made')
    assert.equal(response.ok, true)
    assert.equal(response.headers.get('x-request-id'), 'r1')
    assert.equal(response.url, `${server.url}/v1/chat/completions`)
    assert.deepEqual(await response.json(), { echo: { n: i, text: 'héllo' } })
  }
  assert.equal(seen[0]!.method, 'POST')
  assert.equal(seen[0]!.headers.authorization, 'Bearer k')
  assert.equal(seen[0]!.headers['content-length'], String(Buffer.byteLength(seen[0]!.body)))
  assert.equal(server.connections.count, 1, 'the connection is kept alive between calls')
})

test('compressed, empty, error and redirected answers', async (t) => {
  const server = await serve(t, (req, body, res) => {
    if (req.url === '/gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
      res.end(gzipSync(JSON.stringify({ packed: true })))
    } else if (req.url === '/empty') {
      res.writeHead(204)
      res.end()
    } else if (req.url === '/limited') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' })
      res.end('{"error":{"message":"slow down"}}')
    } else if (req.url === '/moved') {
      res.writeHead(307, { location: '/target' })
      res.end()
    } else {
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end(`${req.method} ${req.url} ${body}`)
    }
  })
  const fetch = transport(t)
  assert.deepEqual(await (await fetch(`${server.url}/gzip`)).json(), { packed: true })
  const empty = await fetch(`${server.url}/empty`, { method: 'DELETE' })
  assert.equal(empty.status, 204)
  assert.equal(empty.body, null)
  const limited = await fetch(`${server.url}/limited`, { method: 'POST', body: '{}' })
  assert.equal(limited.status, 429)
  assert.equal(limited.headers.get('retry-after'), '2')
  assert.equal(await limited.text(), '{"error":{"message":"slow down"}}')
  const moved = await fetch(`${server.url}/moved`, { method: 'POST', body: 'payload' })
  assert.equal(await moved.text(), 'POST /target payload', 'a 307 is followed with the same method and body')
})

test('SSE is streamed as it arrives; an abort ends it', async (t) => {
  let finish!: () => void
  const server = await serve(t, (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write('data: one\n\n')
    finish = () => res.end('data: two\n\n')
  })
  const fetch = transport(t)
  const response = await fetch(`${server.url}/stream`, { method: 'POST', body: '{}' })
  const reader = response.body!.getReader()
  const first = await reader.read()
  assert.equal(Buffer.from(first.value!).toString(), 'data: one\n\n', 'the first event arrives before the answer is complete')
  finish()
  let rest = ''
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += Buffer.from(chunk.value).toString()
  assert.equal(rest, 'data: two\n\n')

  const controller = new AbortController()
  const aborted = await fetch(`${server.url}/stream`, { method: 'POST', body: '{}', signal: controller.signal })
  const streamReader = aborted.body!.getReader()
  await streamReader.read()
  controller.abort()
  await assert.rejects(async () => {
    for (;;) if ((await streamReader.read()).done) break
  })
})

test('aborts before the answer, and a connection dropped mid-answer, fail like fetch', async (t) => {
  const server = await serve(t, dropOrHang)
  const fetch = transport(t)
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  await assert.rejects(fetch(`${server.url}/hang`, { method: 'POST', body: '{}', signal: controller.signal }), (error: Error) => error.name === 'AbortError')
  await assert.rejects(fetch(`${server.url}/hang`, { signal: AbortSignal.abort() }), (error: Error) => error.name === 'AbortError')
  await assert.rejects(fetch(`${server.url}/drop`, { method: 'POST', body: '{}' }), (error: NodeJS.ErrnoException) => error.code === 'ECONNRESET')
  await assert.rejects(fetch(`http://127.0.0.1:${await closedPort()}/`), (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED')
})

test('postJson: the body and headers as given, the answer whole (decompressed), over kept-alive connections', async (t) => {
  const seen: Array<{ url: string; headers: IncomingMessage['headers']; body: string }> = []
  const server = await serve(t, (req, body, res) => {
    seen.push({ url: req.url!, headers: req.headers, body })
    const answer = JSON.stringify({ echo: JSON.parse(body), text: 'héllo' })
    if (req.url!.startsWith('/gzip')) res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(answer))
    else if (req.url!.startsWith('/br')) res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'br' }).end(brotliCompressSync(answer))
    else if (req.url!.startsWith('/limited')) res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '2' }).end('{"error":{"message":"slow down"}}')
    else res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r1' }).end(answer)
  })
  const nf = poster(t)
  const body = Buffer.from(JSON.stringify({ n: 1, text: 'ünïcode' }))
  for (const path of ['/v1/chat/completions?x=1', '/gzip', '/br', '/v1/chat/completions', '/gzip', '/br']) {
    const answer = await nf.postJson(`${server.url}${path}`, { authorization: 'Bearer k', 'x-extra': 'yes' }, body)
    assert.equal(answer.status, 200)
    assert.deepEqual(JSON.parse(answer.text), { echo: { n: 1, text: 'ünïcode' }, text: 'héllo' }, path)
  }
  const limited = await nf.postJson(`${server.url}/limited`, {}, body)
  assert.equal(limited.status, 429)
  assert.equal(limited.headers['retry-after'], '2')
  assert.equal(limited.text, '{"error":{"message":"slow down"}}')
  assert.equal(seen[0]!.url, '/v1/chat/completions?x=1')
  assert.equal(seen[0]!.headers.authorization, 'Bearer k')
  assert.equal(seen[0]!.headers['x-extra'], 'yes')
  assert.equal(seen[0]!.headers['content-type'], 'application/json')
  assert.equal(seen[0]!.headers['content-length'], String(body.length))
  assert.equal(seen[0]!.body, body.toString())
  // undici may open a second connection while the first is still being released; never one a call.
  assert.ok(server.connections.count <= 2, `seven calls one after another opened ${server.connections.count} connections`)
})

test('postJson: an abort rejects with the caller\'s AbortError; a dropped or refused connection with its code', async (t) => {
  const server = await serve(t, dropOrHang)
  const nf = poster(t)
  const body = Buffer.from('{}')
  const controller = new AbortController()
  setTimeout(() => controller.abort(), 50)
  await assert.rejects(nf.postJson(`${server.url}/hang`, {}, body, controller.signal), (error: Error) => error.name === 'AbortError')
  await assert.rejects(nf.postJson(`${server.url}/hang`, {}, body, AbortSignal.abort()), (error: Error) => error.name === 'AbortError')
  const reason = new Error('the run was interrupted')
  reason.name = 'AbortError'
  await assert.rejects(nf.postJson(`${server.url}/hang`, {}, body, AbortSignal.abort(reason)), (error) => error === reason, "the caller's own reason")
  await assert.rejects(nf.postJson(`${server.url}/drop`, {}, body), (error: NodeJS.ErrnoException) => /^(UND_ERR_SOCKET|ECONNRESET)$/.test(String(error.code)))
  await assert.rejects(nf.postJson(`http://127.0.0.1:${await closedPort()}/`, {}, body), (error: NodeJS.ErrnoException) => error.code === 'ECONNREFUSED')
})

const CERT = readFileSync(join(import.meta.dirname, 'fixtures', 'loopback-test.crt'))
const KEY = readFileSync(join(import.meta.dirname, 'fixtures', 'loopback-test.key'))

test('HTTPS: certificates are verified; a trusted one (NODE_EXTRA_CA_CERTS) works', async (t) => {
  const server = createHttpsServer({ cert: CERT, key: KEY }, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{"secure":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  t.after(() => server.closeAllConnections())
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`
  await assert.rejects(transport(t)(url), (error: NodeJS.ErrnoException) => error.code === 'DEPTH_ZERO_SELF_SIGNED_CERT')
  await assert.rejects(poster(t).postJson(url, {}, Buffer.from('{}')), (error: NodeJS.ErrnoException) => error.code === 'DEPTH_ZERO_SELF_SIGNED_CERT')

  const script = `import { createNodeFetch } from ${JSON.stringify(join(import.meta.dirname, '..', '..', '..', 'extensions', 'provider-openai-compat', 'node-fetch.ts'))}
const nf = createNodeFetch()
console.log(JSON.stringify(await (await nf.fetch(${JSON.stringify(url)})).json()))
console.log((await nf.postJson(${JSON.stringify(url)}, {}, Buffer.from('{}'))).text)
nf.close()`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(import.meta.dirname, 'fixtures', 'loopback-test.crt') }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => child.kill('SIGKILL'))
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  assert.equal(code, 0, err)
  assert.deepEqual(out.trim().split('\n').map((line) => JSON.parse(line)), [{ secure: true }, { secure: true }], 'fetch, then postJson')
})
