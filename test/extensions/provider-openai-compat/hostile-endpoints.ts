// Loopback endpoints that answer too much, for the answer-cap tests of every provider: a gzip
// bomb (small on the wire, huge decoded, built from one precompressed member written again and
// again, never allocated whole), other encodings streamed through a compressor, an endless body or
// SSE stream, and a declared length past the cap. Each feeds the socket only as fast as it drains
// and stops when the connection closes, recording how much it fed (the decoded size).

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { TestContext } from 'node:test'
import { constants, createBrotliCompress, createDeflate, gzipSync } from 'node:zlib'

export const MiB = 1024 * 1024
export const GiB = 1024 * MiB

export type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void

export interface Endpoint {
  url: string
  /** Requests received so far. */
  requests(): number
  /** Connections that closed so far. */
  closed(): number
}

/** A loopback server on 127.0.0.1 port 0, closed with every connection when the test ends. */
export async function endpoint(t: TestContext, handler: Handler): Promise<Endpoint> {
  let requests = 0
  let closed = 0
  const server = createServer((req, res) => {
    requests++
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => handler(req, body, res))
  })
  server.on('connection', (socket) => socket.once('close', () => closed++))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => requests, closed: () => closed }
}

export interface Feed {
  /** Decoded bytes handed to the socket so far. */
  fed(): number
}

/** Writes `next()` (undefined: the end) as fast as the socket drains, until the connection closes. */
function pump(res: ServerResponse, next: () => Buffer | string | undefined, fedBy: (piece: Buffer | string) => number): Feed {
  let fed = 0
  let closed = false
  res.once('close', () => (closed = true))
  const feed = () => {
    while (!closed) {
      const piece = next()
      if (piece === undefined) return void res.end()
      fed += fedBy(piece)
      if (!res.write(piece)) return void res.once('drain', feed)
    }
  }
  feed()
  return { fed: () => fed }
}

const SPACES = Buffer.alloc(MiB, ' ')
/** 1 MiB of spaces as one gzip member (about 1 KiB); members in a row are one valid gzip stream. */
const MEMBER = gzipSync(SPACES, { level: 9 })

/** A gzip bomb: `decoded` bytes of spaces (after a JSON-looking start) in about decoded/1000 bytes on the wire. */
export function gzipBomb(res: ServerResponse, decoded = GiB, headers: Record<string, string> = { 'content-type': 'application/json' }): Feed {
  res.writeHead(200, { ...headers, 'content-encoding': 'gzip' })
  let sent = 0
  const head = gzipSync('{"choices":[{"message":{"content":"')
  let first = true
  return pump(
    res,
    () => {
      if (first) {
        first = false
        return head
      }
      if (sent >= decoded) return undefined
      sent += MiB
      return MEMBER
    },
    (piece) => (piece === MEMBER ? MiB : 0),
  )
}

/** `decoded` bytes of spaces through a deflate or brotli compressor, fed as the client reads. */
export function compressedBomb(res: ServerResponse, encoding: 'deflate' | 'br', decoded: number): Feed {
  res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding })
  const compressor = encoding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }) : createDeflate({ level: 1 })
  compressor.pipe(res)
  let fed = 0
  let closed = false
  res.once('close', () => {
    closed = true
    compressor.destroy()
  })
  const feed = () => {
    while (!closed && fed < decoded) {
      fed += SPACES.length
      if (!compressor.write(SPACES)) return void compressor.once('drain', feed)
    }
    if (!closed) compressor.end()
  }
  feed()
  return { fed: () => fed }
}

/** A plain body (no length, chunked) of `total` bytes of spaces. */
export function chunkedBody(res: ServerResponse, total: number): Feed {
  res.writeHead(200, { 'content-type': 'application/json' })
  let sent = 0
  const piece = Buffer.alloc(64 * 1024, ' ')
  const next = () => {
    if (sent >= total) return undefined
    sent += piece.length
    return piece
  }
  return pump(res, next, (p) => p.length)
}

/** An SSE stream, endless unless `event(n)` (the n-th event's text, with its blank line) returns undefined. */
export function sseStream(res: ServerResponse, event: (n: number) => string | undefined): Feed {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  let n = 0
  return pump(res, () => event(n++), (p) => Buffer.byteLength(p))
}

/** Samples the process's resident memory until stop(), which returns the peak growth over the start. */
export function watchMemory(): { stop(): number } {
  const start = process.memoryUsage().rss
  let peak = start
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5)
  return {
    stop() {
      clearInterval(timer)
      peak = Math.max(peak, process.memoryUsage().rss)
      return peak - start
    },
  }
}

/** Resolves once `condition` holds (polled every 10 ms); throws past `ms`. */
export async function waitFor(condition: () => boolean, ms = 5_000): Promise<void> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
