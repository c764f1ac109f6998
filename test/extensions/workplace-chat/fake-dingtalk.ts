// A loopback fake of DingTalk's Stream mode and robot APIs (node:http + ws, 127.0.0.1 port 0):
// POST /v1.0/gateway/connections/open (checks clientId/clientSecret, answers {endpoint, ticket}), the
// websocket the SDK connects to (one-time tickets; SYSTEM ping frames; CALLBACK frames carrying robot
// messages in DingTalk's JSON shape; the SDK's acks recorded), session webhooks recording replies,
// POST /v1.0/oauth2/accessToken and the robot send endpoints. Like DingTalk, a callback pushed while
// no connection is up waits and is delivered on the next one (the platform redelivers unacknowledged
// callbacks), frames go to the newest connection, and a SYSTEM `disconnect` announces that the
// server closes the connection `graceMs` later.

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { closeWebSocketPeer, readBody } from '../../helpers/fake-peer.ts'
import { pollUntil } from '../../helpers/until.ts'

export const TOPIC_ROBOT = '/v1.0/im/bot/messages/get'
export const ROBOT_USER_ID = '$:LWCP_v1:$robot0000000000000000000000000'
export const CORP_ID = 'dingcorp0000000000'
export const ROBOT_CODE = 'dingrobotcode00000'

/** The credentials the fake accepts; read on every request, so a test may change them (rotation). */
export interface FakeOptions {
  clientId: string
  clientSecret: string
}

export interface Frame {
  code?: number
  headers: Record<string, string>
  message?: string
  data: string
  type?: string
}

export interface Reply {
  session: string
  body: any
}

export interface FakeDingTalk {
  readonly origin: string
  readonly gatewayUrl: string
  /** Every open-connection request: its JSON body and the status answered. */
  readonly opens: Array<{ body: any; status: number }>
  /** Websocket connections accepted so far. */
  readonly connections: () => number
  /** Frames the client sent back (acks of callbacks, answers to pings). */
  readonly frames: Frame[]
  /** Posts to session webhooks. */
  readonly replies: Reply[]
  /** Requests to the OpenAPI (token, robot sends). */
  readonly api: Array<{ path: string; headers: IncomingMessage['headers']; body: any }>
  /** A session webhook URL of this fake. */
  sessionWebhook(session: string): string
  /** Sends a robot message (an object, or raw data text) as a CALLBACK frame; returns the frame's messageId. */
  push(message: Record<string, unknown> | string, frameMessageId?: string): string
  /** Sends raw text on the live connection (malformed frames). */
  raw(text: string): void
  /** Sends a SYSTEM ping; returns its messageId. */
  ping(): string
  /** The next `count` open-connection requests get `status` (default 503, a DingTalk outage). */
  failOpens(count: number, status?: number): void
  /** The next `count` websocket handshakes are refused (HTTP 401, as for a stale ticket). */
  failUpgrades(count: number): void
  /** Cuts every live websocket (no close frame), as a network failure would. */
  drop(): void
  /** Sends SYSTEM `disconnect` on the newest connection and closes it `graceMs` later (default 10 s) if the client has not. */
  announceDisconnect(graceMs?: number): void
  /** Connections open right now. */
  live(): number
  /** Polls until check() holds or `ms` pass. */
  until(check: () => boolean, ms?: number): Promise<boolean>
  close(): Promise<void>
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
  res.end(body)
}

export async function startFakeDingTalk(options: FakeOptions): Promise<FakeDingTalk> {
  const opens: FakeDingTalk['opens'] = []
  const frames: Frame[] = []
  const replies: Reply[] = []
  const api: FakeDingTalk['api'] = []
  const tickets = new Set<string>()
  const sockets = new Set<WebSocket>()
  let accepted = 0
  let origin = ''
  let failing = { count: 0, status: 503 }
  let refusedUpgrades = 0
  /** Frames pushed while no connection was up: delivered on the next one. */
  const waiting: unknown[] = []
  const graceTimers = new Set<NodeJS.Timeout>()
  const order: WebSocket[] = []

  const server = createServer(async (req, res) => {
    const raw = await readBody(req)
    let body: any
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      body = raw
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (req.method === 'POST' && url.pathname === '/v1.0/gateway/connections/open') {
      if (failing.count > 0) {
        failing.count--
        opens.push({ body, status: failing.status })
        return json(res, failing.status, { requestid: randomUUID().toUpperCase(), code: 'ServiceUnavailable', message: 'try again later' })
      }
      if (body?.clientId !== options.clientId || body?.clientSecret !== options.clientSecret) {
        opens.push({ body, status: 401 })
        // DingTalk's answer to bad credentials.
        return json(res, 401, { requestid: randomUUID().toUpperCase(), code: 'authFailed', message: '鉴权失败' })
      }
      opens.push({ body, status: 200 })
      const ticket = randomUUID()
      tickets.add(ticket)
      return json(res, 200, { endpoint: `${origin.replace('http:', 'ws:')}/connect`, ticket })
    }
    if (req.method === 'POST' && url.pathname === '/robot/sendBySession') {
      replies.push({ session: url.searchParams.get('session') ?? '', body })
      return json(res, 200, { errcode: 0, errmsg: 'ok' })
    }
    if (req.method === 'POST' && url.pathname.startsWith('/v1.0/')) {
      api.push({ path: url.pathname, headers: req.headers, body })
      if (url.pathname === '/v1.0/oauth2/accessToken') {
        if (body?.appKey !== options.clientId || body?.appSecret !== options.clientSecret) return json(res, 400, { code: 'invalidClientIdOrSecret', message: 'bad credentials' })
        return json(res, 200, { accessToken: 'fake-access-token-0123456789', expireIn: 7200 })
      }
      if (req.headers['x-acs-dingtalk-access-token'] !== 'fake-access-token-0123456789') return json(res, 401, { code: 'InvalidAuthentication', message: 'bad token' })
      if (url.pathname === '/v1.0/robot/groupMessages/send') return json(res, 200, { processQueryKey: randomUUID() })
      if (url.pathname === '/v1.0/robot/oToMessages/batchSend') return json(res, 200, { processQueryKey: randomUUID(), invalidStaffIdList: [], flowControlledStaffIdList: [] })
    }
    json(res, 404, { code: 'notFound', message: `no route ${req.method} ${url.pathname}` })
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const ticket = url.searchParams.get('ticket') ?? ''
    const refused = refusedUpgrades > 0
    if (refused) refusedUpgrades--
    if (url.pathname !== '/connect' || !tickets.delete(ticket) || refused) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted++
      sockets.add(ws)
      order.push(ws)
      ws.on('close', () => sockets.delete(ws))
      // What waited for a connection, as DingTalk redelivers an unacknowledged callback.
      setTimeout(() => {
        for (const frame of waiting.splice(0)) if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame))
      }, 20)
      ws.on('message', (data) => {
        try {
          frames.push(JSON.parse(String(data)) as Frame)
        } catch {
          frames.push({ headers: {}, data: String(data), type: 'unparseable' })
        }
      })
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const live = () => [...sockets].filter((s) => s.readyState === s.OPEN)
  const frameOf = (type: string, topic: string, data: unknown, messageId: string = randomUUID()) => ({
    specVersion: '1.0',
    type,
    headers: { appId: 'app-0000', connectionId: randomUUID(), contentType: 'application/json', messageId, time: String(Date.now()), topic },
    data: typeof data === 'string' ? data : JSON.stringify(data),
  })
  /** The newest live connection (the one DingTalk delivers on). */
  const newest = () => order.filter((s) => s.readyState === s.OPEN).at(-1)
  const sendFrame = (frame: unknown) => {
    const socket = newest()
    if (!socket) return void waiting.push(frame)
    socket.send(JSON.stringify(frame))
  }

  return {
    origin,
    gatewayUrl: `${origin}/v1.0/gateway/connections/open`,
    opens,
    connections: () => accepted,
    frames,
    replies,
    api,
    sessionWebhook: (session) => `${origin}/robot/sendBySession?session=${encodeURIComponent(session)}`,
    push(message, frameMessageId) {
      const frame = frameOf('CALLBACK', TOPIC_ROBOT, message, frameMessageId)
      sendFrame(frame)
      return frame.headers.messageId
    },
    raw(text) {
      for (const socket of live()) socket.send(text)
    },
    ping() {
      const frame = frameOf('SYSTEM', 'ping', { opaque: randomUUID() })
      sendFrame(frame)
      return frame.headers.messageId
    },
    failOpens(count, status = 503) {
      failing = { count, status }
    },
    failUpgrades(count) {
      refusedUpgrades = count
    },
    drop() {
      for (const socket of sockets) socket.terminate()
    },
    announceDisconnect(graceMs = 10_000) {
      const socket = newest()
      if (!socket) throw new Error('no live DingTalk stream connection')
      socket.send(JSON.stringify(frameOf('SYSTEM', 'disconnect', { reason: 'server maintenance' })))
      const timer = setTimeout(() => (graceTimers.delete(timer), socket.terminate()), graceMs)
      graceTimers.add(timer)
    },
    live: () => live().length,
    until: pollUntil,
    close: () => {
      for (const timer of graceTimers) clearTimeout(timer)
      return closeWebSocketPeer(server, wss, sockets)
    },
  }
}

let counter = 0

/** A robot message in DingTalk's JSON shape (topic /v1.0/im/bot/messages/get). */
export function robotMessage(fake: FakeDingTalk, options: {
  text?: string
  richText?: Array<Record<string, unknown>>
  group?: boolean
  mention?: boolean
  staffId?: string
  nick?: string
  conversationId?: string
  msgId?: string
  session?: string
  expiresAt?: number
}): Record<string, unknown> {
  const n = ++counter
  const group = options.group ?? false
  const staffId = options.staffId ?? 'staff-alice'
  const senderId = `$:LWCP_v1:$${Buffer.from(staffId).toString('base64')}`
  const base: Record<string, unknown> = {
    conversationId: options.conversationId ?? (group ? 'cidGroup0000000000000000==' : `cidDm${Buffer.from(staffId).toString('base64')}==`),
    ...(group ? { atUsers: options.mention === false ? [] : [{ dingtalkId: ROBOT_USER_ID }], conversationTitle: 'Team room' } : {}),
    chatbotCorpId: CORP_ID,
    chatbotUserId: ROBOT_USER_ID,
    msgId: options.msgId ?? `msgE0${n}${randomUUID().replace(/-/g, '').slice(0, 16)}==`,
    senderNick: options.nick ?? 'Alice',
    isAdmin: false,
    senderStaffId: staffId,
    sessionWebhookExpiredTime: options.expiresAt ?? Date.now() + 90 * 60_000,
    createAt: Date.now(),
    senderCorpId: CORP_ID,
    conversationType: group ? '2' : '1',
    senderId,
    ...(group ? { isInAtList: options.mention !== false } : {}),
    sessionWebhook: fake.sessionWebhook(options.session ?? `session-${n}`),
    robotCode: ROBOT_CODE,
  }
  if (options.richText) return { ...base, msgtype: 'richText', content: { richText: options.richText } }
  return { ...base, text: { content: options.text ?? 'hello' }, msgtype: 'text' }
}
