// Loopback fakes for text-to-speech: the Edge read-aloud websocket protocol (speech.config, ssml,
// binary audio frames with a big-endian header length, turn.end), ElevenLabs' REST endpoint
// (`xi-api-key`) and an OpenAI-compatible `/v1/audio/speech`.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer } from 'ws'

export const AUDIO = [Buffer.from('OggS-first-chunk-'), Buffer.from('second-chunk')]

export interface EdgeFake {
  url: string
  connections: Array<{ query: URLSearchParams; headers: IncomingMessage['headers']; frames: string[] }>
  close(): Promise<void>
}

function binaryFrame(path: string, body: Buffer): Buffer {
  const header = Buffer.from(`X-RequestId:x\r\nContent-Type:audio/ogg\r\nPath:${path}\r\n`)
  const length = Buffer.alloc(2)
  length.writeUInt16BE(header.length)
  return Buffer.concat([length, header, body])
}

/** `behaviour`: `ok`, `close-early` (the connection drops mid-audio), `refuse` (HTTP 403 on upgrade). */
export async function startFakeEdge(behaviour: 'ok' | 'close-early' | 'refuse' = 'ok'): Promise<EdgeFake> {
  const connections: EdgeFake['connections'] = []
  const server = createServer()
  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    if (behaviour === 'refuse') return socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n')
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = { query: new URL(req.url!, 'http://x').searchParams, headers: req.headers, frames: [] as string[] }
      connections.push(connection)
      ws.on('message', (data) => {
        const text = data.toString()
        connection.frames.push(text)
        if (!/Path:ssml/.test(text)) return
        const requestId = /X-RequestId:(\w+)/.exec(text)![1]
        ws.send(`X-RequestId:${requestId}\r\nContent-Type:application/json; charset=utf-8\r\nPath:turn.start\r\n\r\n{}`)
        ws.send(binaryFrame('audio', AUDIO[0]!))
        if (behaviour === 'close-early') return ws.close()
        ws.send(binaryFrame('audio.metadata', Buffer.from('{"Metadata":[]}')))
        ws.send(binaryFrame('audio', AUDIO[1]!))
        ws.send(`X-RequestId:${requestId}\r\nContent-Type:application/json; charset=utf-8\r\nPath:turn.end\r\n\r\n{}`)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/consumer/speech/synthesize/readaloud/edge/v1`,
    connections,
    close: async () => {
      for (const client of wss.clients) client.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

export interface HttpFake {
  url: string
  requests: Array<{ path: string; headers: IncomingMessage['headers']; body: any }>
  close(): Promise<void>
}

/** ElevenLabs (`/v1/text-to-speech/:voice`, xi-api-key) and OpenAI-compatible speech (`/v1/audio/speech`, Bearer). */
export async function startFakeSpeechApis(key: string): Promise<HttpFake> {
  const requests: HttpFake['requests'] = []
  const server = createServer(async (req, res) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const body = raw ? JSON.parse(raw) : undefined
    requests.push({ path: req.url ?? '', headers: req.headers, body })
    if (req.url?.startsWith('/v1/text-to-speech/')) {
      if (req.headers['xi-api-key'] !== key) return res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: { status: 'invalid_api_key', message: 'Invalid API key' } }))
      return res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(Buffer.from(`ID3-eleven-${body.text}`))
    }
    if (req.url === '/v1/audio/speech') {
      if (req.headers.authorization !== `Bearer ${key}`) return res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } }))
      return res.writeHead(200, { 'content-type': body.response_format === 'opus' ? 'audio/ogg' : 'audio/mpeg' }).end(Buffer.from(`${body.response_format}-${body.input}`))
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }),
  }
}
