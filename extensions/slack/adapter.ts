// The `slack` gateway adapter on the official SDK packages (imported when the adapter starts): the bot
// token is checked with auth.test, Socket Mode (connection.ts) brings message events and the slash
// command, messages meant for the bot go to the gateway, and answers go back through chat.postMessage
// in the message's thread, as Slack mrkdwn, in parts of 4,000 characters. The slash command
// (slash-command.ts) carries the registry's gateway commands as subcommands.

import {
  AgentError, ConfigError, DeliveryDeferred, errorMessage, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, gatewayKnownCommands, MAX_AUDIO_BYTES, redactSecrets, settleWithin, startOnce, transcribeAudio,
  type AdapterContext, type CommandDefinition, type GatewayAdapter, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type Settings,
} from 'agent/sdk'
import type { WebClient } from '@slack/web-api'
import { SocketConnection, type Envelope } from './connection.ts'
import { MAX_MESSAGE_LENGTH, slackParts, type MrkdwnOptions } from './format.ts'
import { parseMessage, type Parsed, type SlackMessageEvent } from './inbound.ts'
import { manifestSubcommand } from './manifest.ts'
import { allowlistWarnings, apiBase, appToken, behaviour, botToken, isTargetId, isTimestamp, PLATFORM, slackEnabled, slashCommandName, type Behaviour, type SlackConfig } from './settings.ts'
import { handleSlashCommand } from './slash-command.ts'
import { classify, loadSocketMode, loadWebApi, reasonOf, sdkLogger, slackErrorCode, webClient, type WebApiModule } from './web.ts'

/** Threads the bot answers in (a follow-up there needs no mention); the oldest are forgotten first. */
const MAX_ENGAGED_THREADS = 2000
/** How long stop() waits for sends under way. */
const SEND_SETTLE_MS = 10_000
/** What to do when Slack refuses a post, by its error code. */
const DELIVERY_HINTS: Record<string, string> = {
  not_in_channel: 'invite the app to the channel first (/invite @app)',
  channel_not_found: 'the app cannot see that channel: invite it, or check the id',
  is_archived: 'the channel is archived',
}

export interface SlackAdapterOptions {
  config: Readonly<SlackConfig>
  settings: Settings
  /** Used before the gateway hands the adapter its own logger. */
  log: Logger
  /** The central command registry, read on every slash command. */
  commands(): CommandDefinition[]
}

interface Session {
  web: WebClient
  connection: SocketConnection
  gateway: GatewayService
  services: AdapterContext['services']
  /** Files are downloaded with the bot token, from Slack's file host or the API's own origin only. */
  download: { token: string; apiOrigin: string }
  log: Logger
  behaviour: Behaviour
  slash: string
  botUserId: string
  closed: boolean
  /** `channel:thread_ts` of the threads the bot answers in. */
  engaged: Set<string>
}

export type SlackAdapter = GatewayAdapter & { stop(): Promise<void> }

/** How many parts of a queued reply Slack took, by the outbox's idempotency key (the newest 500). */
function partsLedger() {
  const done = new Map<string, number>()
  return {
    done: (key: string) => done.get(key) ?? 0,
    sent(key: string, count: number) {
      done.delete(key)
      done.set(key, count)
      if (done.size > 500) done.delete(done.keys().next().value!)
    },
    forget: (key: string) => void done.delete(key),
  }
}

export function createSlackAdapter(options: SlackAdapterOptions): SlackAdapter {
  const { config, settings } = options
  const extra = config.extra
  let running: Session | undefined
  const starting = startOnce(start)
  let standalone: { key: string; web: WebClient } | undefined
  let webApi: WebApiModule | undefined
  const sentParts = partsLedger()
  /** Sends under way: stop() lets them finish, so the outbox records what Slack took before the gateway stops. */
  const sending = new Set<Promise<void>>()
  const log = () => running?.log ?? options.log
  const secrets = () => [settings.env('SLACK_BOT_TOKEN'), settings.env('SLACK_APP_TOKEN'), ...settings.secretValues()]
  const clean = (text: string) => redactSecrets(text, secrets())
  const logger = sdkLogger(log, clean)

  // ---------------------------------------------------------------------------------------------
  // Inbound

  function onEnvelope(session: Session, envelope: Envelope): void {
    if (session.closed || running !== session) return
    if (envelope.type === 'events_api') {
      const event = envelope.body?.event as SlackMessageEvent | undefined
      if (event && (event.type === 'message' || event.type === 'app_mention')) return onMessage(session, event)
      return session.log.debug(`ignored Slack event ${String(event?.type)}`)
    }
    if (envelope.type === 'slash_commands') {
      const ctx = { gateway: session.gateway, services: session.services, log: session.log, slash: session.slash, commands: options.commands, apiBase: apiBase(settings) }
      return void handleSlashCommand(ctx, envelope.envelopeId, envelope.body ?? {}).catch((error) => session.log.warn(`Slack slash command failed: ${clean(reasonOf(error))}`))
    }
    session.log.debug(`ignored Slack envelope ${envelope.type}`)
  }

  function engaged(session: Session, channel: string, thread: string): boolean {
    return session.engaged.has(`${channel}:${thread}`)
  }

  function engage(session: Session, channel: string, thread: string): void {
    const key = `${channel}:${thread}`
    session.engaged.delete(key)
    session.engaged.add(key)
    if (session.engaged.size > MAX_ENGAGED_THREADS) session.engaged.delete(session.engaged.values().next().value!)
  }

  function onMessage(session: Session, event: SlackMessageEvent): void {
    const id = `${event.channel}:${event.ts}`
    let parsed
    try {
      parsed = parseMessage(event, { userId: session.botUserId }, session.behaviour, (channel, thread) => engaged(session, channel, thread))
    } catch (error) {
      return session.log.warn(`ignored Slack message ${id}: ${clean(errorMessage(error))}`)
    }
    if (!parsed.ok) {
      // Chatter not meant for the bot is not a drop; a message for it that carries nothing readable is.
      if (parsed.reason !== 'no text') return session.log.debug(`ignored Slack message ${id}: ${parsed.reason}`)
      return session.gateway.dropped(PLATFORM, { reason: 'a message without text or files', messageId: id, ...(event.channel ? { chatId: event.channel } : {}), ...(event.user ? { userId: event.user } : {}) })
    }
    if (parsed.audio.length === 0) return dispatch(session, parsed.inbound, parsed.mentioned)
    const { mentioned } = parsed
    void withTranscripts(session, parsed).then((inbound) => dispatch(session, inbound, mentioned))
  }

  /**
   * Audio files and clips transcribed before the agent sees them (sdk/voice.ts), for a sender the
   * gateway would answer only. The bot token goes to files.slack.com or the API's origin, nowhere else.
   */
  async function withTranscripts(session: Session, parsed: Parsed & { ok: true }): Promise<GatewayInbound> {
    const { inbound, audio } = parsed
    if (!(await session.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)?.authorize(inbound.source))?.allowed) return inbound
    const fetchFile = async (raw: string, signal?: AbortSignal): Promise<Uint8Array> => {
      const url = new URL(raw)
      if (url.host !== 'files.slack.com' && url.origin !== session.download.apiOrigin) throw new Error(`not a Slack file URL (${url.host})`)
      const response = await fetch(url, { headers: { authorization: `Bearer ${session.download.token}` }, signal: signal ?? AbortSignal.timeout(60_000) })
      if (!response.ok) throw new Error(`HTTP ${response.status}`)
      const data = new Uint8Array(await response.arrayBuffer())
      if (data.byteLength > MAX_AUDIO_BYTES) throw new Error('larger than 25 MB')
      return data
    }
    const lines = await Promise.all(audio.map((a) => transcribeAudio(session.services, { filename: a.name, ...(a.mimeType ? { mimeType: a.mimeType } : {}), ...(a.size !== undefined ? { size: a.size } : {}), fetch: (signal) => fetchFile(a.url, signal) }, session.log)))
    return { ...inbound, text: [inbound.text, ...lines].join('\n') }
  }

  function dispatch(session: Session, inbound: GatewayInbound, mentioned: boolean): void {
    const { source } = inbound
    session.log.debug(`Slack message ${inbound.messageId} from user ${source.userId}, ${source.chatType} ${source.chatId}, ${inbound.text.length} characters`)
    session.gateway
      .dispatch(inbound)
      .then((result) => {
        session.log.debug(`Slack message ${inbound.messageId}: ${result.status}`)
        // A thread the bot was asked into (by someone it answers) is one it follows without mentions.
        const accepted = result.status === 'queued' || result.status === 'command'
        if (accepted && mentioned && source.chatType === 'group' && source.threadId) engage(session, source.chatId!, source.threadId)
      })
      .catch((error) => session.log.error(`Slack message ${inbound.messageId} failed: ${clean(errorMessage(error))}`))
  }

  // ---------------------------------------------------------------------------------------------
  // Connection

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const bot = botToken(ctx.settings, 'the Slack adapter')
    const app = appToken(ctx.settings, 'the Slack adapter')
    const base = apiBase(ctx.settings)
    const rules = behaviour(ctx.settings, extra)
    const slash = slashCommandName(extra)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the Slack adapter needs the gateway service')
    const [api, socketMode] = await Promise.all([loadWebApi(), loadSocketMode()])
    webApi = api
    const host = new URL(base).host
    const web = webClient(api, bot, base, logger)
    web.on(api.WebClientEvent.RATE_LIMITED, (seconds: number) => log().info(`Slack rate limit: retrying in ${seconds} s`))
    let identity: { user_id?: string; user?: string; team?: string; bot_id?: string }
    try {
      identity = await web.auth.test()
    } catch (error) {
      throw classify(error, 'SLACK_BOT_TOKEN', host, clean)
    }
    if (!identity.user_id) throw new AgentError('E_NETWORK', 'Slack answered auth.test without the bot user')
    let session: Session | undefined
    const connection = new SocketConnection({
      socketMode,
      appToken: app,
      base,
      logger,
      log: ctx.log,
      connectTimeoutMs: extra.connect_timeout_seconds * 1000,
      watchdogMs: extra.reconnect_watchdog_seconds * 1000,
      clean,
      onEnvelope: (envelope) => session && onEnvelope(session, envelope),
      onLost: (error) => session && running === session && gateway.connectionLost(PLATFORM, error),
      // Replies queued while the connection was down go out now.
      onBack: () => session && running === session && gateway.connected(PLATFORM),
    })
    session = { web, connection, gateway, services: ctx.services, download: { token: bot, apiOrigin: new URL(base).origin }, log: ctx.log, behaviour: rules, slash, botUserId: identity.user_id, closed: false, engaged: new Set() }
    await connection.open(ctx.signal)
    running = session
    for (const warning of allowlistWarnings(ctx.settings)) ctx.log.warn(warning)
    const free = rules.freeResponseChannels.size
    ctx.log.info(`connected to Slack as ${identity.user ?? identity.user_id} in ${identity.team ?? 'the workspace'} (Socket Mode); channel messages ${rules.requireMention ? 'need a mention' : 'need no mention'}${free ? `, except in ${free} free-response channel(s)` : ''}; slash command ${slash}`)
  }

  // ---------------------------------------------------------------------------------------------
  // Outbound

  /** The running session's client, else one of our own (a delivery from a CLI process: no socket). */
  async function clientFor(): Promise<WebClient> {
    if (running) return running.web
    const token = botToken(settings, 'Slack delivery')
    const base = apiBase(settings)
    const key = `${base}\n${token}`
    if (standalone?.key !== key) {
      webApi ??= await loadWebApi()
      standalone = { key, web: webClient(webApi, token, base, logger) }
    }
    return standalone.web
  }

  /** The gateway's command names, which answers name as `/agent <name>` (a typed `/name` is Slack's). */
  function commandReferences(): MrkdwnOptions['commands'] {
    try {
      return { slash: slashCommandName(extra), names: gatewayKnownCommands(options.commands()) }
    } catch {
      return undefined
    }
  }

  /**
   * Slack refusing a message (a bad channel, no access) fails it; the network, a 5xx or a rate limit
   * that outlasted the client's own retries leaves it queued in the gateway's outbox for later.
   */
  function deliveryError(error: unknown, channel: string, which: string): AgentError {
    const code = slackErrorCode(error)
    const e = error as { code?: string; statusCode?: number; retryAfter?: number }
    if (!code && (e?.code === 'slack_webapi_request_error' || (e?.code === 'slack_webapi_http_error' && (e.statusCode ?? 0) >= 500) || e?.code === 'slack_webapi_rate_limited_error')) {
      const retryAfterMs = typeof e.retryAfter === 'number' ? e.retryAfter * 1000 : undefined
      return new DeliveryDeferred(`Slack did not take the message to ${channel}${which}: ${clean(reasonOf(error))}`, { cause: error, ...(retryAfterMs !== undefined ? { retryAfterMs, code: 'E_RATE_LIMITED' as const } : {}) })
    }
    const hint = code && DELIVERY_HINTS[code] ? `: ${DELIVERY_HINTS[code]}` : ''
    return new AgentError('E_DELIVERY', `Slack refused the message to ${channel}${which}: ${clean(reasonOf(error))}${hint}`, { cause: error })
  }

  /** One text to a conversation (or a thread), as mrkdwn parts. */
  async function sendText(chatId: string, text: string, sendOptions: Record<string, unknown> | undefined): Promise<void> {
    const channel = String(chatId).trim()
    if (!isTargetId(channel)) throw new AgentError('E_DELIVERY', `"${channel}" is not a Slack channel id (channel name → About → Channel ID, e.g. C0123456789)`)
    const rawThread = sendOptions?.threadId
    const thread = typeof rawThread === 'string' && rawThread ? rawThread.trim() : undefined
    if (thread !== undefined && !isTimestamp(thread)) throw new AgentError('E_DELIVERY', `"${thread}" is not a Slack thread timestamp (e.g. 1712345678.000100)`)
    const parts = slackParts(text, { commands: commandReferences() })
    if (parts.length === 0) return
    const key = typeof sendOptions?.idempotencyKey === 'string' ? sendOptions.idempotencyKey : undefined
    const web = await clientFor()
    // A retry of the same queued reply (same key) skips the parts Slack already took.
    for (let index = key ? sentParts.done(key) : 0; index < parts.length; index++) {
      try {
        await web.chat.postMessage({ channel, text: parts[index]!, mrkdwn: true, ...(thread ? { thread_ts: thread } : {}) })
      } catch (error) {
        throw deliveryError(error, channel, parts.length > 1 ? ` (part ${index + 1} of ${parts.length})` : '')
      }
      if (key) sentParts.sent(key, index + 1)
    }
    if (key) sentParts.forget(key)
    log().debug(`sent ${parts.length} Slack message(s) to ${channel}${thread ? ` (thread ${thread})` : ''}`)
  }

  return {
    name: PLATFORM,
    description: 'Slack app over Socket Mode (@slack/socket-mode, @slack/web-api): DMs, mentions in channels, one slash command',
    enabled: slackEnabled,
    maxMessageLength: MAX_MESSAGE_LENGTH,
    splitsLongMessages: true,
    cliSubcommands: { 'slack-manifest': manifestSubcommand(() => config.extra) },
    async start(ctx) {
      // One connection at a time, even if start() is called again while it connects.
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      await settleWithin(Promise.allSettled([...sending]), SEND_SETTLE_MS)
      const session = running
      running = undefined
      if (!session) return
      session.closed = true
      await session.connection.close()
    },
    send(chatId, text, sendOptions) {
      const sent = sendText(chatId, text, sendOptions)
      sending.add(sent)
      void sent.finally(() => sending.delete(sent)).catch(() => undefined)
      return sent
    },
  }
}
