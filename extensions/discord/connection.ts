// The discord.js client of a running adapter: its creation (the shards it spawns remembered), login
// within the connect timeout, the connection events (a watchdog hands a connection that stays down to
// the gateway, a new session triggers the read-back, an untyped DM is typed), what a failed start
// means (close codes and 4xx refusals are configuration, the rest is retried) and destroying the
// client for good around two faults of @discordjs/ws 1.2.

import { AgentError, ConfigError, errorMessage, settleWithin, type GatewayService, type Logger, type Services, type Settings } from 'agent/sdk'
import type { Client } from 'discord.js'
import type { Positions } from './catch-up.ts'
import { apiBase, PLATFORM, type Behaviour } from './settings.ts'

export type DiscordModule = typeof import('discord.js')
/** What destroyClient uses of an @discordjs/ws 1.2 shard (discord.js's own WebSocketShard is another class). */
export interface GatewayShard {
  readonly status: number
  readonly connection?: { on?(event: 'error', listener: () => void): unknown } | null
  readonly timeoutAbortControllers?: { values(): IterableIterator<AbortController>; clear(): void }
  destroy(options?: { code?: number; reason?: string }): Promise<void>
}

export const REST_TIMEOUT_MS = 15_000
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

export interface Session {
  discord: DiscordModule
  client: Client
  gateway: GatewayService
  services: Services
  log: Logger
  token: string
  /** Text for a log line or an error: the token and the other secrets removed. */
  redact(text: string): string
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

export async function loadDiscord(): Promise<DiscordModule> {
  const mod = (await import('discord.js')) as DiscordModule & { default?: DiscordModule }
  // discord.js is CommonJS: depending on the loader its exports are the namespace or its default.
  return mod.Client ? mod : mod.default!
}

/** A short reason for a failed request, without the token. */
export function reasonOf(error: unknown): string {
  const e = error as { status?: number; code?: unknown; rawError?: { message?: string }; cause?: { code?: string } } | undefined
  if (typeof e?.status === 'number') {
    const detail = e.rawError?.message ?? errorMessage(error)
    return `HTTP ${e.status}${typeof e.code === 'number' && e.code > 0 ? ` code ${e.code}` : ''}: ${detail}`
  }
  const code = typeof e?.code === 'string' ? e.code : e?.cause?.code
  return code && !errorMessage(error).includes(code) ? `${code}: ${errorMessage(error)}` : errorMessage(error)
}

/** The bot's client; `closed` tells whether its session has ended (see destroyClient). */
export function createClient(discord: DiscordModule, base: string, shards: Set<GatewayShard>, closed: () => boolean): Client {
  const { Client, GatewayIntentBits: I, Partials, SimpleShardingStrategy } = discord
  return new Client({
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
        manager.options.retrieveSessionInfo = (shardId) => (closed() ? new Promise<never>(() => undefined) : retrieve(shardId))
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
}

export interface WatchOptions {
  /** Whether the session is still the adapter's running one: a stopped or replaced one only logs. */
  current(): boolean
  /** Reads back what a new session missed (catch-up). */
  catchUp(): Promise<void>
  /** reconnect_watchdog_seconds: 0 leaves reconnecting to discord.js. */
  watchdogSeconds: number
}

export function watch(session: Session, options: WatchOptions): void {
  const { Events } = session.discord
  const client = session.client
  const seconds = options.watchdogSeconds
  const clear = () => {
    clearTimeout(session.watchdog)
    session.watchdog = undefined
  }
  client.on(Events.ShardDisconnect, (event) => {
    session.fatalClose = event.code
    clear()
    if (!options.current()) return
    // discord.js gives up after these codes: the gateway restarts the adapter (a revoked token then
    // fails as configuration).
    const reason = FATAL_CLOSE[event.code] ?? `the Discord gateway closed the connection (code ${event.code})`
    session.log.error(`Discord connection stopped: ${reason}`)
    session.gateway.connectionLost(PLATFORM, FATAL_CLOSE[event.code] ? new ConfigError(reason) : new AgentError('E_NETWORK', reason))
  })
  client.on(Events.ShardReconnecting, () => {
    if (!options.current() || session.watchdog) return
    session.log.info('the Discord gateway connection closed; discord.js is reconnecting')
    if (seconds <= 0) return
    session.watchdog = setTimeout(() => {
      session.watchdog = undefined
      if (!options.current()) return
      const reason = `the Discord gateway connection did not come back within ${seconds} s`
      session.log.warn(`${reason}; restarting the adapter`)
      session.gateway.connectionLost(PLATFORM, new AgentError('E_NETWORK', reason))
    }, seconds * 1000)
    session.watchdog.unref?.()
  })
  client.on(Events.ShardResume, (_shard, replayed) => {
    if (options.current()) session.log.info(`the Discord gateway connection resumed (${replayed} missed events replayed)`)
    clear()
  })
  client.on(Events.ShardReady, () => {
    if (options.current() && session.watchdog) session.log.info('the Discord gateway connection is back (new session)')
    clear()
    // A new session (op 9, a failed resume): what was missed is not replayed, so it is read back.
    if (options.current()) void options.catchUp().then(() => session.gateway.connected(PLATFORM))
  })
  client.on(Events.ShardResume, () => {
    if (options.current()) session.gateway.connected(PLATFORM)
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
  client.on(Events.ShardError, (error) => session.log.debug(`Discord gateway error: ${session.redact(errorMessage(error))}`))
  // Without a listener an 'error' event would throw out of the library.
  client.on(Events.Error, (error) => session.log.warn(`discord.js error: ${session.redact(errorMessage(error))}`))
  client.on(Events.Warn, (message) => session.log.warn(`discord.js: ${session.redact(message)}`))
  client.rest.on('rateLimited', (info) => session.log.debug(`Discord rate limit on ${info.route}: retrying in ${info.retryAfter} ms`))
}

export async function connect(session: Session, signal: AbortSignal, seconds: number): Promise<void> {
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

/** What a failed start means: configuration (no retry) or a network failure the gateway retries. */
export function classify(error: unknown, session: Session, settings: Settings): unknown {
  if (AgentError.isInstance(error)) return error
  const e = error as { code?: unknown; status?: number }
  if (session.fatalClose && FATAL_CLOSE[session.fatalClose]) return new ConfigError(FATAL_CLOSE[session.fatalClose]!, { cause: error })
  if (e?.code === 'TokenInvalid' || e?.status === 401) return new ConfigError(TOKEN_REJECTED, { cause: error })
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500 && e.status !== 408 && e.status !== 429) {
    return new ConfigError(`Discord refused the connection (${session.redact(reasonOf(error))})`, { cause: error })
  }
  const host = (() => {
    try {
      return new URL(apiBase(settings)).host
    } catch {
      return 'discord.com'
    }
  })()
  return new AgentError('E_NETWORK', `cannot connect to Discord (${host}): ${session.redact(reasonOf(error))}`, { cause: error })
}

/**
 * Destroys a client for good, around two faults of @discordjs/ws 1.2. (1) A shard destroyed while it
 * waits for HELLO or READY (connecting, reconnecting) aborts that wait, which schedules a reconnect
 * and leaves destroy() hanging; so the waits are detached first and aborted only once the shard is
 * idle (the library then ignores them). (2) A shard in its 500 ms pause before reconnecting is idle,
 * ignores destroy() and reconnects afterwards; every (re)connect starts by reading the session info,
 * which for a closed session never answers (see buildStrategy), so such a reconnect goes nowhere.
 */
export async function destroyClient(session: Session): Promise<void> {
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
