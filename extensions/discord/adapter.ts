// The `discord` gateway adapter on discord.js (imported when the adapter starts): the bot logs in over
// the gateway websocket (guild, direct-message and message-content intents), messages meant for it go
// to the gateway, answers go back as channel messages through Discord's REST API (split at 2,000
// characters, no pings), typing is shown while the agent works, and the gateway's slash commands are
// offered as Discord application commands. discord.js keeps the connection (heartbeats and missing
// ACKs, op 7 reconnect, resume with replay, op 9 re-identify); after every new session the messages
// Discord did not replay are read back over REST (catch-up.ts). A DM whose MESSAGE_CREATE lacks
// channel_type from an uncached channel (discord.js would drop it without a word) is typed as the DM
// it is. A reply that cannot be sent (429, 5xx, network) is deferred to the gateway's outbox. A bad
// token or a refused intent is a ConfigError, anything else is retried by the gateway.

import {
  AgentError, ConfigError, DeliveryDeferred, errorMessage, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, MAX_AUDIO_BYTES, redactSecrets, resolveSlash, settleWithin, startOnce, transcribeAudio,
  type AdapterContext, type AudioCapableAdapter, type CommandDefinition, type GatewayAdapter, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type Services, type Settings,
} from 'agent/sdk'
import type { Client, ChatInputCommandInteraction, Interaction, Message, REST } from 'discord.js'
import { advance, bySnowflake, parsePositions, READ_PER_CHANNEL, serialisePositions, type Positions } from './catch-up.ts'
import { discordParts, MAX_MESSAGE_LENGTH } from './format.ts'
import { parseMessage, type Parsed } from './inbound.ts'
import { apiBase, behaviour, botToken, discordEnabled, isSnowflake, PLATFORM, type Behaviour, type DiscordConfig } from './settings.ts'
import { applicationCommands, ARGS_OPTION, commandsDiffer, commandText } from './slash.ts'

type DiscordModule = typeof import('discord.js')
/** What destroyClient uses of an @discordjs/ws 1.2 shard (discord.js's own WebSocketShard is another class). */
interface GatewayShard {
  readonly status: number
  readonly connection?: { on?(event: 'error', listener: () => void): unknown } | null
  readonly timeoutAbortControllers?: { values(): IterableIterator<AbortController>; clear(): void }
  destroy(options?: { code?: number; reason?: string }): Promise<void>
}

/** Discord shows "typing…" for about 10 s; refreshed this often while the agent works, for at most TYPING_MAX_MS. */
const TYPING_REFRESH_MS = 8000
const TYPING_MAX_MS = 3 * 60_000
/** An interaction token lives 15 minutes; the deferred reply is cleaned up before that. */
const INTERACTION_MAX_MS = 14 * 60_000
const REST_TIMEOUT_MS = 15_000
/** Longest wait for the library to close a shard or the client (see destroyClient). */
const DESTROY_MS = 3000

/** Close codes after which discord.js stops: what each one means for the person running the agent. */
const FATAL_CLOSE: Record<number, string> = {
  4004: 'Discord rejected DISCORD_BOT_TOKEN (gateway close 4004, authentication failed): reset the token in the Developer Portal (Bot → Reset Token) and update DISCORD_BOT_TOKEN',
  4010: 'Discord refused the connection (gateway close 4010, invalid shard)',
  4011: 'Discord requires sharding for this bot (gateway close 4011): the adapter runs one shard, for bots in fewer than 2,500 servers',
  4012: 'Discord refused the gateway API version (gateway close 4012)',
  4013: 'Discord refused the requested intents (gateway close 4013)',
  4014: 'Discord refused the Message Content intent (gateway close 4014): enable "Message Content Intent" under Bot → Privileged Gateway Intents in the Developer Portal',
}
const TOKEN_REJECTED = 'Discord rejected DISCORD_BOT_TOKEN (HTTP 401 Unauthorized): reset the token in the Developer Portal (Bot → Reset Token) and update DISCORD_BOT_TOKEN'

export interface DiscordAdapterOptions {
  config: Readonly<DiscordConfig>
  settings: Settings
  /** Used before the gateway hands the adapter its own logger. */
  log: Logger
  /** The central command registry, read when commands are registered and invoked. */
  commands(): CommandDefinition[]
}

interface Session {
  discord: DiscordModule
  client: Client
  gateway: GatewayService
  services: Services
  log: Logger
  token: string
  behaviour: Behaviour
  /** Set once the client is ready; messages and interactions are handled from then on. */
  botId?: string
  /** Every gateway shard the client created (one), for destroyClient. */
  shards: Set<GatewayShard>
  /** The last unrecoverable close code seen (4004 …). */
  fatalClose?: number
  watchdog?: NodeJS.Timeout
  closed: boolean
  /** Channel → last message handed to the gateway (the resume point). */
  positions: Positions
  /** The catch-up running now, if any (one at a time). */
  catchingUp?: Promise<void>
}

export type DiscordAdapter = GatewayAdapter & AudioCapableAdapter & { stop(): Promise<void>; commandsChanged(): void }

async function loadDiscord(): Promise<DiscordModule> {
  const mod = (await import('discord.js')) as DiscordModule & { default?: DiscordModule }
  // discord.js is CommonJS: depending on the loader its exports are the namespace or its default.
  return mod.Client ? mod : mod.default!
}

/**
 * Destroys a client for good, around two faults of @discordjs/ws 1.2. (1) A shard destroyed while it
 * waits for HELLO or READY (connecting, reconnecting) aborts that wait, which schedules a reconnect
 * and leaves destroy() hanging; so the waits are detached first and aborted only once the shard is
 * idle (the library then ignores them). (2) A shard in its 500 ms pause before reconnecting is idle,
 * ignores destroy() and reconnects afterwards; every (re)connect starts by reading the session info,
 * which for a closed session never answers (see buildStrategy), so such a reconnect goes nowhere.
 */
async function destroyClient(session: Session): Promise<void> {
  session.closed = true
  for (const shard of session.shards) {
    if (shard.status === 0) continue
    const waits = shard.timeoutAbortControllers
    const controllers = waits && typeof waits.values === 'function' ? [...waits.values()] : []
    waits?.clear?.()
    // A socket still handshaking keeps failing after destroy() removed the library's handlers.
    shard.connection?.on?.('error', () => undefined)
    await settleWithin(shard.destroy({ code: 1000, reason: 'the adapter stopped' }), DESTROY_MS)
    for (const controller of controllers) controller.abort()
  }
  await settleWithin(session.client.destroy(), DESTROY_MS)
}

/** A short reason for a failed request, without the token. */
function reasonOf(error: unknown): string {
  const e = error as { status?: number; code?: unknown; rawError?: { message?: string }; cause?: { code?: string } } | undefined
  if (typeof e?.status === 'number') {
    const detail = e.rawError?.message ?? errorMessage(error)
    return `HTTP ${e.status}${typeof e.code === 'number' && e.code > 0 ? ` code ${e.code}` : ''}: ${detail}`
  }
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code
  return code && !errorMessage(error).includes(code) ? `${code}: ${errorMessage(error)}` : errorMessage(error)
}

/** An attachment from Discord's CDN, at most 25 MB. */
async function fetchAudio(url: string): Promise<Uint8Array> {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) })
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  const data = new Uint8Array(await response.arrayBuffer())
  if (data.byteLength > MAX_AUDIO_BYTES) throw new Error('larger than 25 MB')
  return data
}

export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const { config, settings } = options
  const extra = config.extra
  let running: Session | undefined
  const starting = startOnce(start)
  let standalone: { key: string; rest: REST; discord: DiscordModule } | undefined
  const typingLoops = new Map<string, NodeJS.Timeout>()
  let syncTimer: NodeJS.Timeout | undefined
  let syncing: Promise<void> = Promise.resolve()
  const log = () => running?.log ?? options.log
  const secrets = (token?: string) => [token, ...settings.secretValues()]
  const clean = (text: string, token?: string) => redactSecrets(text, secrets(token))

  // ---------------------------------------------------------------------------------------------
  // Inbound

  function onMessage(session: Session, message: Message): void {
    if (session.closed || !session.botId) return
    let parsed
    try {
      parsed = parseMessage(message, session.botId, session.behaviour, session.discord.cleanContent)
    } catch (error) {
      return session.log.warn(`ignored Discord message ${message.id}: ${clean(errorMessage(error), session.token)}`)
    }
    if (!parsed.ok) return session.log.debug(`ignored Discord message ${message.id}: ${parsed.reason}`)
    if (parsed.audio.length === 0) return dispatch(session, parsed.inbound)
    void withTranscripts(session, parsed).then((inbound) => dispatch(session, inbound))
  }

  /**
   * Voice messages and audio files transcribed before the agent sees them (sdk/voice.ts), each line
   * after the message's own; only for a sender the gateway would answer (a stranger's audio is
   * neither downloaded nor transcribed).
   */
  async function withTranscripts(session: Session, parsed: Parsed & { ok: true }): Promise<GatewayInbound> {
    const { inbound, audio } = parsed
    if (audio.length === 0 || !(await session.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)?.authorize(inbound.source))?.allowed) return inbound
    const lines = await Promise.all(audio.map((a) => transcribeAudio(session.services, { filename: a.name, size: a.size, ...(a.contentType ? { mimeType: a.contentType } : {}), fetch: () => fetchAudio(a.url) }, session.log)))
    return { ...inbound, text: [inbound.text, ...lines].join('\n') }
  }

  function dispatch(session: Session, inbound: GatewayInbound): void {
    const { source } = inbound
    // Commas after the ids: the gateway's log redaction reads a run of digits, spaces and brackets as a phone number.
    session.log.debug(`Discord message ${inbound.messageId} from user ${source.userId}, ${source.chatType} ${source.chatId}, ${inbound.text.length} characters`)
    const dispatched = session.gateway.dispatch(inbound)
    // The gateway recorded the message id as it was called: the position may move past it.
    savePosition(session, source.threadId ?? source.chatId, inbound.messageId)
    dispatched
      .then((result) => session.log.debug(`Discord message ${inbound.messageId}: ${result.status}`))
      .catch((error) => session.log.error(`Discord message ${inbound.messageId} failed: ${clean(errorMessage(error), session.token)}`))
  }

  function savePosition(session: Session, channelId: string | undefined, messageId: string | undefined): void {
    if (!channelId || !messageId || !/^\d+$/.test(messageId) || !advance(session.positions, channelId, messageId)) return
    // Saved in the order asked (one commit queue), so the last position asked is the one kept.
    session.gateway
      .resumePoint(PLATFORM)
      .set(serialisePositions(session.positions))
      .catch((error) => session.log.warn(`cannot save the Discord resume point: ${errorMessage(error)}`))
  }

  /** Reads what each known channel got since its position and hands it to the gateway (bounded there). */
  function catchUp(session: Session): Promise<void> {
    session.catchingUp ??= readBack(session).finally(() => (session.catchingUp = undefined))
    return session.catchingUp
  }

  async function readBack(session: Session): Promise<void> {
    const found: GatewayInbound[] = []
    const newest = new Map<string, string>()
    for (const [channelId, after] of [...session.positions]) {
      if (session.closed) return
      try {
        const channel = await session.client.channels.fetch(channelId)
        if (!channel?.isTextBased()) continue
        const messages = [...(await channel.messages.fetch({ after, limit: READ_PER_CHANNEL })).values()].sort(bySnowflake)
        for (const message of messages) {
          newest.set(channelId, message.id)
          const parsed = parseMessage(message, session.botId!, session.behaviour, session.discord.cleanContent)
          if (parsed.ok) found.push(await withTranscripts(session, parsed))
        }
      } catch (error) {
        session.log.warn(`cannot read what Discord channel ${channelId}, got while the adapter was away: ${clean(reasonOf(error), session.token)}`)
      }
    }
    if (session.closed) return
    found.sort((a, b) => bySnowflake({ id: a.messageId! }, { id: b.messageId! }))
    const result = await session.gateway.catchUp(PLATFORM, found)
    for (const [channelId, id] of newest) savePosition(session, channelId, id)
    if (found.length > 0) session.log.info(`caught up on Discord: ${found.length} message(s) the gateway did not get live, ${result.dispatched} answered, ${result.summarised} summarised, ${result.duplicates} already seen`)
  }

  /**
   * A slash command picked from Discord's menu runs exactly as the typed `/name args` would (same
   * authorisation, same chat and session). Discord wants an answer within 3 s: the interaction is
   * deferred (visible to the invoker only), the command's replies go to the channel as messages
   * (in a server channel a reply cannot be told apart from another user's answer), and the deferred
   * reply is removed when the command is done, or says why nothing happened.
   */
  async function onInteraction(session: Session, interaction: Interaction): Promise<void> {
    if (session.closed || !session.botId || !interaction.isChatInputCommand()) return
    const { MessageFlags } = session.discord
    const text = commandText(interaction.commandName, interaction.options.getString(ARGS_OPTION, false))
    try {
      const resolved = resolveSlash(options.commands(), text, 'gateway')
      if ((!resolved || !('command' in resolved)) && interaction.commandName !== 'help') {
        await interaction.reply({ content: `/${interaction.commandName} is no longer a command of this agent.`, flags: MessageFlags.Ephemeral })
        return
      }
      await interaction.deferReply({ flags: MessageFlags.Ephemeral })
      const result = await session.gateway.dispatch(interactionInbound(interaction, text))
      session.log.debug(`Discord command ${text.split(' ')[0]} from ${interaction.user.id}: ${result.status}`)
      if (result.status === 'denied') return void (await interaction.editReply('You are not authorised to use this agent.'))
      await settleWithin(result.done, INTERACTION_MAX_MS)
      await interaction.deleteReply()
    } catch (error) {
      session.log.warn(`Discord command ${text.split(' ')[0]} failed: ${clean(reasonOf(error), session.token)}`)
    }
  }

  function interactionInbound(interaction: ChatInputCommandInteraction, text: string): GatewayInbound {
    const thread = interaction.channel?.isThread() ? interaction.channel : undefined
    const userName = interaction.user.globalName ?? interaction.user.username
    return {
      source: {
        platform: PLATFORM,
        userId: interaction.user.id,
        ...(userName ? { userName } : {}),
        chatId: interaction.channelId,
        chatType: interaction.inGuild() ? 'group' : 'dm',
        ...(thread ? { threadId: thread.id } : {}),
      },
      text,
      messageId: `interaction:${interaction.id}`,
      receivedAt: interaction.createdTimestamp || Date.now(),
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Slash command registration

  async function syncCommands(session: Session): Promise<void> {
    if (!extra.slash_commands || session.closed) return
    const applicationId = session.client.application?.id
    if (!applicationId) return session.log.warn('cannot register slash commands: Discord did not say which application this bot is')
    const { Routes } = session.discord
    const wanted = applicationCommands(options.commands())
    try {
      const current = (await session.client.rest.get(Routes.applicationCommands(applicationId))) as unknown[]
      if (!commandsDiffer(Array.isArray(current) ? current : [], wanted)) return session.log.debug(`the ${wanted.length} slash commands registered with Discord are current`)
      await session.client.rest.put(Routes.applicationCommands(applicationId), { body: wanted })
      session.log.info(`registered ${wanted.length} slash commands with Discord`)
    } catch (error) {
      session.log.warn(`cannot register slash commands with Discord (${clean(reasonOf(error), session.token)}); typed commands still work`)
    }
  }

  function queueSync(session: Session): void {
    // Caught here: a rejected link would reject every later sync and leave a floating rejection.
    syncing = syncing.then(() => syncCommands(session)).catch((error) => session.log.warn(`slash command sync failed: ${clean(reasonOf(error), session.token)}`))
  }

  // ---------------------------------------------------------------------------------------------
  // Connection

  function classify(error: unknown, session: Session): unknown {
    if (AgentError.isInstance(error)) return error
    const e = error as { code?: unknown; status?: number }
    if (session.fatalClose && FATAL_CLOSE[session.fatalClose]) return new ConfigError(FATAL_CLOSE[session.fatalClose]!, { cause: error })
    if (e?.code === 'TokenInvalid' || e?.status === 401) return new ConfigError(TOKEN_REJECTED, { cause: error })
    if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429) {
      return new ConfigError(`Discord refused the connection (${clean(reasonOf(error), session.token)})`, { cause: error })
    }
    const host = (() => {
      try {
        return new URL(apiBase(settings)).host
      } catch {
        return 'discord.com'
      }
    })()
    return new AgentError('E_NETWORK', `cannot connect to Discord (${host}): ${clean(reasonOf(error), session.token)}`, { cause: error })
  }

  function watch(session: Session): void {
    const { Events } = session.discord
    const client = session.client
    const seconds = extra.reconnect_watchdog_seconds
    const clear = () => {
      clearTimeout(session.watchdog)
      session.watchdog = undefined
    }
    client.on(Events.ShardDisconnect, (event) => {
      session.fatalClose = event.code
      clear()
      if (running !== session) return
      // discord.js gives up after these codes: the gateway restarts the adapter (a revoked token then
      // fails as configuration).
      const reason = FATAL_CLOSE[event.code] ?? `the Discord gateway closed the connection (code ${event.code})`
      session.log.error(`Discord connection stopped: ${reason}`)
      session.gateway.connectionLost(PLATFORM, FATAL_CLOSE[event.code] ? new ConfigError(reason) : new AgentError('E_NETWORK', reason))
    })
    client.on(Events.ShardReconnecting, () => {
      if (running !== session || session.watchdog) return
      session.log.info('the Discord gateway connection closed; discord.js is reconnecting')
      if (seconds <= 0) return
      session.watchdog = setTimeout(() => {
        session.watchdog = undefined
        if (running !== session) return
        const reason = `the Discord gateway connection did not come back within ${seconds} s`
        session.log.warn(`${reason}; restarting the adapter`)
        session.gateway.connectionLost(PLATFORM, new AgentError('E_NETWORK', reason))
      }, seconds * 1000)
      session.watchdog.unref?.()
    })
    client.on(Events.ShardResume, (_shard, replayed) => {
      if (running === session) session.log.info(`the Discord gateway connection resumed (${replayed} missed events replayed)`)
      clear()
    })
    client.on(Events.ShardReady, () => {
      if (running === session && session.watchdog) session.log.info('the Discord gateway connection is back (new session)')
      clear()
      // A new session (op 9, a failed resume): what was missed is not replayed, so it is read back.
      if (running === session) void catchUp(session).then(() => session.gateway.connected(PLATFORM))
    })
    client.on(Events.ShardResume, () => {
      if (running === session) session.gateway.connected(PLATFORM)
    })
    // Read before discord.js handles the packet: a DM without channel_type from a channel it has not
    // cached would find no channel type and be dropped without a word. No guild_id means a DM (bots
    // are never in group DMs), so it is typed as one.
    client.on(Events.Raw, (packet: { t?: string; d?: { guild_id?: string; channel_type?: number; channel_id?: string; id?: string } }) => {
      const d = packet?.t === 'MESSAGE_CREATE' ? packet.d : undefined
      if (!d || d.guild_id !== undefined || d.channel_type !== undefined || !d.channel_id || client.channels.cache.has(d.channel_id)) return
      d.channel_type = session.discord.ChannelType.DM
      session.log.debug(`Discord message ${d.id} came without channel_type from an uncached channel: taken as a direct message`)
    })
    client.on(Events.ShardError, (error) => session.log.debug(`Discord gateway error: ${clean(errorMessage(error), session.token)}`))
    // Without a listener an 'error' event would throw out of the library.
    client.on(Events.Error, (error) => session.log.warn(`discord.js error: ${clean(errorMessage(error), session.token)}`))
    client.on(Events.Warn, (message) => session.log.warn(`discord.js: ${clean(message, session.token)}`))
    client.rest.on('rateLimited', (info) => session.log.debug(`Discord rate limit on ${info.route}: retrying in ${info.retryAfter} ms`))
    client.on(Events.MessageCreate, (message) => onMessage(session, message))
    client.on(Events.InteractionCreate, (interaction) => void onInteraction(session, interaction))
  }

  async function connect(session: Session, signal: AbortSignal): Promise<void> {
    const seconds = extra.connect_timeout_seconds
    const { Events } = session.discord
    const client = session.client
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()))
    const login = client.login(session.token).then(() => (client.isReady() ? undefined : ready))
    login.catch(() => undefined)
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AgentError('E_NETWORK', `Discord did not become ready within ${seconds} s`)), seconds * 1000)
      onAbort = () => reject(new AgentError('E_INTERRUPTED', 'the Discord adapter was stopped while connecting'))
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
    stop.catch(() => undefined)
    try {
      await Promise.race([login, stop])
    } finally {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    }
  }

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const token = botToken(ctx.settings, 'the Discord adapter')
    const base = apiBase(ctx.settings)
    const rules = behaviour(ctx.settings, extra)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Discord adapter needs the gateway service')
    const discord = await loadDiscord()
    const { Client, GatewayIntentBits: I, Partials, SimpleShardingStrategy } = discord
    const shards = new Set<GatewayShard>()
    const client = new Client({
      intents: [I.Guilds, I.GuildMessages, I.DirectMessages, I.MessageContent],
      // Direct-message channels are not cached ahead of their first message.
      partials: [Partials.Channel],
      rest: { api: base, timeout: REST_TIMEOUT_MS },
      allowedMentions: { parse: [] },
      failIfNotExists: false,
      sweepers: { messages: { interval: 3600, lifetime: 1800 } },
      ws: {
        // The library's own strategy; the shards it spawns are remembered for destroyClient.
        buildStrategy(manager) {
          // Every (re)connect of a shard starts here; a closed session's never answers (see destroyClient).
          const retrieve = manager.options.retrieveSessionInfo.bind(manager.options)
          manager.options.retrieveSessionInfo = (shardId) => (session.closed ? new Promise<never>(() => undefined) : retrieve(shardId))
          const strategy = new SimpleShardingStrategy(manager)
          const spawn = strategy.spawn.bind(strategy)
          strategy.spawn = async (ids) => {
            await spawn(ids)
            for (const shard of (strategy as unknown as { shards: Map<number, GatewayShard> }).shards.values()) shards.add(shard)
          }
          return strategy
        },
      },
    })
    const session: Session = { discord, client, gateway, services: ctx.services, log: ctx.log, token, behaviour: rules, shards, closed: false, positions: parsePositions(await gateway.resumePoint(PLATFORM).get()) }
    watch(session)
    try {
      await connect(session, ctx.signal)
    } catch (error) {
      session.closed = true
      await destroyClient(session)
      throw classify(error, session)
    }
    const user = client.user
    if (!user) {
      session.closed = true
      await destroyClient(session)
      throw new AgentError('E_NETWORK', 'Discord answered without the bot user')
    }
    session.botId = user.id
    running = session
    const free = rules.freeResponseChannels.size
    ctx.log.info(`connected to Discord as ${user.username} (${user.id}) in ${client.guilds.cache.size} server(s); server messages ${rules.requireMention ? 'need a mention' : 'need no mention'}${free ? `, except in ${free} free-response channel(s)` : ''}`)
    await catchUp(session)
    queueSync(session)
  }

  // ---------------------------------------------------------------------------------------------
  // Outbound

  /** REST for sends: the running client's, else one of our own (a delivery from a CLI process). */
  async function restFor(): Promise<{ rest: REST; discord: DiscordModule; token: string }> {
    if (running) return { rest: running.client.rest, discord: running.discord, token: running.token }
    const token = botToken(settings, 'Discord delivery')
    const base = apiBase(settings)
    const key = `${base}\n${token}`
    if (standalone?.key !== key) {
      const discord = await loadDiscord()
      standalone = { key, discord, rest: new discord.REST({ api: base, timeout: REST_TIMEOUT_MS }).setToken(token) }
    }
    return { rest: standalone.rest, discord: standalone.discord, token }
  }

  function stopTyping(channelId: string): void {
    clearInterval(typingLoops.get(channelId))
    typingLoops.delete(channelId)
  }

  async function postTyping(session: Session, channelId: string): Promise<boolean> {
    try {
      await session.client.rest.post(session.discord.Routes.channelTyping(channelId))
      return true
    } catch (error) {
      session.log.debug(`cannot show typing in Discord channel ${channelId}: ${clean(reasonOf(error), session.token)}`)
      return false
    }
  }

  return {
    name: PLATFORM,
    description: 'Discord bot over the gateway websocket (discord.js): DMs, mentions in servers, slash commands',
    enabled: discordEnabled,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    splitsLongMessages: true,
    async start(ctx) {
      // One connection at a time, even if start() is called again while it connects.
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      clearTimeout(syncTimer)
      for (const channel of [...typingLoops.keys()]) stopTyping(channel)
      const session = running
      running = undefined
      if (!session) return
      session.closed = true
      clearTimeout(session.watchdog)
      await destroyClient(session)
    },
    async typing(chatId) {
      const session = running
      if (!session || !isSnowflake(chatId)) return
      stopTyping(chatId)
      if (!(await postTyping(session, chatId))) return
      const until = Date.now() + TYPING_MAX_MS
      const timer = setInterval(() => {
        if (running !== session || Date.now() > until) return stopTyping(chatId)
        void postTyping(session, chatId)
      }, TYPING_REFRESH_MS)
      timer.unref?.()
      typingLoops.set(chatId, timer)
    },
    async send(chatId, text, sendOptions) {
      const threadId = sendOptions?.threadId
      const target = String(typeof threadId === 'string' && threadId ? threadId : chatId).trim()
      if (!isSnowflake(target)) throw new AgentError('E_DELIVERY', `"${target}" is not a Discord channel id (Developer Mode → right-click the channel → Copy Channel ID)`)
      stopTyping(target)
      const parts = discordParts(text)
      if (parts.length === 0) return
      const { rest, discord, token } = await restFor()
      for (const [index, content] of parts.entries()) {
        try {
          // allowed_mentions: an answer never pings anyone (@everyone, roles, users) whatever it says.
          await rest.post(discord.Routes.channelMessages(target), { body: { content, allowed_mentions: { parse: [] } } })
        } catch (error) {
          const which = parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : ''
          const status = (error as { status?: number }).status
          const reason = `Discord refused the message to channel ${target}${which}: ${clean(reasonOf(error), token)}`
          // Rate limits, server errors and network failures may pass: the gateway's outbox retries them.
          if (status === undefined || status === 429 || status >= 500) throw new DeliveryDeferred(reason.replace('refused', 'did not take'), { cause: error })
          throw new AgentError('E_DELIVERY', reason, { cause: error })
        }
      }
      log().debug(`sent ${parts.length} Discord message(s) to ${target}`)
    },
    /** A spoken reply (/voice) as an audio file with Discord's inline player, before the text. */
    async sendAudio(chatId, audio, sendOptions) {
      const target = String(sendOptions?.threadId || chatId).trim()
      if (!isSnowflake(target)) throw new AgentError('E_DELIVERY', `"${target}" is not a Discord channel id`)
      const { rest, discord, token } = await restFor()
      try {
        await rest.post(discord.Routes.channelMessages(target), { files: [{ name: audio.filename, data: Buffer.from(audio.data), contentType: audio.mimeType }], body: { allowed_mentions: { parse: [] } } })
      } catch (error) {
        throw new AgentError('E_DELIVERY', `Discord refused the audio to channel ${target}: ${clean(reasonOf(error), token)}`, { cause: error })
      }
    },
    commandsChanged() {
      // The registry changed while running (an extension reloaded): register again once things settle.
      if (!running) return
      clearTimeout(syncTimer)
      syncTimer = setTimeout(() => running && queueSync(running), 2000)
      syncTimer.unref?.()
    },
  }
}
