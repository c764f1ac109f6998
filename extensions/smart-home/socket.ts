// The websocket that home-assistant-js-websocket drives, built with `ws` (Node 20 has no global
// WebSocket): connect, wait for auth_required, send {type: auth, access_token}, then auth_ok resolves
// the socket and auth_invalid rejects with the library's ERR_INVALID_AUTH (so its reconnect loop stops).
// Every other failure rejects with a one-line Error that never contains the token.

import { redactSecrets } from 'agent/sdk'
import type { HaWebSocket } from 'home-assistant-js-websocket'
import type WebSocket from 'ws'

type WebSocketClass = typeof WebSocket

export interface SocketFactoryOptions {
  WebSocket: WebSocketClass
  wsUrl: string
  token: string
  /** Whole handshake: TCP, upgrade and authentication. */
  timeoutMs: number
  /** The library's ERR_INVALID_AUTH value. */
  invalidAuth: unknown
  /** Errors of an authenticated socket (a close always follows; the library reconnects). */
  onSocketError?(error: Error): void
}

export interface SocketFactory {
  create(): Promise<HaWebSocket>
  /** Home Assistant's text of the last auth_invalid (e.g. "Invalid access token or password"). */
  readonly authMessage: string | undefined
}

/** `2022.9.0`-style versions: whether `version` is at least year.month. */
export function atLeastVersion(version: string | undefined, year: number, month: number): boolean {
  const [y, m] = String(version ?? '').split('.').map((part) => Number.parseInt(part, 10))
  if (!Number.isFinite(y) || !Number.isFinite(m)) return false
  return y! > year || (y === year && m! >= month)
}

export function socketFactory(options: SocketFactoryOptions): SocketFactory {
  let authMessage: string | undefined
  const clean = (text: string) => redactSecrets(text, [options.token]).split('\n')[0]!

  function create(): Promise<HaWebSocket> {
    return new Promise((resolve, reject) => {
      // closeTimeout (ws ≥ 8.19, not in its types yet): a closing handshake the peer ignores ends in 2 s, not 30.
      const wsOptions: WebSocket.ClientOptions = { handshakeTimeout: options.timeoutMs, followRedirects: false }
      const socket = new options.WebSocket(options.wsUrl, { ...wsOptions, closeTimeout: 2_000 } as WebSocket.ClientOptions)
      let settled = false
      const timer = setTimeout(() => fail(new Error(`Home Assistant at ${options.wsUrl} did not complete authentication within ${Math.round(options.timeoutMs / 1000)} s`)), options.timeoutMs)

      const detach = () => {
        clearTimeout(timer)
        socket.off('message', onMessage)
        socket.off('error', onError)
        socket.off('close', onClose)
      }
      const fail = (reason: unknown) => {
        if (settled) return
        settled = true
        detach()
        socket.on('error', () => undefined) // late errors of a socket we are discarding
        socket.terminate()
        reject(reason)
      }
      const onError = (error: Error) => fail(new Error(clean(`cannot connect to Home Assistant at ${options.wsUrl}: ${error.message}`)))
      const onClose = (code: number) => fail(new Error(`Home Assistant closed the connection during authentication (code ${code})`))
      const onMessage = (data: WebSocket.RawData) => {
        let message: { type?: string; ha_version?: string; message?: string }
        try {
          message = JSON.parse(data.toString())
        } catch {
          return fail(new Error(`Home Assistant at ${options.wsUrl} sent something that is not JSON during authentication`))
        }
        switch (message.type) {
          case 'auth_required':
            socket.send(JSON.stringify({ type: 'auth', access_token: options.token }))
            return
          case 'auth_invalid':
            authMessage = clean(String(message.message ?? 'auth_invalid'))
            return fail(options.invalidAuth)
          case 'auth_ok': {
            settled = true
            detach()
            socket.on('error', (error) => options.onSocketError?.(new Error(clean(error.message))))
            const ha = socket as unknown as HaWebSocket
            ha.haVersion = String(message.ha_version ?? '')
            // What the library's own socket does: batched messages since 2022.9.
            if (atLeastVersion(ha.haVersion, 2022, 9)) socket.send(JSON.stringify({ type: 'supported_features', id: 1, features: { coalesce_messages: 1 } }))
            return resolve(ha)
          }
          default:
            return
        }
      }
      socket.on('message', onMessage)
      socket.on('error', onError)
      socket.on('close', onClose)
    })
  }

  return {
    create,
    get authMessage() {
      return authMessage
    },
  }
}
