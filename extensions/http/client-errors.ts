// Requests Node refuses before any handler runs (malformed, unknown method, headers too large, too
// slow to arrive) and CONNECT (never served) get the same JSON error envelope as everything else,
// written on the socket, which then closes: destroyed, not only ended, because Node's HTTP server is
// half-open (allowHalfOpen) and end() alone waits for the peer's FIN, so a peer that never closes
// would keep its max_connections slot for good.

import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'

const ANSWERS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request did not arrive in time'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are too large'],
  HPE_INVALID_METHOD: [501, 'method_not_implemented', 'The request method is not implemented by this server'],
}

/** How long an answer may wait to be flushed (a peer that never reads) before the socket is cut anyway. */
const FLUSH_GRACE_MS = 2_000

function writeError(socket: Duplex, [status, code, text]: [number, string, string]): void {
  const body = JSON.stringify({ error: { message: text, type: 'invalid_request_error', param: null, code } })
  const timer = setTimeout(() => socket.destroy(), FLUSH_GRACE_MS)
  timer.unref()
  socket.once('close', () => clearTimeout(timer))
  // Destroyed once the answer is handed to the kernel, as Node's own clientError default does.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    () => socket.destroy(),
  )
}

export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const message = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || message?.headersSent) {
    socket.destroy()
    return
  }
  writeError(socket, ANSWERS[error.code ?? ''] ?? [400, 'bad_request', 'The request is not valid HTTP'])
}

/** CONNECT asks for a tunnel: no listener is a proxy. */
export function answerConnect(_request: unknown, socket: Duplex): void {
  if (socket.writable) writeError(socket, ANSWERS.HPE_INVALID_METHOD!)
  else socket.destroy()
}
