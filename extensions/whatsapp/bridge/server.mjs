// The bridge's local HTTP protocol, spoken with the adapter only: bound to 127.0.0.1, every request
// carrying `Authorization: Bearer <token>` (a random token per start, handed over in the
// environment). GET /health, GET /messages (the receive queue, long-polled), POST /send, /typing,
// /edit and /media. The WhatsApp side is behind `handlers`, so the real bridge and the test bridge
// share this file.

import { timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

const MAX_BODY = 1024 * 1024
const MAX_QUEUE = 1000

/** Messages waiting for the adapter; take() waits up to `timeoutMs` for the first one. */
export class MessageQueue {
  constructor(log = () => {}) {
    this.items = []
    this.waiters = new Set()
    this.log = log
  }
  push(message) {
    this.items.push(message)
    if (this.items.length > MAX_QUEUE) {
      this.items.shift()
      this.log('the receive queue is full: the oldest message was dropped')
    }
    for (const wake of this.waiters) wake()
  }
  take(max, timeoutMs, signal) {
    if (this.items.length || timeoutMs <= 0) return Promise.resolve(this.items.splice(0, max))
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer)
        this.waiters.delete(done)
        signal?.removeEventListener('abort', done)
        resolve(this.items.splice(0, max))
      }
      const timer = setTimeout(done, timeoutMs)
      this.waiters.add(done)
      signal?.addEventListener('abort', done, { once: true })
    })
  }
  get size() {
    return this.items.length
  }
}

const json = (res, status, body) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

function authorised(header, token) {
  const given = Buffer.from(typeof header === 'string' ? header : '')
  const wanted = Buffer.from(`Bearer ${token}`)
  return given.length === wanted.length && timingSafeEqual(given, wanted)
}

async function readJson(req) {
  const chunks = []
  let size = 0
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY) throw Object.assign(new Error('body too large'), { status: 413 })
    chunks.push(chunk)
  }
  if (!size) return {}
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw Object.assign(new Error('body is not JSON'), { status: 400 })
  }
}

const need = (value, name) => {
  if (typeof value !== 'string' || !value) throw Object.assign(new Error(`${name} is required`), { status: 400 })
  return value
}

/**
 * Starts the protocol server. handlers: { health(), send(chatId, text), typing(chatId, state),
 * edit(chatId, id, text), media(chatId, {path, mimetype, caption, fileName}) }; `routes` adds more
 * (path → async (body, req) => value). Resolves with { port, close() }.
 */
export async function startBridgeServer({ token, handlers, queue, routes = {}, log = () => {} }) {
  if (!token || token.length < 16) throw new Error('WHATSAPP_BRIDGE_TOKEN must be set (at least 16 characters)')
  const polls = new Set()
  const server = createServer(async (req, res) => {
    if (!authorised(req.headers.authorization, token)) return json(res, 401, { error: 'unauthorised' })
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    try {
      if (req.method === 'GET' && url.pathname === '/health') return json(res, 200, { ...(await handlers.health()), queued: queue.size })
      if (req.method === 'GET' && url.pathname === '/messages') {
        const wait = Math.min(Math.max(Number(url.searchParams.get('timeout_ms') ?? 0) || 0, 0), 60_000)
        const controller = new AbortController()
        polls.add(controller)
        res.on('close', () => controller.abort())
        const messages = await queue.take(100, wait, controller.signal)
        polls.delete(controller)
        // A poll abandoned by the adapter: its messages go back in front of the queue.
        if (res.destroyed) return void queue.items.unshift(...messages)
        return json(res, 200, { messages })
      }
      if (req.method !== 'POST') return json(res, 404, { error: 'not found' })
      const body = await readJson(req)
      switch (url.pathname) {
        case '/send':
          return json(res, 200, await handlers.send(need(body.chatId, 'chatId'), need(body.text, 'text')))
        case '/typing':
          await handlers.typing(need(body.chatId, 'chatId'), body.state === 'paused' ? 'paused' : 'composing')
          return json(res, 200, {})
        case '/edit':
          await handlers.edit(need(body.chatId, 'chatId'), need(body.id, 'id'), need(body.text, 'text'))
          return json(res, 200, {})
        case '/media':
          return json(res, 200, await handlers.media(need(body.chatId, 'chatId'), { path: need(body.path, 'path'), mimetype: body.mimetype, caption: body.caption, fileName: body.fileName }))
        default:
          if (routes[url.pathname]) return json(res, 200, (await routes[url.pathname](body, req)) ?? {})
          return json(res, 404, { error: 'not found' })
      }
    } catch (error) {
      const status = error?.status ?? 502
      if (status === 502) log(`request ${url.pathname} failed: ${error?.message ?? error}`)
      if (!res.headersSent) json(res, status, { error: String(error?.message ?? error) })
    }
  })
  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  return {
    port: server.address().port,
    close: () =>
      new Promise((resolve) => {
        for (const poll of polls) poll.abort()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
