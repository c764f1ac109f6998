// A loopback fake of Slack's wire protocol for the official SDK clients (node:http + ws on 127.0.0.1
// port 0). The Web API under /api/<method>, form-encoded or JSON, tokens checked from the
// Authorization header (`{ok: false, error: "invalid_auth"}` otherwise): auth.test,
// apps.connections.open (the app token; answers a ws:// URL to this fake), chat.postMessage,
// chat.update, chat.postEphemeral; a 429 with Retry-After on demand; slash command response URLs
// under /respond/<id>. The Socket Mode websocket: hello, pings, events_api and slash_commands
// envelopes injected by the test (kept for the next connection while none is up, as Slack retries
// them), acks recorded, `disconnect` messages (refresh_requested, link_disabled) and dropped
// sockets. Every request is recorded.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { closeWebSocketPeer, readBody } from '../../helpers/fake-peer.ts'
import { pollUntil } from '../../helpers/until.ts'

export const BOT_USER = 'U0AGENTBOT'
export const BOT_ID = 'B0AGENTBOT'
export const TEAM_ID = 'T0TESTTEAM'
export const CHANNELS = { general: 'C0GENERAL1', free: 'C0FREECHAN' } as const
export const USERS = { alice: 'U0ALICE001', bob: 'U0BOB00001', mallory: 'U0MALLORY1' } as const
export type UserKey = keyof typeof USERS
/** The DM channel between the app and a user. */
export const dmChannel = (user: UserKey) => `D${USERS[user].slice(1)}`

export interface ApiRequest {
  method: string
  headers: IncomingMessage['headers']
  body: Record<string, any>
  /** The `ok` or `error` Slack answered, or the HTTP status when not 200. */
  outcome: string
}

export interface Posted {
  channel: string
  text: string
  thread_ts?: string
  ts: string
  body: Record<string, any>
}

export interface FakeSlackOptions {
  botToken: string
  appToken: string
  /** How often the fake pings the client (the SDK reconnects after 30 s without a ping). */
  pingMs?: number
}

export interface MessageOptions {
  from?: UserKey
  text: string
  /** A channel (default: the user's DM with the app). */
  channel?: keyof typeof CHANNELS
  thread_ts?: string
  /** Also send the `app_mention` event Slack sends for a message that mentions the app. */
  appMention?: boolean
  subtype?: string
  bot_id?: string
  /** `served`: the file's bytes, served by the fake at its own origin (bot token checked) as url_private. */
  files?: Array<{ name: string; mimetype?: string; size?: number; served?: Buffer }>
}

export interface SlashOptions {
  from?: UserKey
  text: string
  command?: string
  channel?: keyof typeof CHANNELS
  /** Default: this fake's /respond/<id>. */
  responseUrl?: string
}

let clock = 1_700_000_000
const nextTs = () => `${++clock}.000100`
let envelopes = 0

function parseBody(raw: string, type: string | undefined): Record<string, any> {
  if (!raw) return {}
  if (type?.includes('application/json')) return JSON.parse(raw)
  return Object.fromEntries(new URLSearchParams(raw))
}

export async function startFakeSlack(options: FakeSlackOptions) {
  let botToken = options.botToken
  let appToken = options.appToken
  const requests: ApiRequest[] = []
  /** Files served at url_private (by name) and the downloads of them. */
  const served = new Map<string, Buffer>()
  const downloads: string[] = []
  const posted: Posted[] = []
  const ephemeral: Array<{ id: string; body: any }> = []
  const acks: Array<{ envelope_id: string; payload?: unknown }> = []
  const sockets = new Set<WebSocket>()
  /** Envelopes sent while no client was connected, delivered after the next hello. */
  const waiting: string[] = []
  let live: WebSocket | undefined
  let connections = 0
  let rateLimited = 0
  let postDelayMs = 0
  /** chat.postMessage: this many more succeed, then `failing` answer HTTP 500. */
  let failAfter = { ok: 0, failing: 0 }
  let refusedOpens = 0
  let origin = ''
  const forbidden = new Set<string>()

  const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) => {
    const body = JSON.stringify(value)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers })
    res.end(body)
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const raw = await readBody(req)
    const respond = url.pathname.match(/^\/respond\/(\w+)$/)
    if (respond && req.method === 'POST') {
      ephemeral.push({ id: respond[1]!, body: JSON.parse(raw || '{}') })
      res.writeHead(200, { 'content-type': 'text/plain' })
      return res.end('ok')
    }
    const file = url.pathname.match(/^\/files-pri\/[\w-]+\/(.+)$/)
    if (file && req.method === 'GET') {
      const data = served.get(decodeURIComponent(file[1]!))
      if (req.headers.authorization !== `Bearer ${botToken}` || !data) return json(res, 404, { ok: false, error: 'file_not_found' })
      downloads.push(file[1]!)
      res.writeHead(200, { 'content-type': 'application/octet-stream' })
      return res.end(data)
    }
    const match = url.pathname.match(/^\/api\/([\w.]+)$/)
    if (!match || req.method !== 'POST') return json(res, 404, { ok: false, error: 'unknown_method' })
    const method = match[1]!
    const body = parseBody(raw, req.headers['content-type'])
    const record = (outcome: string) => requests.push({ method, headers: req.headers, body, outcome })
    const answer = (value: Record<string, unknown>) => {
      record(value.ok ? 'ok' : String(value.error))
      json(res, 200, value)
    }
    const bearer = req.headers.authorization?.replace(/^Bearer /, '')
    if (method === 'apps.connections.open') {
      if (bearer !== appToken) return answer({ ok: false, error: 'invalid_auth' })
      if (refusedOpens > 0) {
        refusedOpens--
        record('HTTP 503')
        return json(res, 503, { ok: false, error: 'service_unavailable' })
      }
      return answer({ ok: true, url: `${origin.replace('http:', 'ws:')}/link/?ticket=ticket-${connections + 1}&app_id=A0TESTAPP` })
    }
    if (bearer !== botToken) return answer({ ok: false, error: 'invalid_auth' })
    if (method === 'auth.test') return answer({ ok: true, url: 'https://test-team.slack.com/', team: 'Test Team', user: 'agentbot', team_id: TEAM_ID, user_id: BOT_USER, bot_id: BOT_ID })
    if (method === 'chat.postMessage' && postDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, postDelayMs))
    if (method === 'chat.postMessage' || method === 'chat.postEphemeral' || method === 'chat.update') {
      if (rateLimited > 0) {
        rateLimited--
        record('HTTP 429')
        return json(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': '1' })
      }
      if (method === 'chat.postMessage' && failAfter.failing > 0) {
        if (failAfter.ok > 0) failAfter.ok--
        else {
          failAfter.failing--
          record('HTTP 500')
          return json(res, 500, { ok: false, error: 'internal_error' })
        }
      }
      if (forbidden.has(body.channel)) return answer({ ok: false, error: 'not_in_channel' })
      if (!body.channel || typeof body.text !== 'string') return answer({ ok: false, error: 'invalid_arguments' })
      if (body.text.length > 40_000) return answer({ ok: false, error: 'msg_too_long' })
      const ts = method === 'chat.update' ? body.ts : nextTs()
      if (method === 'chat.postMessage') posted.push({ channel: body.channel, text: body.text, ts, body, ...(body.thread_ts ? { thread_ts: body.thread_ts } : {}) })
      return answer({ ok: true, channel: body.channel, ts, message: { type: 'message', user: BOT_USER, bot_id: BOT_ID, text: body.text, ts } })
    }
    answer({ ok: false, error: 'unknown_method' })
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/link/' || !url.searchParams.get('ticket')) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      connections++
      sockets.add(ws)
      live = ws
      const ping = setInterval(() => ws.readyState === ws.OPEN && ws.ping(), options.pingMs ?? 5000)
      ws.on('close', () => {
        clearInterval(ping)
        sockets.delete(ws)
        if (live === ws) live = undefined
      })
      ws.on('error', () => undefined)
      ws.on('message', (data) => {
        try {
          acks.push(JSON.parse(String(data)))
        } catch {
          // not an ack
        }
      })
      ws.send(JSON.stringify({ type: 'hello', num_connections: 1, debug_info: { host: 'fake-slack', approximate_connection_time: 18060 }, connection_info: { app_id: 'A0TESTAPP' } }))
      for (const frame of waiting.splice(0)) ws.send(frame)
    })
  })

  /** Sends an envelope on the live socket, or keeps it for the next connection (Slack retries); returns its id. */
  function envelope(type: string, payload: unknown): string {
    const id = `env-${++envelopes}`
    const frame = JSON.stringify({ envelope_id: id, type, payload, accepts_response_payload: type !== 'events_api' })
    if (live && live.readyState === live.OPEN) live.send(frame)
    else waiting.push(frame)
    return id
  }

  function eventCallback(event: Record<string, unknown>) {
    return { token: 'verification-token', team_id: TEAM_ID, api_app_id: 'A0TESTAPP', event, type: 'event_callback', event_id: `Ev${envelopes + 1}`, event_time: clock, authorizations: [{ team_id: TEAM_ID, user_id: BOT_USER, is_bot: true }] }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const fake = {
    origin,
    /** For SLACK_API_BASE_URL. */
    apiBase: `${origin}/api/`,
    requests,
    downloads,
    posted,
    ephemeral,
    acks,
    connections: () => connections,
    isConnected: () => Boolean(live && live.readyState === live.OPEN),
    /** A message event (and optionally its app_mention); returns the message's ts. */
    message(o: MessageOptions): string {
      const user = USERS[o.from ?? 'alice']
      const channel = o.channel ? CHANNELS[o.channel] : dmChannel(o.from ?? 'alice')
      const ts = nextTs()
      const event = {
        type: 'message',
        channel,
        channel_type: o.channel ? 'channel' : 'im',
        user,
        text: o.text,
        ts,
        event_ts: ts,
        team: TEAM_ID,
        ...(o.thread_ts ? { thread_ts: o.thread_ts } : {}),
        ...(o.subtype ? { subtype: o.subtype } : {}),
        ...(o.bot_id ? { bot_id: o.bot_id } : {}),
        ...(o.files ? { files: o.files.map(({ served: bytes, ...f }) => {
          if (bytes) served.set(f.name, bytes)
          return { size: 1234, ...f, url_private: bytes ? `${origin}/files-pri/${TEAM_ID}/${f.name}` : `https://files.slack.com/files-pri/${TEAM_ID}/${f.name}` }
        }) } : {}),
      }
      envelope('events_api', eventCallback(event))
      if (o.appMention) envelope('events_api', eventCallback({ ...event, type: 'app_mention', channel_type: undefined }))
      return ts
    },
    /** A slash command invocation; returns the envelope id (its response URL is /respond/<id>). */
    slash(o: SlashOptions): string {
      const from = o.from ?? 'alice'
      const channel = o.channel ? CHANNELS[o.channel] : dmChannel(from)
      const id = `cmd${envelopes + 1}`
      envelope('slash_commands', {
        token: 'verification-token',
        team_id: TEAM_ID,
        team_domain: 'test-team',
        channel_id: channel,
        channel_name: o.channel ?? 'directmessage',
        user_id: USERS[from],
        user_name: from,
        command: o.command ?? '/agent',
        text: o.text,
        api_app_id: 'A0TESTAPP',
        is_enterprise_install: 'false',
        response_url: o.responseUrl ?? `${origin}/respond/${id}`,
        trigger_id: `trigger.${id}`,
      })
      return id
    },
    /** Answers sent to a slash command's response URL, text only. */
    responses: (id: string) => ephemeral.filter((e) => e.id === id).map((e) => String(e.body?.text ?? '')),
    /** Slack's `disconnect` message (the client then reconnects). */
    disconnect(reason = 'refresh_requested') {
      live?.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'fake-slack' } }))
    },
    /** Cuts every socket without a close frame. */
    drop() {
      for (const socket of sockets) socket.terminate()
    },
    /** The next `count` chat.* calls answer 429 with Retry-After: 1. */
    rateLimit(count: number) {
      rateLimited = count
    },
    /** chat.postMessage: `ok` more succeed, then `failing` answer HTTP 500 (beyond the client's retries: 4). */
    failPostsAfter(ok: number, failing: number) {
      failAfter = { ok, failing }
    },
    /** chat.postMessage answers after this long (a slow Slack). */
    delayPosts(ms: number) {
      postDelayMs = ms
    },
    /** The next `count` apps.connections.open calls answer 503. */
    refuseOpens(count: number) {
      refusedOpens = count
    },
    setTokens(tokens: { bot?: string; app?: string }) {
      botToken = tokens.bot ?? botToken
      appToken = tokens.app ?? appToken
    },
    forbidChannel(channel: string) {
      forbidden.add(channel)
    },
    /** Texts posted to a channel (optionally one thread), in order. */
    texts(channel: string, thread?: string): string[] {
      return posted.filter((p) => p.channel === channel && (thread === undefined || p.thread_ts === thread)).map((p) => p.text)
    },
    until: pollUntil,
    close: () => closeWebSocketPeer(server, wss, sockets),
  }
  return fake
}

export type FakeSlack = Awaited<ReturnType<typeof startFakeSlack>>
