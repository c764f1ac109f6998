// A loopback fake of Home Assistant's websocket API (/api/websocket on 127.0.0.1:0), speaking the
// real wire protocol: auth_required → auth {access_token} → auth_ok | auth_invalid (then close);
// supported_features, subscribe_events / unsubscribe_events, call_service, get_states and ping with
// `result` / `pong` answers by id; state_changed events sent to subscribers. A client that announced
// `coalesce_messages` gets what the server sends within one turn of its loop as one JSON array frame,
// as Home Assistant coalesces. Tests drive it: emit changes, read the service calls, drop every
// connection, stop answering pings.

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'

export interface FakeEntity {
  entity_id: string
  state: string
  attributes: Record<string, unknown>
  last_changed: string
  last_updated: string
  context: { id: string; parent_id: null; user_id: null }
}

export interface ServiceCall {
  domain: string
  service: string
  service_data?: Record<string, unknown>
  target?: Record<string, unknown>
  return_response?: boolean
}

interface Client {
  socket: WebSocket
  authenticated: boolean
  subscriptions: Map<number, string | undefined>
  /** Announced supported_features.coalesce_messages: messages are batched into array frames. */
  coalesce: boolean
  pending: unknown[]
}

export interface FakeHomeAssistant {
  /** http://127.0.0.1:<port> (what HASS_URL holds). */
  readonly url: string
  /** The token that authenticates now. */
  readonly token: string
  readonly version: string
  /** Every `auth` message received, valid or not. */
  readonly authAttempts: number
  readonly serviceCalls: ServiceCall[]
  /** Message types received after authentication, in order. */
  readonly received: Array<{ type: string; id?: number }>
  /** Open authenticated connections. */
  connections(): number
  /** Frames sent as an array of two or more messages (coalesced). */
  coalescedFrames(): number
  /** state_changed subscriptions over all connections. */
  subscriptions(): number
  states(): FakeEntity[]
  /** Sets an entity (no event). */
  setState(entityId: string, state: string, attributes?: Record<string, unknown>): FakeEntity
  /** Changes an entity and sends state_changed to every subscriber; returns how many got it. */
  change(entityId: string, state: string, attributes?: Record<string, unknown>): number
  /** Sends a raw state_changed payload (old/new state given as is). */
  emit(data: { entity_id: string; old_state: unknown; new_state: unknown }): number
  /** Makes a new token the only valid one (the old one is revoked; open connections stay). */
  rotateToken(token: string): void
  /** Closes every connection abruptly (network loss); the server keeps listening. */
  dropConnections(): void
  /** While true, pings get no pong (a half-open connection). */
  silencePings(silent: boolean): void
  /** Services that answer with an error `{code, message}`. */
  failService(domain: string, service: string, error?: { code: string; message: string }): void
  /** Resolves when `check` holds (polled), rejects after `ms`. */
  until(check: () => boolean, ms?: number, what?: string): Promise<void>
  close(): Promise<void>
}

export async function startFakeHomeAssistant(options: { token?: string; version?: string } = {}): Promise<FakeHomeAssistant> {
  let token = options.token ?? `fake-ha-token-${randomUUID()}`
  const version = options.version ?? '2025.1.0'
  const clients = new Set<Client>()
  const entities = new Map<string, FakeEntity>()
  const serviceCalls: ServiceCall[] = []
  const received: Array<{ type: string; id?: number }> = []
  const failures = new Map<string, { code: string; message: string }>()
  const sockets = new Set<Socket>()
  let authAttempts = 0
  let pingsSilent = false
  let coalesced = 0

  const http = createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'text/plain' })
    res.end('not found')
  })
  http.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  const wss = new WebSocketServer({ noServer: true })
  http.on('upgrade', (req: IncomingMessage, socket, head) => {
    if (new URL(req.url ?? '/', 'http://x').pathname !== '/api/websocket') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => onConnection(ws))
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`

  const send = (client: Client, message: unknown) => {
    if (client.socket.readyState !== client.socket.OPEN) return
    if (!client.coalesce) return client.socket.send(JSON.stringify(message))
    client.pending.push(message)
    if (client.pending.length > 1) return
    setImmediate(() => {
      const batch = client.pending.splice(0)
      if (client.socket.readyState !== client.socket.OPEN || batch.length === 0) return
      if (batch.length > 1) coalesced++
      client.socket.send(JSON.stringify(batch.length === 1 ? batch[0] : batch))
    })
  }
  const result = (client: Client, id: number, value: unknown = null) => send(client, { id, type: 'result', success: true, result: value })
  const failure = (client: Client, id: number, code: string, message: string) => send(client, { id, type: 'result', success: false, error: { code, message } })

  function onConnection(ws: WebSocket): void {
    const client: Client = { socket: ws, authenticated: false, subscriptions: new Map(), coalesce: false, pending: [] }
    clients.add(client)
    ws.on('close', () => clients.delete(client))
    ws.on('error', () => undefined)
    send(client, { type: 'auth_required', ha_version: version })
    ws.on('message', (raw) => {
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return ws.close(1003)
      }
      if (!client.authenticated) {
        if (message?.type !== 'auth') return void (send(client, { type: 'auth_invalid', message: 'Auth message incorrectly formatted' }), ws.close())
        authAttempts++
        if (message.access_token === token) {
          client.authenticated = true
          return send(client, { type: 'auth_ok', ha_version: version })
        }
        send(client, { type: 'auth_invalid', message: 'Invalid access token or password' })
        return ws.close()
      }
      for (const one of Array.isArray(message) ? message : [message]) handle(client, one)
    })
  }

  function handle(client: Client, message: any): void {
    const id = Number(message?.id)
    received.push({ type: String(message?.type), id })
    switch (message?.type) {
      case 'supported_features':
        client.coalesce = message.features?.coalesce_messages === 1
        return result(client, id)
      case 'subscribe_events':
        client.subscriptions.set(id, message.event_type)
        return result(client, id)
      case 'unsubscribe_events':
        if (!client.subscriptions.delete(Number(message.subscription))) return failure(client, id, 'not_found', 'Subscription not found.')
        return result(client, id)
      case 'ping':
        if (!pingsSilent) send(client, { id, type: 'pong' })
        return
      case 'get_states':
        return result(client, id, [...entities.values()])
      case 'call_service': {
        const call: ServiceCall = { domain: message.domain, service: message.service, service_data: message.service_data, target: message.target, return_response: message.return_response }
        const failed = failures.get(`${call.domain}.${call.service}`)
        if (failed) return failure(client, id, failed.code, failed.message)
        serviceCalls.push(call)
        return result(client, id, { context: { id: randomUUID().replace(/-/g, ''), parent_id: null, user_id: 'fake-user' }, response: null })
      }
      default:
        return failure(client, id, 'unknown_command', 'Unknown command.')
    }
  }

  const now = () => new Date().toISOString()
  function setState(entityId: string, state: string, attributes?: Record<string, unknown>): FakeEntity {
    const previous = entities.get(entityId)
    const time = now()
    const entity: FakeEntity = {
      entity_id: entityId,
      state,
      attributes: attributes ?? previous?.attributes ?? {},
      last_changed: previous && previous.state === state ? previous.last_changed : time,
      last_updated: time,
      context: { id: randomUUID().replace(/-/g, ''), parent_id: null, user_id: null },
    }
    entities.set(entityId, entity)
    return entity
  }

  function emit(data: { entity_id: string; old_state: unknown; new_state: unknown }): number {
    let delivered = 0
    const context = (data.new_state as FakeEntity | null)?.context ?? { id: randomUUID().replace(/-/g, ''), parent_id: null, user_id: null }
    for (const client of clients) {
      for (const [id, type] of client.subscriptions) {
        if (type !== undefined && type !== 'state_changed') continue
        send(client, { id, type: 'event', event: { event_type: 'state_changed', data, origin: 'LOCAL', time_fired: now(), context } })
        delivered++
      }
    }
    return delivered
  }

  return {
    url,
    get token() {
      return token
    },
    version,
    get authAttempts() {
      return authAttempts
    },
    serviceCalls,
    received,
    connections: () => [...clients].filter((c) => c.authenticated).length,
    coalescedFrames: () => coalesced,
    subscriptions: () => [...clients].reduce((n, c) => n + [...c.subscriptions.values()].filter((t) => t === undefined || t === 'state_changed').length, 0),
    states: () => [...entities.values()],
    setState,
    change(entityId, state, attributes) {
      const old = entities.get(entityId) ?? null
      const next = setState(entityId, state, attributes)
      return emit({ entity_id: entityId, old_state: old, new_state: next })
    },
    emit,
    rotateToken(next) {
      token = next
    },
    dropConnections() {
      // Gone at once: a dying socket must not count as connected or subscribed.
      for (const client of [...clients]) {
        clients.delete(client)
        client.socket.terminate()
      }
    },
    silencePings(silent) {
      pingsSilent = silent
    },
    failService(domain, service, error = { code: 'service_validation_error', message: `Service ${domain}.${service} failed.` }) {
      failures.set(`${domain}.${service}`, error)
    },
    async until(check, ms = 10_000, what = 'a condition') {
      const end = Date.now() + ms
      while (!check()) {
        if (Date.now() > end) throw new Error(`fake Home Assistant: timed out waiting for ${what}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    async close() {
      for (const client of clients) client.socket.terminate()
      wss.close()
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    },
  }
}
