// The `discord` gateway adapter on discord.js (imported when the adapter starts): the bot logs in over
// the gateway websocket (guild, direct-message and message-content intents), messages meant for it go
// to the gateway, answers go back as channel messages through Discord's REST API (split at 2,000
// characters, no pings), typing is shown while the agent works, and the gateway's slash commands are
// offered as Discord application commands. discord.js keeps the connection (heartbeats and missing
// ACKs, op 7 reconnect, resume with replay, op 9 re-identify); after every new session the messages
// Discord did not replay are read back over REST (dispatch.ts). A DM whose MESSAGE_CREATE lacks
// channel_type from an uncached channel (discord.js would drop it without a word) is typed as the DM
// it is. A reply that cannot be sent (429, 5xx, network) is deferred to the gateway's outbox. A bad
// token or a refused intent is a ConfigError, anything else is retried by the gateway.
//
// This file starts and stops a session, shows typing and sends; the client and its connection live in
// connection.ts, incoming messages and the read-back in dispatch.ts, slash commands in commands.ts.

import {
  AgentError, ConfigError, DeliveryDeferred, GATEWAY_SERVICE, redactSecrets, startOnce,
  type AdapterContext, type AudioCapableAdapter, type CommandDefinition, type GatewayAdapter, type GatewayService, type Logger, type Settings,
} from 'agent/sdk'
import type { REST } from 'discord.js'
import { parsePositions } from './catch-up.ts'
import { commandSync, onInteraction } from './commands.ts'
import { classify, connect, createClient, destroyClient, loadDiscord, reasonOf, REST_TIMEOUT_MS, watch, type DiscordModule, type GatewayShard, type Session } from './connection.ts'
import { catchUp, onMessage } from './dispatch.ts'
import { discordParts, MAX_MESSAGE_LENGTH } from './format.ts'
import { apiBase, behaviour, botToken, discordEnabled, isSnowflake, PLATFORM, type DiscordConfig } from './settings.ts'

/** Discord shows "typing…" for about 10 s; refreshed this often while the agent works, for at most TYPING_MAX_MS. */
const TYPING_REFRESH_MS = 8000
const TYPING_MAX_MS = 3 * 60_000

export interface DiscordAdapterOptions {
  config: Readonly<DiscordConfig>
  settings: Settings
  /** Used before the gateway hands the adapter its own logger. */
  log: Logger
  /** The central command registry, read when commands are registered and invoked. */
  commands(): CommandDefinition[]
}

export type DiscordAdapter = GatewayAdapter & AudioCapableAdapter & { stop(): Promise<void>; commandsChanged(): void }

export function createDiscordAdapter(options: DiscordAdapterOptions): DiscordAdapter {
  const { config, settings } = options
  const extra = config.extra
  let running: Session | undefined
  const starting = startOnce(start)
  let standalone: { key: string; rest: REST; discord: DiscordModule } | undefined
  const typingLoops = new Map<string, NodeJS.Timeout>()
  let syncTimer: NodeJS.Timeout | undefined
  const queueSync = commandSync(extra, () => options.commands())
  const log = () => running?.log ?? options.log
  const secrets = (token?: string) => [token, ...settings.secretValues()]
  const clean = (text: string, token?: string) => redactSecrets(text, secrets(token))

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const token = botToken(ctx.settings, 'the Discord adapter')
    const base = apiBase(ctx.settings)
    const rules = behaviour(ctx.settings, extra)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Discord adapter needs the gateway service')
    const discord = await loadDiscord()
    const shards = new Set<GatewayShard>()
    const client = createClient(discord, base, shards, () => session.closed)
    const session: Session = { discord, client, gateway, services: ctx.services, log: ctx.log, token, redact: (text) => clean(text, token), behaviour: rules, shards, closed: false, positions: parsePositions(await gateway.resumePoint(PLATFORM).get()) }
    watch(session, { current: () => running === session, catchUp: () => catchUp(session), watchdogSeconds: extra.reconnect_watchdog_seconds })
    client.on(discord.Events.MessageCreate, (message) => onMessage(session, message))
    client.on(discord.Events.InteractionCreate, (interaction) => void onInteraction(session, interaction, () => options.commands()))
    try {
      await connect(session, ctx.signal, extra.connect_timeout_seconds)
    } catch (error) {
      session.closed = true
      await destroyClient(session)
      throw classify(error, session, settings)
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
