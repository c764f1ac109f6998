// Pieces the loopback fakes of WebSocket chat services (Discord, Slack, DingTalk) share: reading a
// request body, and a close that ends every connection at once so no test waits on a keep-alive.

import type { IncomingMessage, Server } from 'node:http'
import type { WebSocket, WebSocketServer } from 'ws'

/** The request body as UTF-8 text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (raw += chunk))
    req.on('end', () => resolve(raw))
    req.on('error', reject)
  })
}

/** Terminates every socket, closes the WebSocket server, drops HTTP connections; resolves once closed. */
export function closeWebSocketPeer(server: Server, wss: WebSocketServer, sockets: Iterable<WebSocket>): Promise<void> {
  return new Promise<void>((resolve) => {
    for (const socket of sockets) socket.terminate()
    wss.close()
    server.closeAllConnections()
    server.close(() => resolve())
  })
}
