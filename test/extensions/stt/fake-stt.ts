// Loopback fakes for speech-to-text: an OpenAI-compatible `POST /v1/audio/transcriptions` (multipart,
// bearer key checked) and a model host serving a model file the way Hugging Face does (Content-Length
// and the sha256 in X-Linked-Etag).
import { createHash } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface FakeServer {
  url: string
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: Buffer }>
  close(): Promise<void>
}

async function listen(handler: (req: IncomingMessage, body: Buffer, res: import('node:http').ServerResponse) => void): Promise<FakeServer> {
  const requests: FakeServer['requests'] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    requests.push({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body })
    handler(req, body, res)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}

/** `failWith`: answer every request with this status (a broken API). */
export function startFakeTranscriptionApi(key: string, options: { text?: string; failWith?: number } = {}): Promise<FakeServer> {
  return listen((req, body, res) => {
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value))
    if (req.url !== '/v1/audio/transcriptions' || req.method !== 'POST') return json(404, { error: { message: 'not found' } })
    if (req.headers.authorization !== `Bearer ${key}`) return json(401, { error: { message: 'Incorrect API key provided' } })
    if (options.failWith) return json(options.failWith, { error: { message: 'the server is on fire' } })
    const text = body.toString('latin1')
    if (!/multipart\/form-data/.test(req.headers['content-type'] ?? '') || !/name="file"; filename="audio\.\w+"/.test(text) || !/name="model"\r\n\r\nwhisper-1/.test(text)) return json(400, { error: { message: 'bad multipart body' } })
    json(200, { text: options.text ?? 'hello from the api' })
  })
}

/** Serves `/models/ggml-<name>.bin`; `advertisedSha` overrides the X-Linked-Etag (a corrupted mirror). */
export function startFakeModelHost(model: Buffer, options: { advertisedSha?: string; delayMs?: number } = {}): Promise<FakeServer> {
  const sha = options.advertisedSha ?? createHash('sha256').update(model).digest('hex')
  return listen((req, _body, res) => {
    const path = (req.url ?? '').split('?')[0]!
    if (!/^\/models\/ggml-[\w.-]+\.bin$/.test(path) || path.includes('missing')) return res.writeHead(404).end('Entry not found')
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': model.length, 'x-linked-etag': `"${sha}"` })
    // Quarters with pauses between: concurrent first uses overlap with one download in flight, and
    // the client sees the file arrive in parts (progress).
    const quarter = Math.ceil(model.length / 4)
    const next = (i: number) => {
      if (i >= 3) return void res.end(model.subarray(i * quarter))
      res.write(model.subarray(i * quarter, (i + 1) * quarter))
      setTimeout(() => next(i + 1), options.delayMs ?? 30)
    }
    next(0)
  })
}
