// From a timeline event to the gateway's message: the bot's own events, repeats and history (stamped
// before the start, or before the bot joined the room) are never answered; an encrypted room is
// logged and its authorised sender told once that it cannot be read; the content is read by
// events.ts; bridge puppets must be explicitly allowed; a voice message is downloaded from the
// homeserver's media API and transcribed only for a sender the gateway would answer. What is
// remembered here (events seen, the last message of each thread, rooms joined) outlives a connection.

import { GATEWAY_AUTH_SERVICE, MAX_AUDIO_BYTES, transcribeAudio, VOICE_PROMPT_MARK, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type Services } from 'agent/sdk'
import type { MatrixClient, MatrixEvent, Room } from 'matrix-js-sdk'
import { describeFailure, type closableFetch, type Sdk, type Session } from './client.ts'
import { readMessage, type InboundContent, type MatrixAudio } from './events.ts'
import { bridgeLike, isDirectRoom, sameUser } from './rooms.ts'
import { PLATFORM, type MatrixExtra } from './settings.ts'

/**
 * Events stamped more than this before the start (or before the bot joined their room) are history.
 * Wide enough for modest clock skew between the host and the homeserver: a narrow grace on a host
 * whose clock runs ahead would drop every live message.
 */
const HISTORY_GRACE_MS = 60_000
const REMEMBERED = 1000
const ENCRYPTED_NOTICE = "I can't read end-to-end encrypted messages: encrypted rooms are not supported. Please message me in a room without encryption."

/** The running connection, as far as reading its events goes. */
export interface Reader {
  sdk: Sdk
  client: MatrixClient
  fetch: ReturnType<typeof closableFetch>
  session: Session
  gateway: GatewayService
  services: Services
  log: Logger
  startedAt: number
}

export const auth = (state: { services: Services }) => state.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)

/** A bounded insertion-ordered set/map (oldest entries go first). */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key)
  map.set(key, value)
  while (map.size > REMEMBERED) map.delete(map.keys().next().value as K)
}

/** The media of an m.audio, downloaded from the homeserver's authenticated media API. */
function audioOf(state: Reader, audio: MatrixAudio) {
  return {
    filename: audio.filename,
    ...(audio.mimeType ? { mimeType: audio.mimeType } : {}),
    ...(audio.size !== undefined ? { size: audio.size } : {}),
    async fetch(signal?: AbortSignal): Promise<Uint8Array> {
      const [server, mediaId] = audio.mxc.slice('mxc://'.length).split('/')
      if (!server || !mediaId) throw new Error('not an mxc:// URL')
      const url = `${state.client.getHomeserverUrl().replace(/\/+$/, '')}/_matrix/client/v1/media/download/${encodeURIComponent(server)}/${encodeURIComponent(mediaId)}`
      const response = await state.fetch.fetch(url, { headers: { authorization: `Bearer ${state.session.accessToken}` }, ...(signal ? { signal } : {}) })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      const data = new Uint8Array(await response.arrayBuffer())
      if (data.byteLength > MAX_AUDIO_BYTES) throw new Error('larger than 25 MB')
      return data
    },
  }
}

/** The event reader of one adapter. */
export function createInbound(extra: Readonly<MatrixExtra>, commandNames: () => ReadonlySet<string>) {
  const seen = new Map<string, true>()
  const threads = new Map<string, string>()
  const noticedEncrypted = new Map<string, true>()
  const joinedAt = new Map<string, number>()

  async function onEncrypted(state: Reader, room: Room, sender: string): Promise<void> {
    if (noticedEncrypted.has(room.roomId)) return
    remember(noticedEncrypted, room.roomId, true)
    state.log.warn(`room ${room.roomId} is end-to-end encrypted: encrypted rooms are not supported, its messages are not read`)
    const source = { platform: PLATFORM, userId: sender, chatId: room.roomId, chatType: isDirectRoom(state.client, room) ? ('dm' as const) : ('group' as const) }
    if (!(await auth(state)?.authorize(source))?.allowed) return
    // Sent unencrypted on purpose (the SDK refuses to without crypto): the notice itself says nothing private.
    const content = { msgtype: 'm.notice', body: ENCRYPTED_NOTICE, 'm.mentions': {} }
    const path = `/rooms/${encodeURIComponent(room.roomId)}/send/m.room.message/${encodeURIComponent(state.client.makeTxnId())}`
    await state.client.http.authedRequest(state.sdk.Method.Put, path, undefined, content).catch((error: unknown) => state.log.warn(`could not tell ${room.roomId} that encryption is not supported: ${describeFailure(error)}`))
  }

  /**
   * The message a timeline event is for the gateway, or undefined when it is not one to answer.
   * `backlog`: read by the catch-up (older than the start on purpose; the backlog bound applies).
   */
  async function inboundOf(state: Reader, event: MatrixEvent, room: Room, backlog = false): Promise<GatewayInbound | undefined> {
    const me = state.session.userId
    const sender = event.getSender()
    const id = event.getId()
    // Local echoes of our own sends have a status; our own events (any device) are never answered.
    if (event.status !== null || !sender || !id || sameUser(sender, me)) return undefined
    if (seen.has(id)) return undefined
    remember(seen, id, true)
    // A room joined now brings its recent history along as live events.
    const since = joinedAt.get(room.roomId) ?? state.startedAt
    if (!backlog && event.getTs() < since - HISTORY_GRACE_MS) return void state.log.debug(`ignored Matrix event ${id}: sent before the adapter started or joined ${room.roomId}`)
    const type = event.getType()
    if (type === 'm.room.encrypted') return void (await onEncrypted(state, room, sender))
    if (type !== 'm.room.message' || event.isRedacted()) return undefined

    const content = event.getContent() as InboundContent
    const direct = isDirectRoom(state.client, room)
    const replyTo = content['m.relates_to']?.['m.in_reply_to']?.event_id
    const repliesToMe = typeof replyTo === 'string' && sameUser(room.findEventById(replyTo)?.getSender(), me)
    const read = readMessage(content, {
      me,
      displayName: room.getMember(me)?.rawDisplayName,
      direct,
      requireMention: extra.require_mention && !extra.free_response_rooms.includes(room.roomId),
      commands: commandNames(),
      repliesToMe,
    })
    if (!read.ok) {
      if (read.dropped) state.gateway.dropped(PLATFORM, { reason: read.reason, chatId: room.roomId, messageId: id, userId: sender })
      else state.log.debug(`ignored Matrix event ${id} in ${room.roomId}: ${read.reason}`)
      return undefined
    }
    const member = room.getMember(sender)
    const source: GatewayInbound['source'] = {
      platform: PLATFORM,
      userId: sender,
      ...(member?.name && member.name !== sender ? { userName: member.name } : {}),
      chatId: room.roomId,
      chatType: direct ? 'dm' : 'group',
      ...(read.threadId ? { threadId: read.threadId } : {}),
    }
    // Bridge puppets are answered only when explicitly allowed: never offered a pairing code.
    if (bridgeLike(sender) && !(await auth(state)?.authorize(source))?.allowed) return void state.log.debug(`ignored Matrix event ${id}: bridge-like sender ${sender} is not allowed`)
    if (read.threadId) remember(threads, read.threadId, id)
    // A voice message is transcribed (sdk/voice.ts) only for a sender the gateway would answer.
    const text = read.audio ? ((await auth(state)?.authorize(source))?.allowed ? await transcribeAudio(state.services, audioOf(state, read.audio), state.log) : `${VOICE_PROMPT_MARK}]`) : read.text
    state.log.debug(`Matrix message ${id} from ${sender} in ${direct ? 'DM' : 'room'} ${room.roomId}${read.threadId ? ` (thread ${read.threadId})` : ''}: ${text.length} characters`)
    return { source, text, messageId: id, receivedAt: event.getTs() }
  }

  return {
    inboundOf,
    /** Called as the bot joins a room: the history the room brings along is not answered. */
    joined: (roomId: string) => remember(joinedAt, roomId, Date.now()),
    /** What an answer in a thread replies to (the fallback for clients without threads): the last message read there. */
    replyTo: (threadId: string) => threads.get(threadId) ?? threadId,
  }
}
