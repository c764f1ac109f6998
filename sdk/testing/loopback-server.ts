// The HTTP plumbing shared by the scripted fakes in this folder (scripted-model, fake-messages-api,
// fake-responses-api): a node:http server on 127.0.0.1 port 0 that reads each request's body (parsed
// as JSON when it is JSON), records it, and closes every open connection (streams too) on close.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedRequest {
  method: string
  /** Without the query string. */
  path: string
  headers: IncomingMessage['headers']
  /** The parsed JSON body; the raw text when it is not JSON; undefined when empty. */
  body: any
}

export interface LoopbackServer {
  /** http://127.0.0.1:<port>, no trailing slash. */
  readonly origin: string
  /** Every request, in arrival order, recorded before it is handled (unless `record: false`). */
  readonly requests: RecordedRequest[]
  close(): Promise<void>
}

export interface LoopbackOptions {
  /** Keep every request in `requests` (default true). */
  record?: boolean
}

/** Starts the server; `handle` answers each request once its body has been read (and recorded). */
export async function startLoopbackServer(options: LoopbackOptions, handle: (request: RecordedRequest, res: ServerResponse) => unknown): Promise<LoopbackServer> {
  const record = options.record ?? true
  const requests: RecordedRequest[] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: any
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      body = raw
    }
    const request: RecordedRequest = { method: req.method ?? 'GET', path: (req.url ?? '/').split('?')[0] ?? '/', headers: req.headers, body }
    if (record) requests.push(request)
    await handle(request, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    // closeAllConnections first: a keep-alive client or an unfinished stream would hold close() open.
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

/**
 * Answers 200 with a server-sent event stream; the returned function writes one event
 * (`event: <name>` when named, then `data: <data>`, JSON unless already a string). End with res.end().
 */
export function openEventStream(res: ServerResponse, headers: Record<string, string> = {}): (data: unknown, event?: string) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers })
  return (data, event) => void res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
