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
  AgentError, ConfigError, DeliveryDeferred, errorMessage, GATEWAY_SERVICE, redactSecrets, startOnce,
  type AdapterContext, type AudioCapableAdapter, type GatewayAdapter, type GatewayInbound, type GatewayService, type Logger, type Settings,
} from 'agent/sdk'
import type { MatrixEvent, Room } from 'matrix-js-sdk'
import { readGap } from './catch-up.ts'
import { closableFetch, closeClient, createSessionClient, describeFailure, firstSync, matrixFailure, routeSdkLogs, signIn, type Session } from './client.ts'
import { messageContents } from './format.ts'
import { auth, createInbound, type Reader } from './inbound.ts'
import { bridgeLike, inviteOf, markDirect } from './rooms.ts'
import { sendAudio, sendOnce, sendParts, type Sender } from './send.ts'
import { credentialsFrom, homeserverUrl, matrixEnabled, PLATFORM, type MatrixConfig } from './settings.ts'

const TYPING_TIMEOUT_MS = 30_000
/** Events read per room when catching up (the gateway's backlog bound then applies). */
const GAP_LIMIT = 50

interface Running extends Reader, Sender {
  host: string
  /** Set once the first sync is processed: what that sync delivered is history. */
  ready: boolean
  /** Set once the catch-up is handed over: live events are answered (before, they wait in `buffered`). */
  live: boolean
  buffered: Array<{ event: MatrixEvent; room: Room }>
  lost: boolean
  /** Rejects every send still waiting when the client is closed (the SDK's queue would keep it forever). */
  abandon(error: Error): void
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
  const { inboundOf, joined, replyTo } = createInbound(extra, commandNames)
  const typingRooms = new Set<string>()
  const joining = new Set<string>()
  /** Set when the session was lost, until a start succeeds: sends are deferred to the gateway's outbox. */
  let reconnecting = false
  const secrets = () => [...settings.secretValues(), running?.session.accessToken, lastLogin?.accessToken]
  const log = () => redacting(running?.log ?? fallbackLog, secrets)

  function lose(state: Running, error: unknown): void {
    if (state.lost || running !== state) return
    state.lost = true
    reconnecting = true
    state.log.error(`the Matrix homeserver no longer accepts the session (${describeFailure(error)}); reconnecting`)
    state.gateway.connectionLost(PLATFORM, matrixFailure(error, { host: state.host, credential: 'the access token' }))
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
      joined(room.roomId)
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
      await firstSync(sdk, client, { signal: ctx.signal, host, credential: credentials.kind === 'token' ? 'MATRIX_ACCESS_TOKEN' : 'the login token', timeoutMs: extra.start_timeout_ms })
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
      const contents = messageContents(text, { max: extra.max_message_length, ...(threadId ? { thread: { root: threadId, replyTo: replyTo(threadId) } } : {}) })
      if (contents.length === 0) return
      const state = running
      // Between connections inside the gateway: the outbox sends it once the adapter is back.
      if (!state && (reconnecting || starting.busy)) throw new DeliveryDeferred('the Matrix adapter is reconnecting')
      if (!state) return sendOnce(settings, log, chatId, contents)
      await sendParts(state, chatId, contents, typeof options?.idempotencyKey === 'string' && options.idempotencyKey ? options.idempotencyKey : undefined)
      if (typingRooms.delete(chatId)) state.client.sendTyping(chatId, false, 0).catch(() => undefined)
      state.log.debug(`sent ${contents.length} Matrix message(s) to ${chatId}${threadId ? ` (thread ${threadId})` : ''}`)
    },
    async sendAudio(chatId, audio, options) {
      const state = running
      if (!state) throw new AgentError('E_UNAVAILABLE', 'Matrix audio is sent by the running gateway')
      const threadId = typeof options?.threadId === 'string' && options.threadId ? options.threadId : undefined
      await sendAudio(state, chatId, audio, threadId, replyTo)
    },
  }
}
