// The `matrix` gateway adapter: signs in, runs the SDK's sync loop (a small initial sync; events from
// before the first sync finished, or older than the start, are never answered as live), catches up
// from the saved sync token (the resume point: what arrived while it was away, reconnecting, logged
// out or stopped, answered within the backlog bound), hands live room messages to the gateway (DMs
// always, group rooms when the bot is addressed), accepts invites from users the gateway would
// answer, shows typing, and sends answers as m.text with markdown rendered to HTML, in parts, in the
// thread they came from. A send that cannot go out now (logged out, reconnecting, 429, 5xx, network)
// is deferred to the gateway's outbox; its idempotency key is the transaction id, so a retry is
// never shown twice. Encrypted rooms are not supported: the first encrypted event of a room is
// logged, and an authorised sender is told once in a plain notice.

import {
  AgentError, ConfigError, DeliveryDeferred, errorMessage, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, MAX_AUDIO_BYTES, redactSecrets, startOnce, transcribeAudio, VOICE_PROMPT_MARK,
  type AdapterContext, type AudioCapableAdapter, type GatewayAdapter, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type Services, type Settings,
} from 'agent/sdk'
import type { MatrixClient, MatrixEvent, Room } from 'matrix-js-sdk'
import { readGap } from './catch-up.ts'
import { closableFetch, closeClient, createSessionClient, describeFailure, matrixFailure, routeSdkLogs, signIn, type Sdk, type Session } from './client.ts'
import { readMessage, type InboundContent, type MatrixAudio } from './events.ts'
import { messageContents } from './format.ts'
import { bridgeLike, inviteOf, isDirectRoom, markDirect, sameUser } from './rooms.ts'
import { credentialsFrom, homeserverUrl, matrixEnabled, PLATFORM, type MatrixConfig } from './settings.ts'

/**
 * Events stamped more than this before the start (or before the bot joined their room) are history.
 * Wide enough for modest clock skew between the host and the homeserver: a narrow grace on a host
 * whose clock runs ahead would drop every live message.
 */
const HISTORY_GRACE_MS = 60_000
const TYPING_TIMEOUT_MS = 30_000
const REMEMBERED = 1000
/** Events read per room when catching up (the gateway's backlog bound then applies). */
const GAP_LIMIT = 50
const ENCRYPTED_NOTICE = "I can't read end-to-end encrypted messages: encrypted rooms are not supported. Please message me in a room without encryption."

interface Running {
  sdk: Sdk
  client: MatrixClient
  fetch: ReturnType<typeof closableFetch>
  session: Session
  host: string
  gateway: GatewayService
  services: Services
  log: Logger
  startedAt: number
  /** Set once the first sync is processed: what that sync delivered is history. */
  ready: boolean
  /** Set once the catch-up is handed over: live events are answered (before, they wait in `buffered`). */
  live: boolean
  buffered: Array<{ event: MatrixEvent; room: Room }>
  lost: boolean
  /** Rejects every send still waiting when the client is closed (the SDK's queue would keep it forever). */
  abandon(error: Error): void
  abandoned: Promise<never>
}

/** A bounded insertion-ordered set/map (oldest entries go first). */
function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key)
  map.set(key, value)
  while (map.size > REMEMBERED) map.delete(map.keys().next().value as K)
}

function redacting(log: Logger, secrets: () => Array<string | undefined>): Logger {
  const clean = (message: string) => redactSecrets(message, secrets())
  return {
    debug: (m) => log.debug(clean(m)),
    info: (m) => log.info(clean(m)),
    warn: (m) => log.warn(clean(m)),
    error: (m) => log.error(clean(m)),
  }
}

export function createMatrixAdapter(config: Readonly<MatrixConfig>, settings: Settings, fallbackLog: Logger, commandNames: () => ReadonlySet<string>): GatewayAdapter & AudioCapableAdapter & { stop(): Promise<void> } {
  const extra = config.extra
  let running: Running | undefined
  const starting = startOnce(start)
  /** The last login of password mode, kept in memory only: a restart reuses it instead of logging in again. */
  let lastLogin: Session | undefined
  const seen = new Map<string, true>()
  const threads = new Map<string, string>()
  const typingRooms = new Set<string>()
  const noticedEncrypted = new Map<string, true>()
  const joining = new Set<string>()
  const joinedAt = new Map<string, number>()
  /** Set when the session was lost, until a start succeeds: sends are deferred to the gateway's outbox. */
  let reconnecting = false
  const secrets = () => [...settings.secretValues(), running?.session.accessToken, lastLogin?.accessToken]
  const log = () => redacting(running?.log ?? fallbackLog, secrets)

  const auth = (state: Running) => state.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)

  function lose(state: Running, error: unknown): void {
    if (state.lost || running !== state) return
    state.lost = true
    reconnecting = true
    state.log.error(`the Matrix homeserver no longer accepts the session (${describeFailure(error)}); reconnecting`)
    state.gateway.connectionLost(PLATFORM, matrixFailure(error, { host: state.host, credential: 'the access token' }))
  }

  async function onEncrypted(state: Running, room: Room, sender: string): Promise<void> {
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
  async function inboundOf(state: Running, event: MatrixEvent, room: Room, backlog = false): Promise<GatewayInbound | undefined> {
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

  /** The media of an m.audio, downloaded from the homeserver's authenticated media API. */
  function audioOf(state: Running, audio: MatrixAudio) {
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

  async function onTimeline(state: Running, event: MatrixEvent, room: Room): Promise<void> {
    const inbound = await inboundOf(state, event, room)
    if (!inbound) return
    const result = await state.gateway.dispatch(inbound)
    state.log.debug(`Matrix message ${inbound.messageId}: ${result.status}`)
  }

  /**
   * What arrived since the saved sync token, handed to the gateway (which bounds it); then the
   * events that came while catching up. A token the homeserver no longer knows is forgotten.
   */
  async function catchUp(state: Running): Promise<void> {
    const resume = state.gateway.resumePoint(PLATFORM)
    const saved = await resume.get()
    if (saved) {
      try {
        const gap = await readGap(state.sdk, state.client, saved, GAP_LIMIT)
        for (const roomId of gap.limited) state.gateway.dropped(PLATFORM, { reason: `more than ${GAP_LIMIT} events arrived while the adapter was away: the older ones are not read`, chatId: roomId })
        const messages: GatewayInbound[] = []
        for (const raw of gap.events) {
          const room = state.client.getRoom(raw.room_id)
          const inbound = room ? await inboundOf(state, new state.sdk.MatrixEvent(raw as never), room, true) : undefined
          if (inbound) messages.push(inbound)
        }
        const result = await state.gateway.catchUp(PLATFORM, messages)
        if (gap.events.length > 0) state.log.info(`caught up since the last sync: ${gap.events.length} event(s), ${result.dispatched} answered, ${result.summarised} summarised, ${result.duplicates} already seen`)
      } catch (error) {
        state.log.warn(`could not read what arrived since the last sync (${describeFailure(error)}); continuing from now`)
        const status = (error as { httpStatus?: number }).httpStatus
        if (status === 400 || status === 404) await resume.clear()
      }
    }
    state.live = true
    for (const { event, room } of state.buffered.splice(0)) await onTimeline(state, event, room).catch((error) => state.log.error(`Matrix event ${event.getId()} failed: ${errorMessage(error)}`))
    saveSyncToken(state)
  }

  /** The token of the last sync processed: every event before it was handed to the gateway. */
  function saveSyncToken(state: Running, token = state.client.store.getSyncToken() ?? undefined): void {
    if (!state.live || !token || running !== state) return
    // Saved in the order asked (one commit queue): the last token asked is the one kept.
    state.gateway
      .resumePoint(PLATFORM)
      .set(token)
      .catch((error) => state.log.warn(`could not save the sync token: ${errorMessage(error)}`))
  }

  async function onInvite(state: Running, room: Room): Promise<void> {
    const me = state.session.userId
    if (joining.has(room.roomId)) return
    const { inviter, direct } = inviteOf(room, me)
    if (!inviter) return
    if (!extra.auto_join) return state.log.info(`ignored an invite to ${room.roomId} from ${inviter}: auto_join is off`)
    const decision = await auth(state)?.authorize({ platform: PLATFORM, userId: inviter, chatId: room.roomId, chatType: direct ? 'dm' : 'group' })
    // A direct invite from someone the gateway would offer a pairing code is accepted: that is how they get one.
    const accept = decision?.allowed || (direct && decision?.allowed === false && decision.action === 'pair' && !bridgeLike(inviter))
    if (!accept) return state.log.info(`ignored an invite to ${room.roomId} from ${inviter}: ${decision?.reason ?? 'no authorisation service'}`)
    joining.add(room.roomId)
    try {
      remember(joinedAt, room.roomId, Date.now())
      await state.client.joinRoom(room.roomId)
      if (direct) await markDirect(state.client, room.roomId, inviter)
      state.log.info(`joined ${room.roomId} (invited by ${inviter}${direct ? ', direct chat' : ''})`)
    } catch (error) {
      state.log.warn(`could not join ${room.roomId} (invited by ${inviter}): ${describeFailure(error)}`)
    } finally {
      joining.delete(room.roomId)
    }
  }

  function listen(state: Running): void {
    const { client, sdk } = state
    const fail = (what: string) => (error: unknown) => state.log.error(`${what} failed: ${errorMessage(error)}`)
    client.on(sdk.RoomEvent.Timeline, (event, room, toStartOfTimeline, removed, data) => {
      if (!state.ready || !room || toStartOfTimeline || removed || !data?.liveEvent) return
      if (!state.live) return void state.buffered.push({ event, room })
      onTimeline(state, event, room).catch(fail(`Matrix event ${event.getId()}`))
    })
    client.on(sdk.RoomEvent.MyMembership, (room, membership) => {
      if (state.ready && membership === 'invite') onInvite(state, room).catch(fail(`the invite to ${room.roomId}`))
    })
    client.on(sdk.HttpApiEvent.SessionLoggedOut, (error) => lose(state, error))
    client.on(sdk.ClientEvent.Sync, (now, before, data) => {
      // Emitted after the sync's events were handed over: its token is the next resume point.
      if (now === 'SYNCING' || now === 'PREPARED') saveSyncToken(state, data?.nextSyncToken)
      if (!state.ready || now === before) return
      const error = data?.error
      if ((now === 'ERROR' || now === 'RECONNECTING') && (error as { errcode?: string } | undefined)?.errcode === 'M_UNKNOWN_TOKEN') return lose(state, error)
      if (now === 'RECONNECTING') state.log.warn(`Matrix sync interrupted (${describeFailure(error)}); the SDK retries`)
      else if (now === 'ERROR') state.log.warn(`Matrix sync failing (${error ? describeFailure(error) : 'homeserver unreachable'}); the SDK keeps retrying`)
      else if (now === 'CATCHUP') state.log.info('Matrix homeserver reachable again; catching up')
      else if (now === 'SYNCING' && before !== 'PREPARED') state.log.info('Matrix sync recovered')
    })
  }

  /** Resolves on the first completed sync; a refused token is fatal, silence past the bound is retryable. */
  function firstSync(state: Running, signal: AbortSignal, credential: string): Promise<void> {
    const { client, sdk } = state
    return new Promise((resolve, reject) => {
      let lastError: unknown
      const finish = (settle: () => void) => {
        clearTimeout(timer)
        client.off(sdk.ClientEvent.Sync, onSync)
        signal.removeEventListener('abort', onAbort)
        settle()
      }
      const onSync = (now: string, _before: string | null, data?: { error?: unknown }) => {
        if (now === 'PREPARED' || now === 'SYNCING') return finish(resolve)
        if (data?.error) lastError = data.error
        if ((data?.error as { errcode?: string } | undefined)?.errcode === 'M_UNKNOWN_TOKEN') finish(() => reject(matrixFailure(data!.error, { host: state.host, credential: credential })))
      }
      const onAbort = () => finish(() => reject(new AgentError('E_INTERRUPTED', 'the Matrix adapter was stopped while connecting')))
      const timer = setTimeout(() => finish(() => reject(new AgentError('E_UNAVAILABLE', `the first Matrix sync did not finish within ${Math.round(extra.start_timeout_ms / 1000)} s${lastError ? ` (${describeFailure(lastError)})` : ''}`))), extra.start_timeout_ms)
      client.on(sdk.ClientEvent.Sync, onSync)
      signal.addEventListener('abort', onAbort, { once: true })
      if (signal.aborted) onAbort()
    })
  }

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const baseUrl = homeserverUrl(ctx.settings)
    const credentials = credentialsFrom(ctx.settings)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Matrix adapter needs the gateway service')
    const host = new URL(baseUrl).host
    const adapterLog = redacting(ctx.log, secrets)
    const sdk = await import('matrix-js-sdk')
    await routeSdkLogs((line) => adapterLog.debug(`sdk: ${line}`))
    const fetch = closableFetch()
    let session: Session
    try {
      session = await signIn(sdk, { baseUrl, credentials, home: ctx.settings.home, fetch: fetch.fetch, ...(lastLogin ? { cached: lastLogin } : {}) })
    } catch (error) {
      fetch.close()
      throw error
    }
    if (credentials.kind === 'password') lastLogin = session
    const client = createSessionClient(sdk, baseUrl, session, fetch.fetch)
    let abandon!: (error: Error) => void
    const abandoned = new Promise<never>((_, reject) => (abandon = reject))
    abandoned.catch(() => undefined)
    const state: Running = { sdk, client, fetch, session, host, gateway, services: ctx.services, log: adapterLog, startedAt: Date.now(), ready: false, live: false, buffered: [], lost: false, abandon, abandoned }
    listen(state)
    try {
      // A small initial sync: its events are history (ignored), later ones are live.
      await client.startClient({ initialSyncLimit: 1, disablePresence: true, lazyLoadMembers: false, pollTimeout: extra.sync_timeout_ms, threadSupport: false })
      await firstSync(state, ctx.signal, credentials.kind === 'token' ? 'MATRIX_ACCESS_TOKEN' : 'the login token')
    } catch (error) {
      await closeClient(client, fetch)
      // A login token refused this early: the next attempt logs in afresh instead of failing for good.
      if (credentials.kind === 'password' && ConfigError.isInstance(error)) {
        lastLogin = undefined
        throw new AgentError('E_UNAVAILABLE', error.message, { cause: error })
      }
      throw error
    }
    state.ready = true
    running = state
    reconnecting = false
    await catchUp(state)
    const rooms = client.getRooms()
    const joined = rooms.filter((r) => r.getMyMembership() === 'join').length
    adapterLog.info(`connected to ${host} as ${session.userId} (${joined} room${joined === 1 ? '' : 's'})`)
    // Invites that waited while the agent was offline.
    for (const room of rooms) if (room.getMyMembership() === 'invite') onInvite(state, room).catch((error) => adapterLog.error(`the invite to ${room.roomId} failed: ${errorMessage(error)}`))
  }

  /** Delivery from a process where the adapter is not running (cron in a CLI process): one client, no sync. */
  async function sendOnce(roomId: string, contents: ReturnType<typeof messageContents>): Promise<void> {
    const baseUrl = homeserverUrl(settings)
    const credentials = credentialsFrom(settings)
    if (credentials.kind !== 'token') throw new ConfigError('Matrix delivery outside a running gateway needs MATRIX_ACCESS_TOKEN (a password login would create a device per message)')
    const sdk = await import('matrix-js-sdk')
    await routeSdkLogs((line) => log().debug(`sdk: ${line}`))
    const fetch = closableFetch()
    try {
      const session = await signIn(sdk, { baseUrl, credentials, home: settings.home, fetch: fetch.fetch })
      const client = createSessionClient(sdk, baseUrl, session, fetch.fetch)
      const encrypted = await client.getStateEvent(roomId, 'm.room.encryption', '').then(
        () => true,
        (error: { errcode?: string }) => {
          if (error?.errcode === 'M_NOT_FOUND') return false
          throw new AgentError('E_DELIVERY', `cannot send to Matrix room ${roomId}: ${describeFailure(error)}`, { cause: error })
        },
      )
      if (encrypted) throw new AgentError('E_DELIVERY', `Matrix room ${roomId} is end-to-end encrypted; encrypted rooms are not supported`)
      for (const content of contents) await client.sendEvent(roomId, sdk.EventType.RoomMessage, content as never).catch(deliveryFailure(roomId))
    } finally {
      fetch.close()
    }
  }

  /** A 401 (logged out), 429, 5xx or network failure may pass: deferred to the outbox; anything else is final. */
  const deliveryFailure = (roomId: string) => (error: unknown): never => {
    if (AgentError.isInstance(error)) throw error
    const failure = error as { httpStatus?: number; data?: { retry_after_ms?: unknown } }
    const status = typeof failure?.httpStatus === 'number' ? failure.httpStatus : undefined
    const reason = `cannot send to Matrix room ${roomId}: ${describeFailure(error)}`
    if (status === undefined || status === 401 || status === 429 || status >= 500) {
      const retryAfter = typeof failure.data?.retry_after_ms === 'number' ? failure.data.retry_after_ms : undefined
      throw new DeliveryDeferred(reason, { cause: error, ...(status === 429 ? { code: 'E_RATE_LIMITED' as const } : {}), ...(retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}) })
    }
    throw new AgentError('E_DELIVERY', reason, { cause: error })
  }

  return {
    name: PLATFORM,
    description: 'Matrix rooms and direct chats (client-server API, matrix-js-sdk sync); markdown replies as HTML',
    enabled: matrixEnabled,
    maxMessageLength: extra.max_message_length,
    splitsLongMessages: true,
    async start(ctx) {
      // One client at a time, even if start() is called again while it connects.
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      const state = running
      running = undefined
      if (!state) return
      state.ready = false
      state.abandon(new DeliveryDeferred('the Matrix connection closed before the homeserver confirmed the message'))
      await closeClient(state.client, state.fetch)
      state.log.info('disconnected from the Matrix homeserver')
    },
    async typing(chatId) {
      const state = running
      if (!state) return
      typingRooms.add(chatId)
      await state.client.sendTyping(chatId, true, TYPING_TIMEOUT_MS).catch((error: unknown) => state.log.debug(`typing in ${chatId} failed: ${describeFailure(error)}`))
    },
    async send(chatId, text, options) {
      const threadId = typeof options?.threadId === 'string' && options.threadId ? options.threadId : undefined
      const contents = messageContents(text, { max: extra.max_message_length, ...(threadId ? { thread: { root: threadId, replyTo: threads.get(threadId) ?? threadId } } : {}) })
      if (contents.length === 0) return
      const state = running
      // Between connections inside the gateway: the outbox sends it once the adapter is back.
      if (!state && (reconnecting || starting.busy)) throw new DeliveryDeferred('the Matrix adapter is reconnecting')
      if (!state) return sendOnce(chatId, contents)
      if (state.client.getRoom(chatId)?.hasEncryptionStateEvent()) throw new AgentError('E_DELIVERY', `Matrix room ${chatId} is end-to-end encrypted; encrypted rooms are not supported`)
      // The outbox's key as transaction id: a retry of a send the homeserver already took is not shown twice.
      const key = typeof options?.idempotencyKey === 'string' && options.idempotencyKey ? options.idempotencyKey : undefined
      for (const [i, content] of contents.entries()) {
        const sending = state.client.sendEvent(chatId, state.sdk.EventType.RoomMessage, content as never, key ? `agent.${key}.${i}` : undefined)
        await Promise.race([sending, state.abandoned]).catch(deliveryFailure(chatId))
      }
      if (typingRooms.delete(chatId)) state.client.sendTyping(chatId, false, 0).catch(() => undefined)
      state.log.debug(`sent ${contents.length} Matrix message(s) to ${chatId}${threadId ? ` (thread ${threadId})` : ''}`)
    },
    /** A spoken reply (/voice), before the text: uploaded to the media repository, sent as m.audio. */
    async sendAudio(chatId, audio, options) {
      const state = running
      if (!state) throw new AgentError('E_UNAVAILABLE', 'Matrix audio is sent by the running gateway')
      if (state.client.getRoom(chatId)?.hasEncryptionStateEvent()) throw new AgentError('E_DELIVERY', `Matrix room ${chatId} is end-to-end encrypted; encrypted rooms are not supported`)
      const upload = await state.fetch.fetch(`${state.client.getHomeserverUrl().replace(/\/+$/, '')}/_matrix/media/v3/upload?filename=${encodeURIComponent(audio.filename)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${state.session.accessToken}`, 'content-type': audio.mimeType },
        body: Buffer.from(audio.data),
      })
      const uploaded = (await upload.json().catch(() => ({}))) as { content_uri?: unknown }
      if (!upload.ok || typeof uploaded.content_uri !== 'string') throw new AgentError('E_DELIVERY', `the Matrix homeserver refused the audio upload (HTTP ${upload.status})`)
      const threadId = typeof options?.threadId === 'string' && options.threadId ? options.threadId : undefined
      const content = {
        msgtype: 'm.audio',
        body: audio.filename,
        url: uploaded.content_uri,
        info: { mimetype: audio.mimeType, size: audio.data.byteLength },
        ...(audio.voice ? { 'org.matrix.msc3245.voice': {} } : {}),
        ...(threadId ? { 'm.relates_to': { rel_type: 'm.thread', event_id: threadId, is_falling_back: true, 'm.in_reply_to': { event_id: threads.get(threadId) ?? threadId } } } : {}),
      }
      await Promise.race([state.client.sendEvent(chatId, state.sdk.EventType.RoomMessage, content as never), state.abandoned]).catch(deliveryFailure(chatId))
    },
  }
}
