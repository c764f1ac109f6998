// A loopback fake of a Matrix homeserver's client-server API (node:http on 127.0.0.1 port 0), with
// the endpoints the real matrix-js-sdk calls in the adapter's flows: versions, capabilities, login,
// whoami, push rules, filters, a bounded /sync long-poll (initial and incremental, `since`/`timeout`,
// inline or stored filters with a timeline limit), send, typing, join, members, state and account
// data. Tests create rooms, invite the bot, push timeline events into the next /sync, and read what
// the bot sent; /sync failures, revoked tokens, a soft logout (tokens revoked with `soft_logout: true`;
// a password login gets a new one) and rate limits (429 M_LIMIT_EXCEEDED with retry_after_ms on
// sends or /sync) can be injected.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pollUntil } from '../../helpers/until.ts'

export const SERVER_NAME = 'fake.test'
export const BOT_ID = `@agent:${SERVER_NAME}`
export const BOT_NAME = 'Agent Smith'

export interface MatrixEvent {
  type: string
  sender: string
  content: Record<string, any>
  event_id: string
  origin_server_ts: number
  room_id: string
  state_key?: string
  unsigned?: Record<string, any>
}

interface Stored {
  pos: number
  event: MatrixEvent
}

interface Room {
  id: string
  events: Stored[]
}

export interface SentEvent {
  roomId: string
  type: string
  txnId: string
  content: Record<string, any>
  eventId: string
}

export interface RequestRecord {
  method: string
  path: string
  query: URLSearchParams
  body: any
  status?: number
}

export interface FakeHomeserverOptions {
  /** The bot's access token (default a fixed test token). */
  token?: string
  /** Password accepted by POST /login for the bot (default none: password login refused). */
  password?: string
  /** Longest time one /sync long-poll is held (ms, default 5000). */
  maxPollMs?: number
}

export interface RoomOptions {
  /** Users already joined besides the bot (display names optional). */
  members: Array<string | { id: string; name: string }>
  /** The bot is joined (default true). */
  botJoined?: boolean
  name?: string
  encrypted?: boolean
  /** A room id to use (default generated). */
  id?: string
}

export interface FakeHomeserver {
  readonly url: string
  readonly token: string
  readonly requests: RequestRecord[]
  readonly sent: SentEvent[]
  readonly typing: Array<{ roomId: string; userId: string; typing: boolean; timeout?: number }>
  readonly joins: string[]
  readonly logins: Array<Record<string, any>>
  /** Bot account data by type. */
  readonly accountData: Map<string, Record<string, any>>
  /** Media served by the authenticated download API, by mxc:// URL (voice messages). */
  readonly media: Map<string, Buffer>
  createRoom(options: RoomOptions): string
  /** `inviter` invites the bot to a new room (`isDirect`: a DM invite). Returns the room id. */
  invite(inviter: string, options?: { isDirect?: boolean; name?: string; others?: string[] }): string
  /** A message from `sender` in `roomId`, delivered in the next /sync. Returns its event id. */
  message(roomId: string, sender: string, content: Record<string, any> | string, options?: { ts?: number; type?: string }): string
  /** Replaces bot account data (e.g. m.direct), delivered in the next /sync. */
  setAccountData(type: string, content: Record<string, any>): void
  /** The next `count` /sync requests fail with `status`. */
  failSyncs(count: number, status?: number): void
  /** Every token stops working (M_UNKNOWN_TOKEN). */
  revokeTokens(): void
  /** A soft logout: every token stops working with `soft_logout: true`; the device may log in again. */
  softLogout(): void
  /** The next `count` requests of `kind` are refused with 429 M_LIMIT_EXCEEDED and `retry_after_ms`. */
  rateLimit(kind: 'send' | 'sync', count: number, retryAfterMs: number): void
  /** /sync requests answered so far (any status). */
  syncs(): RequestRecord[]
  /** Events the bot sent to a room (type m.room.message unless `type`). */
  sentTo(roomId: string, type?: string): SentEvent[]
  until(check: () => boolean, ms?: number): Promise<boolean>
  close(): Promise<void>
}

const JSON_HEADERS = { 'content-type': 'application/json' }

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** Answers and returns the status (recorded with the request). */
function reply(res: ServerResponse, status: number, body: unknown): number {
  send(res, status, body)
  return status
}

const stateKeyOf = (e: MatrixEvent) => `${e.type}\u0000${e.state_key}`

export async function startFakeHomeserver(options: FakeHomeserverOptions = {}): Promise<FakeHomeserver> {
  let pos = 0
  let counter = 0
  const tokens = new Set<string>([options.token ?? 'syt_fake_bot_token_0123456789'])
  const primaryToken = [...tokens][0]!
  const rooms = new Map<string, Room>()
  const accountData = new Map<string, Record<string, any>>()
  const media = new Map<string, Buffer>()
  const accountDataPos = new Map<string, number>()
  const filters = new Map<string, any>()
  const requests: RequestRecord[] = []
  const sent: SentEvent[] = []
  const txns = new Map<string, string>()
  const typing: FakeHomeserver['typing'] = []
  const joins: string[] = []
  const logins: Array<Record<string, any>> = []
  const waiters = new Set<() => void>()
  let failing = { count: 0, status: 500 }
  let softLoggedOut = false
  const limits = { send: { count: 0, retryAfterMs: 0 }, sync: { count: 0, retryAfterMs: 0 } }
  /** Answers 429 when `kind` is rate limited now; undefined otherwise. */
  const limited = (kind: 'send' | 'sync', res: ServerResponse): number | undefined => {
    const limit = limits[kind]
    if (limit.count <= 0) return undefined
    limit.count--
    res.setHeader('retry-after', String(Math.ceil(limit.retryAfterMs / 1000)))
    return reply(res, 429, { errcode: 'M_LIMIT_EXCEEDED', error: 'Too Many Requests', retry_after_ms: limit.retryAfterMs })
  }
  let closed = false
  const maxPollMs = options.maxPollMs ?? 5000

  const changed = () => {
    for (const wake of [...waiters]) wake()
  }
  const newId = (sigil: string) => `${sigil}${(++counter).toString(36)}x${Math.random().toString(36).slice(2, 8)}${sigil === '$' ? '' : `:${SERVER_NAME}`}`

  function append(roomId: string, event: Omit<MatrixEvent, 'event_id' | 'origin_server_ts' | 'room_id'> & { origin_server_ts?: number }): MatrixEvent {
    const room = rooms.get(roomId)
    if (!room) throw new Error(`no room ${roomId}`)
    const full: MatrixEvent = { origin_server_ts: Date.now(), ...event, event_id: newId('$'), room_id: roomId }
    room.events.push({ pos: ++pos, event: full })
    changed()
    return full
  }

  const member = (roomId: string, userId: string, membership: string, sender = userId, extra: Record<string, any> = {}) =>
    append(roomId, { type: 'm.room.member', state_key: userId, sender, content: { membership, ...extra } })

  /** The latest state events among events with pos ≤ `upTo`. */
  function stateAt(room: Room, upTo: number): MatrixEvent[] {
    const latest = new Map<string, MatrixEvent>()
    for (const s of room.events) if (s.pos <= upTo && s.event.state_key !== undefined) latest.set(stateKeyOf(s.event), s.event)
    return [...latest.values()]
  }

  function botMembership(room: Room, upTo = Infinity): { membership?: string; pos: number; event?: MatrixEvent } {
    let found: { membership?: string; pos: number; event?: MatrixEvent } = { pos: 0 }
    for (const s of room.events) if (s.pos <= upTo && s.event.type === 'm.room.member' && s.event.state_key === BOT_ID) found = { membership: s.event.content.membership, pos: s.pos, event: s.event }
    return found
  }

  function timelineLimit(filterParam: string | null): number {
    let filter: any
    if (filterParam?.trim().startsWith('{')) {
      try {
        filter = JSON.parse(filterParam)
      } catch {}
    } else if (filterParam) filter = filters.get(filterParam)
    const limit = filter?.room?.timeline?.limit
    return typeof limit === 'number' && limit >= 0 ? limit : 10
  }

  function members(room: Room) {
    const joined = stateAt(room, Infinity).filter((e) => e.type === 'm.room.member')
    return {
      joined: joined.filter((e) => e.content.membership === 'join').map((e) => e.state_key!),
      invited: joined.filter((e) => e.content.membership === 'invite').map((e) => e.state_key!),
    }
  }

  function syncBody(since: number | undefined, limit: number): { body: any; empty: boolean } {
    const join: Record<string, any> = {}
    const invite: Record<string, any> = {}
    const leave: Record<string, any> = {}
    for (const room of rooms.values()) {
      const mine = botMembership(room)
      if (mine.membership === 'join') {
        const fresh = since === undefined || mine.pos > since
        // A room joined since the last sync comes with its recent history, as real homeservers send it.
        let timeline = room.events.filter((s) => fresh || s.pos > (since ?? 0))
        let limited = false
        if (fresh && timeline.length > limit) {
          timeline = timeline.slice(timeline.length - limit)
          limited = true
        }
        if (!fresh && timeline.length === 0) continue
        const startPos = timeline[0] ? timeline[0].pos - 1 : pos
        const { joined, invited } = members(room)
        join[room.id] = {
          state: { events: fresh ? stateAt(room, startPos) : [] },
          timeline: { events: timeline.map((s) => s.event), limited, prev_batch: `p${startPos}` },
          ephemeral: { events: [] },
          account_data: { events: [] },
          summary: { 'm.joined_member_count': joined.length, 'm.invited_member_count': invited.length, 'm.heroes': joined.filter((u) => u !== BOT_ID).slice(0, 5) },
          unread_notifications: { highlight_count: 0, notification_count: 0 },
        }
      } else if (mine.membership === 'invite' && (since === undefined || mine.pos > since)) {
        const stripped = stateAt(room, Infinity)
          .filter((e) => ['m.room.create', 'm.room.name', 'm.room.join_rules', 'm.room.encryption', 'm.room.member'].includes(e.type))
          .filter((e) => e.type !== 'm.room.member' || e.state_key === BOT_ID || e.state_key === mine.event?.sender)
          .map((e) => ({ type: e.type, state_key: e.state_key, sender: e.sender, content: e.content }))
        invite[room.id] = { invite_state: { events: stripped } }
      } else if (mine.membership === 'leave' && since !== undefined && mine.pos > since) {
        leave[room.id] = { timeline: { events: [mine.event] }, state: { events: [] } }
      }
    }
    const accountEvents = [...accountData.entries()].filter(([type]) => since === undefined || (accountDataPos.get(type) ?? 0) > since).map(([type, content]) => ({ type, content }))
    const empty = Object.keys(join).length + Object.keys(invite).length + Object.keys(leave).length + accountEvents.length === 0
    return {
      empty,
      body: { next_batch: String(pos), rooms: { join, invite, leave }, account_data: { events: accountEvents }, presence: { events: [] }, to_device: { events: [] }, device_lists: { changed: [], left: [] }, device_one_time_keys_count: {} },
    }
  }

  async function handleSync(url: URL, res: ServerResponse): Promise<number> {
    if (failing.count > 0) {
      failing.count--
      return reply(res, failing.status, { errcode: 'M_UNKNOWN', error: 'Internal server error' })
    }
    const sinceText = url.searchParams.get('since')
    const since = sinceText === null ? undefined : Number(sinceText)
    const limit = timelineLimit(url.searchParams.get('filter'))
    const timeout = Math.min(Number(url.searchParams.get('timeout') ?? 0) || 0, maxPollMs)
    let result = syncBody(since, limit)
    if (since !== undefined && result.empty && timeout > 0 && !closed) {
      // The long-poll: held until something changes, the timeout passes or the server closes.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, timeout)
        function done() {
          clearTimeout(timer)
          waiters.delete(done)
          res.off('close', done)
          resolve()
        }
        waiters.add(done)
        res.on('close', done)
      })
      if (res.destroyed) return 0
      result = syncBody(since, limit)
    }
    return reply(res, 200, result.body)
  }

  function authorised(req: IncomingMessage, url: URL): { ok: true } | { ok: false; status: number; body: unknown } {
    const header = req.headers.authorization
    const token = header?.startsWith('Bearer ') ? header.slice(7) : url.searchParams.get('access_token')
    if (!token) return { ok: false, status: 401, body: { errcode: 'M_MISSING_TOKEN', error: 'Missing access token' } }
    if (!tokens.has(token)) return { ok: false, status: 401, body: { errcode: 'M_UNKNOWN_TOKEN', error: 'Invalid access token passed.', soft_logout: softLoggedOut } }
    return { ok: true }
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, body: any): Promise<number> {
    const method = req.method ?? 'GET'
    const path = url.pathname
    if (method === 'GET' && path === '/_matrix/client/versions') return reply(res, 200, { versions: ['r0.6.1', 'v1.1', 'v1.2', 'v1.3', 'v1.4', 'v1.5', 'v1.6', 'v1.7', 'v1.8', 'v1.9', 'v1.10', 'v1.11'], unstable_features: {} })
    const download = path.match(/^\/_matrix\/client\/v1\/media\/download\/([^/]+)\/([^/]+)$/)
    if (method === 'GET' && download) {
      const allowed = authorised(req, url)
      if (!allowed.ok) return reply(res, allowed.status, allowed.body)
      const data = media.get(`mxc://${decodeURIComponent(download[1]!)}/${decodeURIComponent(download[2]!)}`)
      if (!data) return reply(res, 404, { errcode: 'M_NOT_FOUND', error: 'Not found' })
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(data)
      return 200
    }
    const v3 = path.match(/^\/_matrix\/client\/v3(\/.*)$/)
    if (!v3) return reply(res, 404, { errcode: 'M_UNRECOGNIZED', error: 'Unrecognized request' })
    const sub = v3[1]!
    if (sub === '/login') {
      if (method === 'GET') return reply(res, 200, { flows: [{ type: 'm.login.password' }] })
      logins.push(body)
      const user = body?.identifier?.user ?? body?.user
      const matches = options.password !== undefined && body?.type === 'm.login.password' && body?.password === options.password && (user === BOT_ID || user === 'agent')
      if (!matches) return reply(res, 403, { errcode: 'M_FORBIDDEN', error: 'Invalid username or password' })
      const token = `syt_login_${logins.length}_${Math.random().toString(36).slice(2, 12)}`
      tokens.add(token)
      return reply(res, 200, { user_id: BOT_ID, access_token: token, device_id: body.device_id ?? `DEV${logins.length}`, home_server: SERVER_NAME })
    }
    const auth = authorised(req, url)
    if (!auth.ok) return reply(res, auth.status, auth.body)
    let m: RegExpMatchArray | null
    if (method === 'GET' && sub === '/account/whoami') return reply(res, 200, { user_id: BOT_ID, device_id: 'FAKEDEVICE', is_guest: false })
    if (method === 'GET' && sub === '/capabilities') return reply(res, 200, { capabilities: { 'm.change_password': { enabled: false }, 'm.room_versions': { default: '10', available: { '10': 'stable' } } } })
    if (method === 'GET' && sub.startsWith('/pushrules')) return reply(res, 200, { global: { override: [], content: [], room: [], sender: [], underride: [] } })
    if (method === 'POST' && (m = sub.match(/^\/user\/([^/]+)\/filter$/))) {
      const id = String(filters.size + 1)
      filters.set(id, body)
      return reply(res, 200, { filter_id: id })
    }
    if (method === 'GET' && (m = sub.match(/^\/user\/([^/]+)\/filter\/([^/]+)$/))) {
      const filter = filters.get(decodeURIComponent(m[2]!))
      if (!filter) return reply(res, 404, { errcode: 'M_NOT_FOUND', error: 'No such filter' })
      return reply(res, 200, filter)
    }
    if (method === 'GET' && sub === '/sync') return limited('sync', res) ?? handleSync(url, res)
    if ((m = sub.match(/^\/user\/([^/]+)\/account_data\/([^/]+)$/))) {
      const type = decodeURIComponent(m[2]!)
      if (method === 'PUT') {
        accountData.set(type, body ?? {})
        accountDataPos.set(type, ++pos)
        changed()
        return reply(res, 200, {})
      }
      const content = accountData.get(type)
      if (!content) return reply(res, 404, { errcode: 'M_NOT_FOUND', error: 'Account data not found' })
      return reply(res, 200, content)
    }
    if (method === 'POST' && (m = sub.match(/^\/join\/([^/]+)$/))) {
      const roomId = decodeURIComponent(m[1]!)
      const room = rooms.get(roomId)
      const mine = room && botMembership(room)
      if (!room || (mine?.membership !== 'invite' && mine?.membership !== 'join')) return reply(res, 403, { errcode: 'M_FORBIDDEN', error: 'You are not invited to this room.' })
      joins.push(roomId)
      if (mine.membership !== 'join') member(roomId, BOT_ID, 'join', BOT_ID, { displayname: BOT_NAME })
      return reply(res, 200, { room_id: roomId })
    }
    const roomPath = sub.match(/^\/rooms\/([^/]+)(\/.*)$/)
    if (roomPath) {
      const roomId = decodeURIComponent(roomPath[1]!)
      const rest = roomPath[2]!
      const room = rooms.get(roomId)
      if (!room || botMembership(room).membership !== 'join') return reply(res, 403, { errcode: 'M_FORBIDDEN', error: `User ${BOT_ID} not in room ${roomId}` })
      if (method === 'PUT' && (m = rest.match(/^\/send\/([^/]+)\/([^/]+)$/))) {
        const refused = limited('send', res)
        if (refused !== undefined) return refused
        const type = decodeURIComponent(m[1]!)
        const txnId = decodeURIComponent(m[2]!)
        const key = `${roomId}|${txnId}`
        let eventId = txns.get(key)
        if (!eventId) {
          const event = append(roomId, { type, sender: BOT_ID, content: body ?? {}, unsigned: { transaction_id: txnId } })
          eventId = event.event_id
          txns.set(key, eventId)
          sent.push({ roomId, type, txnId, content: body ?? {}, eventId })
        }
        return reply(res, 200, { event_id: eventId })
      }
      if (method === 'PUT' && (m = rest.match(/^\/typing\/([^/]+)$/))) {
        typing.push({ roomId, userId: decodeURIComponent(m[1]!), typing: Boolean(body?.typing), ...(body?.timeout !== undefined ? { timeout: body.timeout } : {}) })
        return reply(res, 200, {})
      }
      if (method === 'GET' && rest === '/members') return reply(res, 200, { chunk: stateAt(room, Infinity).filter((e) => e.type === 'm.room.member') })
      if (method === 'GET' && rest === '/joined_members') {
        const joined: Record<string, any> = {}
        for (const e of stateAt(room, Infinity)) if (e.type === 'm.room.member' && e.content.membership === 'join') joined[e.state_key!] = { display_name: e.content.displayname ?? null, avatar_url: null }
        return reply(res, 200, { joined })
      }
      if (method === 'GET' && (m = rest.match(/^\/state\/([^/]+)(?:\/([^/]*))?$/))) {
        const type = decodeURIComponent(m[1]!)
        const key = decodeURIComponent(m[2] ?? '')
        const event = stateAt(room, Infinity).find((e) => e.type === type && e.state_key === key)
        if (!event) return reply(res, 404, { errcode: 'M_NOT_FOUND', error: 'Event not found.' })
        return reply(res, 200, event.content)
      }
      if (method === 'POST' && (m = rest.match(/^\/(read_markers|receipt\/.*)$/))) return reply(res, 200, {})
    }
    return reply(res, 404, { errcode: 'M_UNRECOGNIZED', error: `Unrecognized request: ${method} ${path}` })
  }

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    // Media uploads (spoken replies): stored as sent, served by the download API.
    if (req.method === 'POST' && req.url?.startsWith('/_matrix/media/v3/upload')) {
      const allowed = authorised(req, new URL(req.url, 'http://127.0.0.1'))
      if (!allowed.ok) return void send(res, allowed.status, allowed.body)
      const uri = `mxc://${SERVER_NAME}/upload${media.size + 1}`
      media.set(uri, Buffer.concat(chunks))
      return void send(res, 200, { content_uri: uri })
    }
    let body: any
    try {
      body = raw ? JSON.parse(raw) : undefined
    } catch {
      body = raw
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    const record: RequestRecord = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body }
    requests.push(record)
    try {
      record.status = await route(req, res, url, body)
    } catch (error) {
      if (!res.headersSent) send(res, 500, { errcode: 'M_UNKNOWN', error: String(error) })
      record.status = 500
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  function createRoom(room: RoomOptions): string {
    const id = room.id ?? newId('!')
    rooms.set(id, { id, events: [] })
    const creator = room.botJoined === false ? (typeof room.members[0] === 'string' ? room.members[0] : room.members[0]?.id) ?? BOT_ID : BOT_ID
    append(id, { type: 'm.room.create', state_key: '', sender: creator, content: { creator, room_version: '10' } })
    if (room.botJoined !== false) member(id, BOT_ID, 'join', BOT_ID, { displayname: BOT_NAME })
    for (const m of room.members) {
      const userId = typeof m === 'string' ? m : m.id
      const name = typeof m === 'string' ? undefined : m.name
      member(id, userId, 'join', userId, name ? { displayname: name } : {})
    }
    append(id, { type: 'm.room.join_rules', state_key: '', sender: creator, content: { join_rule: 'invite' } })
    if (room.name) append(id, { type: 'm.room.name', state_key: '', sender: creator, content: { name: room.name } })
    if (room.encrypted) append(id, { type: 'm.room.encryption', state_key: '', sender: creator, content: { algorithm: 'm.megolm.v1.aes-sha2' } })
    return id
  }

  return {
    url: `http://127.0.0.1:${port}`,
    token: primaryToken,
    requests,
    sent,
    typing,
    joins,
    logins,
    accountData,
    media,
    createRoom,
    invite(inviter, invite = {}) {
      const id = createRoom({ members: [inviter, ...(invite.others ?? [])], botJoined: false, ...(invite.name ? { name: invite.name } : {}) })
      member(id, BOT_ID, 'invite', inviter, invite.isDirect ? { is_direct: true } : {})
      return id
    },
    message(roomId, sender, content, extra = {}) {
      const c = typeof content === 'string' ? { msgtype: 'm.text', body: content } : content
      return append(roomId, { type: extra.type ?? 'm.room.message', sender, content: c, ...(extra.ts !== undefined ? { origin_server_ts: extra.ts } : {}) }).event_id
    },
    setAccountData(type, content) {
      accountData.set(type, content)
      accountDataPos.set(type, ++pos)
      changed()
    },
    failSyncs(count, status = 500) {
      failing = { count, status }
    },
    revokeTokens() {
      tokens.clear()
      changed()
    },
    softLogout() {
      softLoggedOut = true
      tokens.clear()
      changed()
    },
    rateLimit(kind, count, retryAfterMs) {
      limits[kind] = { count, retryAfterMs }
    },
    syncs: () => requests.filter((r) => r.path === '/_matrix/client/v3/sync'),
    sentTo: (roomId, type = 'm.room.message') => sent.filter((s) => s.roomId === roomId && s.type === type),
    until: pollUntil,
    close() {
      closed = true
      changed()
      return new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
    },
  }
}
