// The transport of OpenAI-compatible calls, over node:http/https with keep-alive agents:
// - `fetch`, given to the openai client, instead of the global fetch. Node 20's bundled fetch costs
//   about 0.5 ms of CPU per call (WHATWG streams throughout); this costs about 0.15 ms, measured
//   against a loopback model at 16 concurrent calls. The answer is a real Response: buffered for JSON
//   and error bodies, streamed for SSE. Anything else (a streamed request body, a redirect) is handed
//   to the global fetch unchanged.
// - `postJson`, for the one call on every run's hot path (a non-streamed chat completion): the body
//   in, the answer's text out, no Response, Headers or request-building layers between. Measured
//   with a loopback model: about 100 µs of CPU a call against 270 µs through the openai client.
//   It goes through undici's dispatcher (its `request`, not its fetch) rather than node:http, whose
//   ClientRequest and Agent alone were 7 % of an API request's CPU. In one gateway switching between
//   the two every 3,000 requests from 16 clients: 433 against 507 µs of main-thread CPU a request,
//   and 15 % more requests a second, in each of 10 pairs.
// Every answer is capped (MAX_ANSWER_BYTES, 64 MiB, counted decoded): a buffered body in all, a
// streamed one per event. Past it the connection is closed and the call fails (AnswerTooLargeError),
// so an endpoint that answers with a gzip bomb or an endless body cannot exhaust the process.

import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { Readable } from 'node:stream'
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib'
import { createRequire } from 'node:module'
import type { Agent as UndiciAgent } from 'undici'
import { AnswerTooLargeError, limitBody, limitResponse, MAX_ANSWER_BYTES, refusedBody } from 'agent/sdk'

export interface JsonAnswer {
  status: number
  headers: IncomingHttpHeaders
  /** The body as text (decompressed if the server compressed it). */
  text: string
}

export interface NodeFetchOptions {
  /** The cap on one answer, decoded (default MAX_ANSWER_BYTES): a buffered body in all, one event of a stream. */
  maxAnswerBytes?: number
}

export interface NodeFetch {
  /** With the transport's cap: a buffered answer past it has a body that fails (AnswerTooLargeError). */
  fetch: typeof fetch
  /** The same fetch with its own cap on an answer. */
  fetchWithin(maxAnswerBytes: number): typeof fetch
  /**
   * POSTs `body` (JSON bytes) and buffers the answer, whatever its status; rejects on network
   * failure or abort, and with AnswerTooLargeError past the cap (the transport's by default).
   */
  postJson(url: string, headers: Record<string, string>, body: Buffer, signal?: AbortSignal, maxAnswerBytes?: number): Promise<JsonAnswer>
  /** Closes the kept-alive connections. */
  close(): void
}

const REDIRECT = new Set([301, 302, 303, 307, 308])
const NULL_BODY = new Set([101, 103, 204, 205, 304])

function abortError(signal: AbortSignal): unknown {
  return signal.reason instanceof Error && signal.reason.name === 'AbortError' ? signal.reason : new DOMException('This operation was aborted', 'AbortError')
}

function headerRecord(init: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {}
  if (!init) return out
  const entries: Iterable<[string, unknown]> = init instanceof Headers ? init.entries() : Array.isArray(init) ? (init as Array<[string, string]>) : Object.entries(init)
  for (const [name, value] of entries) if (value !== undefined && value !== null) out[name.toLowerCase()] = String(value)
  return out
}

function responseHeaders(res: IncomingMessage): Headers {
  const headers = new Headers()
  const raw = res.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return headers
}

/**
 * The body as sent, decompressed when the server compressed it anyway. Destroying the decoder
 * (a reader that stopped early) destroys the body too, which closes the connection.
 */
function decoded(body: Readable, headers: IncomingHttpHeaders): Readable {
  const encoding = String(headers['content-encoding'] ?? '').trim().toLowerCase()
  const decoder = encoding === 'gzip' || encoding === 'x-gzip' ? createGunzip() : encoding === 'deflate' ? createInflate() : encoding === 'br' ? createBrotliDecompress() : undefined
  if (!decoder) return body
  body.on('error', (error) => decoder.destroy(error))
  decoder.once('close', () => {
    if (!body.readableEnded) body.destroy()
  })
  return body.pipe(decoder)
}

/** True when the answer declares a length past the cap for a body sent as is (not compressed). */
function declaredOver(headers: IncomingHttpHeaders, limit: number): boolean {
  const encoding = headers['content-encoding']
  return (encoding === undefined || /^\s*identity\s*$/i.test(String(encoding))) && Number(headers['content-length'] ?? 0) > limit
}

/** The body's text, decoded, counted as it arrives: past `limit` bytes it stops reading (the connection is closed) and throws. */
async function limitedText(body: Readable, headers: IncomingHttpHeaders, limit: number): Promise<string> {
  if (declaredOver(headers, limit)) {
    body.destroy()
    throw new AnswerTooLargeError(limit)
  }
  const chunks: Buffer[] = []
  let size = 0
  // Leaving the loop early (the throw) destroys the stream, and with it the decoder and the body.
  for await (const chunk of decoded(body, headers)) {
    size += (chunk as Buffer).length
    if (size > limit) {
      chunks.length = 0
      throw new AnswerTooLargeError(limit)
    }
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks, size).toString('utf8')
}

/** Gives the Response the URL it came from (a constructed Response has none). */
function withUrl(response: Response, url: string): Response {
  Object.defineProperty(response, 'url', { value: url })
  return response
}

/**
 * Where a POST goes. Credentials in the URL are not sent: the call always carries its own
 * Authorization (the API key), which is what node:http let win over them too.
 */
interface Target {
  origin: string
  path: string
}

// The few endpoints a process calls, parsed once: parsing the URL on every call was about 1 % of
// an API request's CPU.
const targets = new Map<string, Target>()
const TARGETS_KEPT = 64

function targetOf(href: string): Target {
  let target = targets.get(href)
  if (target) return target
  const url = new URL(href)
  target = Object.freeze({ origin: url.origin, path: `${url.pathname}${url.search}` })
  if (targets.size >= TARGETS_KEPT) targets.clear()
  targets.set(href, target)
  return target
}

// undici's dispatcher and its `request` alone, not the package's entry: that also loads its fetch,
// WebSocket, EventSource, cache and mock layers (19 against 11 MiB of resident memory in a fresh
// process), for nothing here. These paths are the package's own layout, not exports it promises:
// the version is pinned exactly in package.json, and the tests call through them.
const undiciFile = createRequire(import.meta.url)
const Dispatcher = undiciFile('undici/lib/dispatcher/agent.js') as typeof UndiciAgent
// The entry assigns it to every dispatcher's prototype; called on ours here instead.
const requestVia = undiciFile('undici/lib/api/api-request.js') as UndiciAgent['request']

export function createNodeFetch(options: NodeFetchOptions = {}): NodeFetch {
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) }
  const cap = options.maxAnswerBytes ?? MAX_ANSWER_BYTES

  const nodeFetch = (input: string | URL | Request, init: RequestInit = {}, limit = cap): Promise<Response> => {
    const body = init.body
    const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
    const href = typeof input === 'string' ? input : input instanceof URL ? input.href : undefined
    const url = href ? new URL(href) : undefined
    // The standard fetch decompresses too: its answer is capped the same way.
    if (!url || !plainBody || (url.protocol !== 'http:' && url.protocol !== 'https:')) return fetch(input, init).then((res) => limitResponse(res, limit))
    const signal = init.signal ?? undefined
    if (signal?.aborted) return Promise.reject(abortError(signal))

    return new Promise<Response>((resolve, reject) => {
      const headers = headerRecord(init.headers)
      if (body !== undefined && body !== null && headers['content-length'] === undefined) headers['content-length'] = String(Buffer.byteLength(body as string | Uint8Array))
      const method = (init.method ?? 'GET').toUpperCase()
      const https = url.protocol === 'https:'
      const req = (https ? httpsRequest : httpRequest)(url, { method, headers, agent: https ? agents.https : agents.http })
      let settled = false
      const onAbort = () => req.destroy(abortError(signal!) as Error)
      signal?.addEventListener('abort', onAbort, { once: true })
      const release = () => signal?.removeEventListener('abort', onAbort)
      const fail = (error: unknown) => {
        release()
        if (settled) return
        settled = true
        reject(error)
      }
      req.on('error', fail)
      req.on('response', (res) => {
        const status = res.statusCode ?? 0
        if (REDIRECT.has(status) && init.redirect !== 'manual') {
          // Rare for an API: let the standard fetch follow it with its own rules.
          res.resume()
          release()
          settled = true
          resolve(fetch(input, init).then((res) => limitResponse(res, limit)))
          return
        }
        const answer = (bodyInit: ConstructorParameters<typeof Response>[0]) => {
          settled = true
          resolve(withUrl(new Response(bodyInit, { status, statusText: res.statusMessage ?? '', headers: responseHeaders(res) }), url.href))
        }
        if (NULL_BODY.has(status) || method === 'HEAD') {
          res.resume()
          release()
          answer(null)
          return
        }
        const sse = /^text\/event-stream/i.test(String(res.headers['content-type'] ?? ''))
        if (!sse && declaredOver(res.headers, limit)) {
          // Refused unread: the body fails at once, which its reader (the openai client) reports.
          release()
          answer(refusedBody(limit))
          res.destroy()
          return
        }
        const stream = decoded(res, res.headers)
        if (sse) {
          // Streamed as it arrives; an abort destroys the request, which errors this stream. One event
          // past the cap errors it too (and cancelling it destroys the response).
          res.once('close', release)
          answer(limitBody(Readable.toWeb(stream) as ReadableStream<Uint8Array>, limit, 'events'))
          return
        }
        const chunks: Buffer[] = []
        let size = 0
        stream.on('data', (chunk: Buffer) => {
          if (settled) return
          size += chunk.length
          if (size <= limit) {
            chunks.push(chunk)
            return
          }
          // Past the cap (a gzip bomb, an endless body): stop reading, close the connection, and
          // answer with a body that fails, as a declared length past the cap does.
          chunks.length = 0
          release()
          answer(refusedBody(limit))
          // After answering: destroying the response reports it aborted, which must not fail the call.
          stream.destroy()
          res.destroy()
        })
        stream.once('error', fail)
        res.once('aborted', () => fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })))
        stream.once('end', () => {
          release()
          if (!settled) answer(Buffer.concat(chunks))
        })
      })
      req.end(body as string | Uint8Array | undefined)
    })
  }

  // undici's own deadlines off: the provider kit's per attempt (AGENT_API_TIMEOUT) is the one, and a
  // long non-streamed answer may rightly take more than undici's default five minutes.
  const dispatcher = new Dispatcher({ headersTimeout: 0, bodyTimeout: 0 })
  const postJson = async (href: string, headers: Record<string, string>, body: Buffer, signal?: AbortSignal, limit = cap): Promise<JsonAnswer> => {
    if (signal?.aborted) throw abortError(signal)
    const { origin, path } = targetOf(href)
    try {
      const res = await requestVia.call(dispatcher, { origin, path, method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body, signal })
      const answerHeaders = res.headers as IncomingHttpHeaders
      // The common answer (not compressed, its length declared and within the cap) read whole at
      // once; a compressed or chunked one counted as it arrives, decoded.
      const length = answerHeaders['content-length']
      const text = length !== undefined && answerHeaders['content-encoding'] === undefined && Number(length) <= limit ? await res.body.text() : await limitedText(res.body, answerHeaders, limit)
      return { status: res.statusCode, headers: answerHeaders, text }
    } catch (error) {
      // Aborted: the caller's reason, as fetch gives it (undici has its own error for it).
      throw signal?.aborted ? abortError(signal) : error
    }
  }

  return {
    fetch: ((input: string | URL | Request, init?: RequestInit) => nodeFetch(input, init)) as typeof fetch,
    fetchWithin: (limit) => ((input: string | URL | Request, init?: RequestInit) => nodeFetch(input, init, limit)) as typeof fetch,
    postJson,
    close() {
      agents.http.destroy()
      agents.https.destroy()
      dispatcher.destroy().catch(() => undefined)
    },
  }
}
