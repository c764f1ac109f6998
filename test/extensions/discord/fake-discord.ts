// A loopback fake of Discord's wire protocol for the real discord.js client (node:http + ws on
// 127.0.0.1 port 0). REST under /api/v10: GET /gateway/bot, GET /users/@me, POST /channels/:id/messages
// and /typing, application command list and bulk overwrite, interaction callbacks and the
// interaction webhook (@original edit/delete); every request is recorded and the bot token checked
// (401 otherwise). The gateway websocket speaks JSON without compression: HELLO, IDENTIFY → READY and
// GUILD_CREATE (4004 for a bad token), HEARTBEAT → ACK, RESUME → missed events and RESUMED, dispatches
// injected by the test, and closes with any code. Protocol edges on demand: op 7 RECONNECT, op 9
// INVALID_SESSION (resumable or not), heartbeats left without ACK, a DM MESSAGE_CREATE without
// `channel_type`. Every user message is kept in its channel's history: GET /channels/:id and
// GET /channels/:id/messages?after=&limit= (newest first, as Discord answers) read it back.

import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'
import { closeWebSocketPeer, readBody } from '../../helpers/fake-peer.ts'
import { pollUntil } from '../../helpers/until.ts'

export const BOT_ID = '900000000000000001'
export const APPLICATION_ID = '900000000000000001'
export const GUILD_ID = '910000000000000001'
export const BOT_ROLE_ID = '910000000000000009'
export const CHANNELS = {
  general: '920000000000000001',
  free: '920000000000000002',
  thread: '920000000000000003',
} as const
export const USERS = {
  alice: { id: '930000000000000001', username: 'alice', global_name: 'Alice' },
  bob: { id: '930000000000000002', username: 'bob', global_name: 'Bob' },
  mallory: { id: '930000000000000003', username: 'mallory', global_name: 'Mallory' },
  otherBot: { id: '930000000000000004', username: 'helperbot', global_name: null, bot: true },
} as const
export type UserKey = keyof typeof USERS

export interface RestRequest {
  method: string
  path: string
  query: string
  headers: IncomingMessage['headers']
  body: any
  status: number
}

export interface GatewayFrame {
  op: number
  d: any
  s?: number | null
  t?: string | null
}

export interface FakeDiscordOptions {
  /** The bot token the fake accepts (REST `Authorization: Bot <token>`, gateway IDENTIFY/RESUME). */
  token: string
  heartbeatIntervalMs?: number
  /** Answer GET /gateway/bot with this status (a Discord outage) instead of the gateway URL. */
  gatewayBotStatus?: number
}

export interface FakeDiscord {
  readonly origin: string
  /** For DISCORD_API_BASE_URL (discord.js appends /v10/…). */
  readonly apiBase: string
  readonly gatewayUrl: string
  readonly requests: RestRequest[]
  /** Messages the bot posted: channel id and the JSON body. */
  readonly messages: Array<{ channelId: string; body: any }>
  /** Channels the bot showed typing in, in order. */
  readonly typing: string[]
  /** Every frame the client sent (IDENTIFY, RESUME, HEARTBEAT …). */
  readonly frames: GatewayFrame[]
  /** IDENTIFY and RESUME frames, in order. */
  identifies(): GatewayFrame[]
  resumes(): GatewayFrame[]
  /** The application commands currently registered. */
  readonly commands: any[]
  /** Interaction callbacks (deferReply …) and webhook calls on @original. */
  readonly interactions: Array<{ kind: 'callback' | 'edit' | 'delete' | 'followup'; token: string; body: any }>
  connections(): number
  /** Websocket handshakes attempted (refused ones too). */
  upgradeAttempts(): number
  /** Sends a dispatch (op 0) on the live session; kept for replay on RESUME when nobody is connected. */
  dispatch(t: string, d: unknown): number
  /** A MESSAGE_CREATE from a user; returns the message id. */
  message(options: MessageOptions): string
  /** An INTERACTION_CREATE for a chat-input command; returns the interaction token. */
  interaction(options: InteractionOptions): string
  /** Closes the live socket with a close code (4000: unknown error, resumable; 4004: authentication failed). */
  closeSocket(code: number, reason?: string): void
  /** Cuts the live socket without a close frame. */
  drop(): void
  /** The next `count` GET /gateway/bot answer `status`. */
  failGatewayBot(count: number, status?: number): void
  /** Changes the token the fake accepts (a revoked or reset token). */
  setToken(token: string): void
  /** The next `count` websocket handshakes are refused (HTTP 503), as when the gateway is down. */
  refuseUpgrades(count: number): void
  /** Forgets the gateway session: the next RESUME gets INVALID_SESSION (op 9, not resumable). */
  invalidateSession(): void
  /** Posting to this channel answers 403 Missing Permissions (50013). */
  forbidChannel(channelId: string): void
  /** While on, IDENTIFY gets no answer (no READY): a gateway that hangs. */
  holdIdentify(on: boolean): void
  /** The next IDENTIFY is answered by closing the socket with `code` (4004, 4014 …); 0 turns it off. */
  failIdentify(code: number): void
  /** Messages posted to a channel, content only. */
  posted(channelId: string): string[]
  /** Sends op 7 RECONNECT: the client should reconnect and resume. */
  requestReconnect(): void
  /** Sends op 9 INVALID_SESSION on the live socket; not resumable forgets the session (missed events are gone). */
  invalidSession(resumable: boolean): void
  /** While on, heartbeats get no ACK (op 11): the client should take the connection as dead. */
  withholdHeartbeatAcks(on: boolean): void
  until(check: () => boolean, ms?: number): Promise<boolean>
  close(): Promise<void>
}

export interface MessageOptions {
  from?: UserKey
  content: string
  /** A guild channel (default: a direct message). */
  channel?: keyof typeof CHANNELS
  /** Users mentioned (their `<@id>` must be in content to look real; the fake only fills `mentions`). */
  mentions?: Array<UserKey | 'bot'>
  mentionRoles?: string[]
  /** `url`: where the file is served (a loopback server for a voice note), else Discord's CDN. */
  attachments?: Array<{ filename: string; content_type?: string; size?: number; url?: string }>
  /** Message id being replied to and the author of that message. */
  replyTo?: { id: string; author: 'bot' | UserKey }
  webhook?: boolean
  id?: string
  /** A DM without `channel_type` (Discord omits it at times): discord.js cannot type an uncached channel. */
  noChannelType?: boolean
}

export interface InteractionOptions {
  name: string
  args?: string
  from?: UserKey
  channel?: keyof typeof CHANNELS
}

const BOT_USER = { id: BOT_ID, username: 'agentbot', discriminator: '0', global_name: 'Agent', avatar: null, bot: true, verified: true, flags: 0, mfa_enabled: false }
const dmChannelOf = (userId: string) => `94${userId.slice(2)}`

// Snowflakes carry their creation time (ms since the Discord epoch, shifted 22 bits), as Discord's do:
// discord.js reads a message's time from its id.
const DISCORD_EPOCH = 1420070400000n
let snowflake = 0n
const nextId = () => {
  snowflake = [(BigInt(Date.now()) - DISCORD_EPOCH) << 22n, snowflake + 1n].reduce((a, b) => (a > b ? a : b))
  return String(snowflake)
}

function userObject(key: UserKey | 'bot') {
  if (key === 'bot') return BOT_USER
  const user = USERS[key]
  return { discriminator: '0', avatar: null, ...user }
}

function guildPayload() {
  const now = new Date().toISOString()
  const channel = (id: string, name: string, position: number) => ({ id, type: 0, guild_id: GUILD_ID, name, position, permission_overwrites: [], topic: null, nsfw: false, parent_id: null, rate_limit_per_user: 0, last_message_id: null })
  return {
    id: GUILD_ID,
    name: 'Test guild',
    icon: null,
    owner_id: USERS.alice.id,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    premium_tier: 0,
    system_channel_flags: 0,
    preferred_locale: 'en-US',
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    features: [],
    emojis: [],
    stickers: [],
    large: false,
    unavailable: false,
    member_count: 4,
    joined_at: now,
    roles: [
      { id: GUILD_ID, name: '@everyone', permissions: '1024', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 },
      { id: BOT_ROLE_ID, name: 'agentbot', permissions: '3072', position: 1, color: 0, hoist: false, managed: true, mentionable: false, flags: 0, tags: { bot_id: BOT_ID } },
    ],
    channels: [channel(CHANNELS.general, 'general', 0), channel(CHANNELS.free, 'ask-the-agent', 1)],
    threads: [
      {
        id: CHANNELS.thread,
        type: 11,
        guild_id: GUILD_ID,
        parent_id: CHANNELS.general,
        owner_id: USERS.alice.id,
        name: 'a thread',
        last_message_id: null,
        message_count: 0,
        member_count: 2,
        rate_limit_per_user: 0,
        thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: now, locked: false },
        flags: 0,
        total_message_sent: 0,
      },
    ],
    members: [{ user: BOT_USER, roles: [BOT_ROLE_ID], joined_at: now, deaf: false, mute: false, flags: 0 }],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
  }
}

export async function startFakeDiscord(options: FakeDiscordOptions): Promise<FakeDiscord> {
  let token = options.token
  const requests: RestRequest[] = []
  const messages: FakeDiscord['messages'] = []
  const typing: string[] = []
  const frames: GatewayFrame[] = []
  const interactions: FakeDiscord['interactions'] = []
  let commands: any[] = []
  const sockets = new Set<WebSocket>()
  let accepted = 0
  let origin = ''
  let gatewayBotFailures = { count: 0, status: options.gatewayBotStatus ?? 503 }
  if (options.gatewayBotStatus) gatewayBotFailures = { count: Number.POSITIVE_INFINITY, status: options.gatewayBotStatus }
  // One session at a time: its id, its sequence and the dispatches sent, for replay on RESUME.
  let session: { id: string; seq: number; events: Array<{ s: number; t: string; d: unknown }> } | undefined
  let live: WebSocket | undefined
  let identifyClose = 0
  let refusedUpgrades = 0
  let hold = false
  let noAcks = false
  /** User messages per channel, oldest first: the history REST reads. */
  const history = new Map<string, any[]>()
  const forbidden = new Set<string>()
  let attempts = 0

  const json = (res: ServerResponse, status: number, value: unknown) => {
    const body = JSON.stringify(value)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  }
  const noContent = (res: ServerResponse) => (res.writeHead(204), res.end())

  function messageObject(channelId: string, body: any) {
    return {
      id: nextId(),
      type: 0,
      channel_id: channelId,
      author: BOT_USER,
      content: body?.content ?? '',
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: body?.flags ?? 0,
      components: [],
    }
  }

  const server = createServer(async (req, res) => {
    const raw = await readBody(req)
    let body: any
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      body = raw
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const path = url.pathname.replace(/^\/api\/v10/, '')
    const record = (status: number) => requests.push({ method: req.method ?? 'GET', path, query: url.search, headers: req.headers, body, status })
    const answer = (status: number, value?: unknown) => {
      record(status)
      if (status === 204) return noContent(res)
      json(res, status, value)
    }
    if (!url.pathname.startsWith('/api/v10/')) return answer(404, { message: '404: Not Found', code: 0 })

    // Interaction endpoints are authenticated by the interaction token in the path, not the bot token.
    let m = path.match(/^\/interactions\/(\d+)\/([^/]+)\/callback$/)
    if (m && req.method === 'POST') {
      interactions.push({ kind: 'callback', token: m[2]!, body })
      return answer(204)
    }
    m = path.match(/^\/webhooks\/(\d+)\/([^/]+)(\/messages\/(?:@|%40)original)?$/)
    if (m) {
      const kind = !m[3] ? 'followup' : req.method === 'DELETE' ? 'delete' : 'edit'
      interactions.push({ kind, token: m[2]!, body })
      if (kind === 'delete') return answer(204)
      return answer(200, messageObject(CHANNELS.general, body))
    }

    if (req.headers.authorization !== `Bot ${token}`) return answer(401, { message: '401: Unauthorized', code: 0 })
    if (req.method === 'GET' && path === '/gateway/bot') {
      if (gatewayBotFailures.count > 0) {
        gatewayBotFailures.count--
        return answer(gatewayBotFailures.status, { message: 'Service Unavailable', code: 0 })
      }
      return answer(200, { url: origin.replace('http:', 'ws:'), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 } })
    }
    if (req.method === 'GET' && path === '/users/@me') return answer(200, BOT_USER)
    m = path.match(/^\/channels\/(\d+)$/)
    if (m && req.method === 'GET') {
      const recipient = Object.values(USERS).find((u) => dmChannelOf(u.id) === m![1])
      if (!recipient) return answer(404, { message: 'Unknown Channel', code: 10003 })
      return answer(200, { id: m[1], type: 1, last_message_id: history.get(m[1]!)?.at(-1)?.id ?? null, recipients: [userObject(Object.keys(USERS).find((k) => USERS[k as UserKey] === recipient) as UserKey)], flags: 0 })
    }
    m = path.match(/^\/channels\/(\d+)\/messages$/)
    if (m && req.method === 'GET') {
      const after = BigInt(url.searchParams.get('after') ?? '0')
      const limit = Math.min(Number(url.searchParams.get('limit') ?? 50), 100)
      const newer = (history.get(m[1]!) ?? []).filter((message) => BigInt(message.id) > after).slice(0, limit)
      return answer(200, newer.reverse())
    }
    if (m && req.method === 'POST') {
      if (forbidden.has(m[1]!)) return answer(403, { message: 'Missing Permissions', code: 50013 })
      if (typeof body?.content === 'string' && body.content.length > 2000) {
        return answer(400, { message: 'Invalid Form Body', code: 50035, errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 2000 or fewer in length.' }] } } })
      }
      messages.push({ channelId: m[1]!, body })
      return answer(200, messageObject(m[1]!, body))
    }
    m = path.match(/^\/channels\/(\d+)\/typing$/)
    if (m && req.method === 'POST') {
      typing.push(m[1]!)
      return answer(204)
    }
    m = path.match(/^\/applications\/(\d+)\/commands$/)
    if (m) {
      if (req.method === 'GET') return answer(200, commands)
      if (req.method === 'PUT' && Array.isArray(body)) {
        commands = body.map((c: any) => ({ id: nextId(), application_id: APPLICATION_ID, version: nextId(), type: 1, default_member_permissions: null, dm_permission: true, nsfw: false, options: [], ...c }))
        return answer(200, commands)
      }
    }
    answer(404, { message: `404: no route ${req.method} ${path}`, code: 0 })
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    attempts++
    if (refusedUpgrades > 0) {
      refusedUpgrades--
      socket.end('HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n')
      return
    }
    // JSON and no compression is all this fake speaks.
    if (url.searchParams.get('encoding') !== 'json' || url.searchParams.has('compress')) {
      socket.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      accepted++
      sockets.add(ws)
      ws.on('close', () => {
        sockets.delete(ws)
        if (live === ws) live = undefined
      })
      const send = (frame: GatewayFrame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame))
      send({ op: 10, d: { heartbeat_interval: options.heartbeatIntervalMs ?? 41_250 }, s: null, t: null })
      ws.on('message', (data) => {
        let frame: GatewayFrame
        try {
          frame = JSON.parse(String(data)) as GatewayFrame
        } catch {
          return ws.close(4002, 'Error while decoding payload.')
        }
        frames.push(frame)
        if (frame.op === 1) return noAcks ? undefined : send({ op: 11, d: null, s: null, t: null })
        if (frame.op === 2) {
          if (hold) return
          if (identifyClose) return ws.close(identifyClose, 'Refused by the test.')
          if (frame.d?.token !== token) return ws.close(4004, 'Authentication failed.')
          session = { id: randomUUID().replace(/-/g, ''), seq: 0, events: [] }
          live = ws
          const ready = { v: 10, user: BOT_USER, guilds: [{ id: GUILD_ID, unavailable: true }], session_id: session.id, resume_gateway_url: origin.replace('http:', 'ws:'), shard: [0, 1], application: { id: APPLICATION_ID, flags: 0 }, private_channels: [], user_settings: {}, relationships: [], presences: [], guild_join_requests: [], geo_ordered_rtc_regions: [] }
          dispatchOn(ws, 'READY', ready)
          dispatchOn(ws, 'GUILD_CREATE', guildPayload())
          return
        }
        if (frame.op === 6) {
          if (frame.d?.token !== token) return ws.close(4004, 'Authentication failed.')
          if (!session || frame.d?.session_id !== session.id) return send({ op: 9, d: false, s: null, t: null })
          live = ws
          for (const event of session.events.filter((e) => e.s > Number(frame.d.seq ?? 0))) send({ op: 0, s: event.s, t: event.t, d: event.d })
          dispatchOn(ws, 'RESUMED', {})
        }
      })
    })
  })

  function dispatchOn(ws: WebSocket | undefined, t: string, d: unknown): number {
    if (!session) throw new Error('no gateway session')
    const s = ++session.seq
    session.events.push({ s, t, d })
    if (session.events.length > 1000) session.events.shift()
    if (ws && ws.readyState === ws.OPEN) ws.send(JSON.stringify({ op: 0, s, t, d }))
    return s
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const fake: FakeDiscord = {
    origin,
    apiBase: `${origin}/api`,
    gatewayUrl: origin.replace('http:', 'ws:'),
    requests,
    messages,
    typing,
    frames,
    identifies: () => frames.filter((f) => f.op === 2),
    resumes: () => frames.filter((f) => f.op === 6),
    get commands() {
      return commands
    },
    interactions,
    connections: () => accepted,
    upgradeAttempts: () => attempts,
    dispatch: (t, d) => dispatchOn(live, t, d),
    message(o) {
      const author = userObject(o.from ?? 'alice')
      const id = o.id ?? nextId()
      const guild = o.channel !== undefined
      const channelId = guild ? CHANNELS[o.channel!] : dmChannelOf(author.id)
      const referenced = o.replyTo ? { id: o.replyTo.id, type: 0, channel_id: channelId, author: userObject(o.replyTo.author), content: 'earlier', timestamp: new Date().toISOString(), edited_timestamp: null, tts: false, mention_everyone: false, mentions: [], mention_roles: [], attachments: [], embeds: [], pinned: false, flags: 0 } : undefined
      const payload = {
        id,
        type: o.replyTo ? 19 : 0,
        channel_id: channelId,
        ...(guild ? { guild_id: GUILD_ID, member: { roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0, nick: null }, channel_type: o.channel === 'thread' ? 11 : 0 } : o.noChannelType ? {} : { channel_type: 1 }),
        author,
        content: o.content,
        timestamp: new Date().toISOString(),
        edited_timestamp: null,
        tts: false,
        mention_everyone: false,
        mentions: (o.mentions ?? []).map(userObject),
        mention_roles: o.mentionRoles ?? [],
        attachments: (o.attachments ?? []).map((a) => ({ id: nextId(), filename: a.filename, size: a.size ?? 1234, url: a.url ?? `https://cdn.discordapp.com/attachments/${channelId}/${id}/${a.filename}`, proxy_url: `https://media.discordapp.net/attachments/${channelId}/${id}/${a.filename}`, ...(a.content_type ? { content_type: a.content_type } : {}) })),
        embeds: [],
        pinned: false,
        flags: 0,
        components: [],
        ...(o.webhook ? { webhook_id: nextId() } : {}),
        ...(referenced ? { message_reference: { type: 0, message_id: referenced.id, channel_id: channelId, ...(guild ? { guild_id: GUILD_ID } : {}) }, referenced_message: referenced } : {}),
      }
      history.set(channelId, [...(history.get(channelId) ?? []), payload])
      // Sent while no gateway session exists: kept in the channel only (REST reads it), as on Discord.
      if (session) fake.dispatch('MESSAGE_CREATE', payload)
      return id
    },
    interaction(o) {
      const user = userObject(o.from ?? 'alice')
      const guild = o.channel !== undefined
      const channelId = guild ? CHANNELS[o.channel!] : dmChannelOf(user.id)
      const interactionToken = `itok-${randomUUID()}`
      const channel = guild ? { id: channelId, type: o.channel === 'thread' ? 11 : 0, guild_id: GUILD_ID, name: o.channel, ...(o.channel === 'thread' ? { parent_id: CHANNELS.general } : {}) } : { id: channelId, type: 1, recipients: [user] }
      fake.dispatch('INTERACTION_CREATE', {
        id: nextId(),
        application_id: APPLICATION_ID,
        type: 2,
        token: interactionToken,
        version: 1,
        channel_id: channelId,
        channel,
        ...(guild ? { guild_id: GUILD_ID, member: { user, roles: [], joined_at: new Date().toISOString(), deaf: false, mute: false, flags: 0, permissions: '1024' } } : { user }),
        app_permissions: '3072',
        locale: 'en-US',
        entitlements: [],
        authorizing_integration_owners: { '0': GUILD_ID },
        context: guild ? 0 : 1,
        data: { id: commands.find((c) => c.name === o.name)?.id ?? nextId(), name: o.name, type: 1, ...(o.args !== undefined ? { options: [{ name: 'args', type: 3, value: o.args }] } : {}) },
      })
      return interactionToken
    },
    closeSocket(code, reason = '') {
      live?.close(code, reason)
    },
    drop() {
      for (const socket of sockets) socket.terminate()
    },
    failGatewayBot(count, status = 503) {
      gatewayBotFailures = { count, status }
    },
    setToken(next) {
      token = next
    },
    refuseUpgrades(count) {
      refusedUpgrades = count
    },
    invalidateSession() {
      if (session) session = { ...session, id: `expired-${session.id}` }
    },
    forbidChannel(channelId) {
      forbidden.add(channelId)
    },
    holdIdentify(on) {
      hold = on
    },
    failIdentify(code) {
      identifyClose = code
    },
    posted: (channelId) => messages.filter((m) => m.channelId === channelId).map((m) => m.body?.content ?? ''),
    requestReconnect() {
      live?.send(JSON.stringify({ op: 7, d: null, s: null, t: null }))
    },
    invalidSession(resumable) {
      const socket = live
      if (!resumable) session = undefined
      socket?.send(JSON.stringify({ op: 9, d: resumable, s: null, t: null }))
    },
    withholdHeartbeatAcks(on) {
      noAcks = on
    },
    until: pollUntil,
    close: () => closeWebSocketPeer(server, wss, sockets),
  }
  return fake
}

/** The DM channel id the fake uses for a user. */
export const dmChannel = (user: UserKey) => dmChannelOf(USERS[user].id)
