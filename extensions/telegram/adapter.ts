// The `telegram` gateway adapter on grammy's Bot API client (imported when the adapter starts): the bot
// long-polls getUpdates (poller.ts), hands the messages meant for it to the gateway (text fragments of
// one sender batched into one turn, voice notes transcribed by the stt service), answers in MarkdownV2 (plain
// text when Telegram refuses the markup: outbound.ts) in 4,096-character parts, in the forum topic the
// message came from, shows typing while the agent works, and keeps Telegram's command menu equal to
// the registry's gateway commands. A token lock keeps two gateways of one agent home off one bot.

import {
  AgentError, ConfigError, errorMessage, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, MAX_AUDIO_BYTES, redactSecrets, resolveSlash, startOnce, transcribeAudio, VOICE_PROMPT_MARK,
  type AdapterContext, type AudioCapableAdapter, type CommandDefinition, type GatewayAdapter, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type ResumePoint, type Settings,
} from 'agent/sdk'
import type { Api } from 'grammy'
import type { Message, Update } from 'grammy/types'
import { FragmentBatcher } from './batcher.ts'
import { MAX_MESSAGE_LENGTH, telegramParts } from './format.ts'
import { parseMessage, type AudioFile, type Bot } from './inbound.ts'
import { lockToken, type TokenLock } from './lock.ts'
import { commandMenu, sameMenu, type Menu } from './menu.ts'
import { createApi, downloadFile, loadGrammy, PartSender, reasonOf, type Grammy } from './outbound.ts'
import { CONFLICT, grammySignal, poll, startError } from './poller.ts'
import { allowlistWarnings, apiBase, behaviour, botToken, isChatId, PLATFORM, telegramEnabled, type Behaviour, type TelegramConfig } from './settings.ts'

/** Telegram shows "typing…" for 5 s; renewed this often while the agent works, for at most TYPING_MAX_MS. */
const TYPING_REFRESH_MS = 4000
const TYPING_MAX_MS = 3 * 60_000
/** Longest wait for the poll loop to end on stop. */
const STOP_MS = 3000
const MENU_SCOPES = [{ type: 'all_private_chats' }, { type: 'all_group_chats' }] as const

export interface TelegramAdapterOptions {
  config: Readonly<TelegramConfig>
  settings: Settings
  /** Used before the gateway hands the adapter its own logger. */
  log: Logger
  /** The central command registry, read for the menu and to recognise commands. */
  commands(): CommandDefinition[]
  /** First pause after a polling failure (doubling); tests shorten it. */
  retryBaseMs?: number
}

interface Session {
  grammy: Grammy
  api: Api
  bot: Bot
  gateway: GatewayService
  /** Who the gateway would answer: only their audio is downloaded and transcribed. */
  auth?: GatewayAuthService
  services: AdapterContext['services']
  base: string
  log: Logger
  token: string
  behaviour: Behaviour
  menu: Menu
  batcher: FragmentBatcher
  lock: TokenLock
  controller: AbortController
  loop?: Promise<void>
  resume: ResumePoint
  /** The first update id not seen yet, and the resume point last saved. */
  next?: number
  saved?: number
  closed: boolean
}

export type TelegramAdapter = GatewayAdapter & Required<AudioCapableAdapter> & { stop(): Promise<void>; commandsChanged(): void }

/**
 * The update offset saved for bot `botId` (`<bot id>:<offset>`): update ids count per bot, so a point
 * saved for another token's bot is not used.
 */
export function resumeOffset(cursor: string | undefined, botId: number): number | undefined {
  const match = /^(\d+):(\d+)$/.exec(cursor ?? '')
  return match && Number(match[1]) === botId ? Number(match[2]) : undefined
}

export function createTelegramAdapter(options: TelegramAdapterOptions): TelegramAdapter {
  const { config, settings } = options
  const extra = config.extra
  let running: Session | undefined
  const starting = startOnce(start)
  let standalone: { key: string; api: Api; grammy: Grammy } | undefined
  const typingLoops = new Map<string, NodeJS.Timeout>()
  /** The forum topic each chat last spoke from: typing is shown there. */
  const lastTopic = new Map<string, string | undefined>()
  let syncTimer: NodeJS.Timeout | undefined
  /** A persisting 409 Conflict was reported (once, until polling works again). */
  let conflictReported = false
  let syncing: Promise<void> = Promise.resolve()
  const log = () => running?.log ?? options.log
  const clean = (text: string, token?: string) => redactSecrets(text, [token, ...settings.secretValues()])
  const sender = new PartSender(log, clean)
  const apiOf = (grammy: Grammy, token: string, base: string) => createApi(grammy, token, base, extra.poll_timeout_seconds + 30, log)

  // ---------------------------------------------------------------------------------------------
  // Inbound

  function isCommand(text: string): boolean {
    const resolved = resolveSlash(options.commands(), text, 'gateway')
    return Boolean(resolved && ('command' in resolved || resolved.unknown === 'help'))
  }

  type Routed = { inbound: GatewayInbound; command: boolean; audio?: AudioFile }

  /** A message for the gateway, or undefined (ignored, or dropped with a reason). */
  function route(session: Session, message: Message): Routed | undefined {
    const parsed = parseMessage(message, { bot: session.bot, behaviour: session.behaviour, renamed: session.menu.renamed, isCommand })
    if (parsed.ok) {
      lastTopic.set(parsed.inbound.source.chatId!, parsed.inbound.source.threadId)
      return parsed
    }
    session.log.debug(`ignored Telegram message ${message.message_id} in chat ${message.chat.id}, ${parsed.reason}`)
    // Addressed to us but nothing the agent can read (a poll, dice, a game …): reported, never silent.
    if (parsed.unreadable) session.gateway.dropped(PLATFORM, { reason: parsed.reason, chatId: String(message.chat.id), messageId: `${message.chat.id}:${message.message_id}`, ...(message.from ? { userId: String(message.from.id) } : {}) })
    return undefined
  }

  function onUpdate(session: Session, update: Update): void {
    if (session.closed || !update.message) return
    const routed = route(session, update.message)
    if (!routed) return
    if (routed.command || routed.audio) session.batcher.flushFor(routed.inbound)
    if (routed.audio) void withTranscript(session, routed).then((inbound) => dispatch(session, inbound))
    else if (routed.command) dispatch(session, routed.inbound)
    else session.batcher.add(routed.inbound, update.update_id)
  }

  /**
   * A voice note or audio file as the line the agent reads (sdk transcribeAudio: the transcript, or
   * why there is none), after its caption. Only for a sender the gateway would answer: a stranger's
   * audio is neither downloaded nor transcribed (the gateway refuses it, or offers pairing).
   */
  async function withTranscript(session: Session, routed: Routed): Promise<GatewayInbound> {
    const { inbound, audio } = routed
    let line = `${VOICE_PROMPT_MARK}]`
    if (audio && (await session.auth?.authorize(inbound.source))?.allowed) {
      const target = { api: session.api, base: session.base, token: session.token }
      line = await transcribeAudio(session.services, {
        filename: audio.filename,
        ...(audio.mimeType ? { mimeType: audio.mimeType } : {}),
        ...(audio.size !== undefined ? { size: audio.size } : {}),
        fetch: (signal) => downloadFile(target, audio.fileId, MAX_AUDIO_BYTES, signal),
      }, session.log)
    }
    return { ...inbound, text: [inbound.text, line].filter(Boolean).join('\n') }
  }

  /** What arrived while the adapter was away: through the gateway's backlog bound, not batched. */
  async function onBacklog(session: Session, updates: Update[]): Promise<void> {
    const routed = updates.flatMap((update) => (update.message && !session.closed ? [route(session, update.message)] : [])).flatMap((r) => (r ? [r] : []))
    const inbound = await Promise.all(routed.map((r) => (r.audio ? withTranscript(session, r) : r.inbound)))
    if (inbound.length === 0) return
    const result = await session.gateway.catchUp(PLATFORM, inbound)
    session.log.info(`caught up with ${inbound.length} Telegram message(s) from while the adapter was away: ${result.dispatched} answered, ${result.summarised} summarised, ${result.duplicates} already seen`)
  }

  /** Hands a message to the gateway; settles once the gateway recorded it (never rejects). */
  function dispatch(session: Session, inbound: GatewayInbound): Promise<void> {
    const { source } = inbound
    // Commas after the ids: the gateway's log redaction reads a run of digits, spaces and brackets as a phone number.
    session.log.debug(`Telegram message ${inbound.messageId} from user ${source.userId}, ${source.chatType} ${source.chatId}, ${inbound.text.length} characters`)
    return session.gateway
      .dispatch(inbound)
      .then((result) => session.log.debug(`Telegram message ${inbound.messageId}: ${result.status}`))
      .catch((error) => session.log.error(`Telegram message ${inbound.messageId} failed: ${clean(errorMessage(error), session.token)}`))
  }

  /**
   * Saves the resume point: the first update not yet handed to the gateway (the first held fragment,
   * else the first not seen), as `<bot id>:<offset>`.
   */
  function saveResumePoint(session: Session): void {
    const point = session.batcher.heldFrom() ?? session.next
    if (point === undefined || point === session.saved) return
    session.saved = point
    // Saved in the order asked (one commit queue): the last point asked is the one kept.
    session.resume.set(`${session.bot.id}:${point}`).catch((error) => session.log.warn(`cannot save the Telegram resume point: ${errorMessage(error)}`))
  }

  // ---------------------------------------------------------------------------------------------
  // The command menu

  async function syncMenu(session: Session): Promise<void> {
    if (session.closed) return
    const menu = commandMenu(options.commands())
    session.menu = menu
    if (!extra.command_menu) return
    try {
      let changed = 0
      for (const scope of MENU_SCOPES) {
        const current = await session.api.getMyCommands({ scope })
        if (sameMenu(current, menu.commands)) continue
        await session.api.setMyCommands(menu.commands, { scope })
        changed++
      }
      if (changed) session.log.info(`set the Telegram command menu: ${menu.commands.length} commands for private chats and groups`)
      else session.log.debug(`the Telegram command menu (${menu.commands.length} commands) is current`)
    } catch (error) {
      session.log.warn(`cannot set the Telegram command menu (${clean(reasonOf(error, session.grammy.GrammyError), session.token)}); typed commands still work`)
    }
  }

  function queueSync(session: Session): void {
    // Caught here: a rejected link would reject every later sync and leave a floating rejection.
    syncing = syncing.then(() => syncMenu(session)).catch((error) => session.log.warn(`command menu sync failed: ${clean(errorMessage(error), session.token)}`))
  }

  // ---------------------------------------------------------------------------------------------
  // Connection

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const token = botToken(ctx.settings, 'the Telegram adapter')
    const base = apiBase(ctx.settings)
    const rules = behaviour(ctx.settings, extra)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Telegram adapter needs the gateway service')
    const grammy = await loadGrammy()
    const lock = lockToken(ctx.settings.home, token)
    const api = apiOf(grammy, token, base)
    let me
    try {
      me = await api.getMe(grammySignal(ctx.signal))
      // A webhook set for this bot elsewhere would make every getUpdates a 409.
      await api.deleteWebhook({ drop_pending_updates: false }, grammySignal(ctx.signal))
    } catch (error) {
      lock.release()
      throw startError(error, grammy.GrammyError, (text) => clean(text, token))
    }
    if (!me.username) {
      lock.release()
      throw new AgentError('E_NETWORK', 'Telegram answered getMe without the bot username')
    }
    const session: Session = {
      grammy,
      api,
      bot: { id: me.id, username: me.username },
      gateway,
      auth: ctx.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE),
      services: ctx.services,
      base,
      log: ctx.log,
      token,
      behaviour: rules,
      menu: commandMenu(options.commands()),
      // A joined batch is handed over: the resume point may move past its updates.
      batcher: new FragmentBatcher(extra.batch_window_ms, (inbound) => void dispatch(session, inbound).then(() => saveResumePoint(session))),
      resume: gateway.resumePoint(PLATFORM),
      lock,
      controller: new AbortController(),
      closed: false,
    }
    running = session
    const from = resumeOffset(await session.resume.get(), me.id)
    if (from !== undefined) session.next = session.saved = from
    session.loop = poll({
      api,
      GrammyError: grammy.GrammyError,
      timeoutSeconds: extra.poll_timeout_seconds,
      conflictRetries: extra.conflict_retries,
      retryBaseMs: options.retryBaseMs ?? 1000,
      signal: session.controller.signal,
      log: ctx.log,
      clean: (text) => clean(text, token),
      ...(from !== undefined ? { offset: from } : {}),
      onUpdate: (update) => onUpdate(session, update),
      heldFrom: () => session.batcher.heldFrom(),
      holdPollMs: Math.max(50, Math.floor(extra.batch_window_ms / 3)),
      onBacklog: (updates) => onBacklog(session, updates),
      onOffset: (offset) => {
        session.next = offset
        saveResumePoint(session)
      },
      onPolling: (recovered) => {
        conflictReported = false
        // Replies queued while polling failed go out now (after a start the gateway does it).
        if (recovered) session.gateway.connected(PLATFORM)
      },
      conflictReported: () => conflictReported,
      onFatal: (error) => {
        if (error.message === CONFLICT) {
          // Once: the gateway restarts the adapter with its backoff, and the conflict may well stay.
          if (!conflictReported) ctx.log.error(`Telegram polling stopped: ${CONFLICT}`)
          conflictReported = true
        }
        if (running === session) session.gateway.connectionLost(PLATFORM, error)
      },
    })
    for (const warning of allowlistWarnings(ctx.settings)) ctx.log.warn(warning)
    const free = rules.freeResponseChats.size
    ctx.log.info(`connected to Telegram as @${me.username} (long polling); group messages ${rules.requireMention ? 'need a mention or a reply' : 'need no mention'}${free ? `, except in ${free} free-response chat(s)` : ''}`)
    queueSync(session)
  }

  // ---------------------------------------------------------------------------------------------
  // Outbound

  /** The running session's Api, else one of our own (a delivery from a CLI process). */
  async function apiFor(): Promise<{ api: Api; grammy: Grammy; token: string }> {
    if (running) return { api: running.api, grammy: running.grammy, token: running.token }
    const token = botToken(settings, 'Telegram delivery')
    const base = apiBase(settings)
    const key = `${base}\n${token}`
    if (standalone?.key !== key) {
      const grammy = await loadGrammy()
      standalone = { key, grammy, api: apiOf(grammy, token, base) }
    }
    return { api: standalone.api, grammy: standalone.grammy, token }
  }

  /** A chat id or public @channel to send to (typing there stops), or a one-line delivery error. */
  function checkedChat(chatId: string): string {
    const target = String(chatId).trim()
    if (!isChatId(target) && !/^@[A-Za-z][A-Za-z0-9_]{4,31}$/.test(target)) throw new AgentError('E_DELIVERY', `"${target}" is not a Telegram chat id (a number such as 123456789 or -1001234567890, or a public @channel)`)
    stopTyping(target)
    return target
  }

  function stopTyping(chatId: string): void {
    clearInterval(typingLoops.get(chatId))
    typingLoops.delete(chatId)
  }

  async function postTyping(session: Session, chatId: string, thread: string | undefined): Promise<boolean> {
    try {
      await session.api.sendChatAction(chatId, 'typing', thread ? { message_thread_id: Number(thread) } : {})
      return true
    } catch (error) {
      session.log.debug(`cannot show typing in Telegram chat ${chatId}, ${clean(reasonOf(error, session.grammy.GrammyError), session.token)}`)
      return false
    }
  }

  return {
    name: PLATFORM,
    description: 'Telegram bot over the Bot API (grammy, long polling): private chats, mentions in groups, the command menu',
    enabled: telegramEnabled,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    splitsLongMessages: true,
    async start(ctx) {
      // One connection at a time, even if start() is called again while it connects.
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      clearTimeout(syncTimer)
      for (const chat of [...typingLoops.keys()]) stopTyping(chat)
      const session = running
      running = undefined
      if (!session) return
      session.closed = true
      // Fragments already received still become a turn (the gateway may be stopping: it decides).
      session.batcher.flushAll()
      session.controller.abort()
      let timer: NodeJS.Timeout | undefined
      await Promise.race([session.loop, new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_MS)))]).finally(() => clearTimeout(timer))
      session.lock.release()
    },
    async typing(chatId) {
      const session = running
      if (!session || !isChatId(chatId)) return
      stopTyping(chatId)
      const thread = lastTopic.get(chatId)
      if (!(await postTyping(session, chatId, thread))) return
      const until = Date.now() + TYPING_MAX_MS
      const timer = setInterval(() => {
        if (running !== session || Date.now() > until) return stopTyping(chatId)
        void postTyping(session, chatId, thread)
      }, TYPING_REFRESH_MS)
      timer.unref?.()
      typingLoops.set(chatId, timer)
    },
    async send(chatId, text, sendOptions) {
      const target = checkedChat(chatId)
      const parts = telegramParts(text)
      if (parts.length === 0) return
      const { api, grammy, token } = await apiFor()
      const threadId = typeof sendOptions?.threadId === 'string' && sendOptions.threadId ? sendOptions.threadId : undefined
      const key = typeof sendOptions?.idempotencyKey === 'string' && sendOptions.idempotencyKey ? sendOptions.idempotencyKey : undefined
      await sender.send({ api, grammy, token, chatId: target, ...(threadId ? { threadId } : {}), ...(key ? { key } : {}) }, parts)
      log().debug(`sent ${parts.length} Telegram message(s) to chat ${target},`)
    },
    voiceBubbles: true,
    async sendAudio(chatId, audio, sendOptions) {
      const target = checkedChat(chatId)
      const { api, grammy, token } = await apiFor()
      const threadId = sendOptions?.threadId
      // Telegram shows OGG/Opus sent with sendVoice as a voice bubble; anything else is an audio file.
      const voice = audio.voice && /ogg|opus/i.test(audio.mimeType)
      await sender.sendAudio({ api, grammy, token, chatId: target, ...(threadId ? { threadId } : {}) }, { data: audio.data, filename: audio.filename, voice })
    },
    commandsChanged() {
      // The registry changed while running (an extension reloaded): set the menu again once things settle.
      if (!running) return
      running.menu = commandMenu(options.commands())
      clearTimeout(syncTimer)
      syncTimer = setTimeout(() => running && queueSync(running), 1000)
      syncTimer.unref?.()
    },
  }
}
