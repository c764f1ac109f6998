// The `dingtalk` gateway adapter: robot messages from the stream go to the gateway (after the
// duplicate check, five minutes by msgId); answers go back as markdown to the reply address (session
// webhook) the chat's latest message carried, or, once that has expired or for deliveries to a chat
// that never wrote, through the robot's OpenAPI send endpoints.

import {
  AgentError, ConfigError, errorMessage, GATEWAY_SERVICE, platformEnabled, startOnce,
  type AdapterContext, type GatewayAdapter, type GatewayService, type Logger, type Settings,
} from 'agent/sdk'
import type { DWClientDownStream } from 'dingtalk-stream'
import { markdownMessages, type MarkdownMessage } from './markdown.ts'
import { parseRobotMessage, SeenMessages, type InboundRobotMessage, type RobotMessage } from './messages.ts'
import { AccessTokens, DEFAULT_API_BASE, DEFAULT_GATEWAY_URL, postToSessionWebhook, sendAsRobot, type Credentials, type ProactiveTarget } from './rest.ts'
import { createStreamClient, type Backoff, type StreamClient } from './stream-client.ts'

export const PLATFORM = 'dingtalk'
const DEDUP_WINDOW_MS = 5 * 60_000
/** A session webhook this close to its expiry is not used (a long answer takes several posts). */
const WEBHOOK_MARGIN_MS = 60_000
/** DingTalk keeps a session webhook for about 90 minutes; assumed when a message omits the expiry. */
const WEBHOOK_DEFAULT_TTL_MS = 90 * 60_000
const CONVERSATIONS_MAX = 1000

export interface DingTalkExtra {
  require_mention: boolean
  robot_name?: string
  robot_code?: string
  reconnect_initial_ms: number
  reconnect_max_ms: number
  max_message_length: number
}

export interface DingTalkConfig {
  enabled?: boolean
  extra: DingTalkExtra
}

interface Conversation {
  kind: 'dm' | 'group'
  webhook?: { url: string; expiresAt: number }
  staffId?: string
  robotCode?: string
}

interface Running {
  client: StreamClient
  gateway: GatewayService
  log: Logger
  credentials: Credentials
}

/** platforms.dingtalk.enabled false turns it off; true, DINGTALK_ENABLED or both credentials turn it on. */
export function dingtalkEnabled(settings: Settings): boolean {
  return platformEnabled(settings, 'dingtalk', 'DINGTALK_ENABLED', () => Boolean(settings.env('DINGTALK_CLIENT_ID')?.trim() && settings.env('DINGTALK_CLIENT_SECRET')?.trim()))
}

function credentialsFrom(settings: Settings, what: string): Credentials {
  const clientId = settings.env('DINGTALK_CLIENT_ID')?.trim()
  const clientSecret = settings.env('DINGTALK_CLIENT_SECRET')?.trim()
  if (!clientId || !clientSecret) throw new ConfigError(`${what} needs DINGTALK_CLIENT_ID and DINGTALK_CLIENT_SECRET (the client id and client secret of the DingTalk app)`)
  return { clientId, clientSecret }
}

function urlSetting(settings: Settings, name: string, fallback: string): string {
  const value = settings.env(name)?.trim() || fallback
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name} is not a URL: ${value}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`${name} must be an http(s) URL`)
  return value.replace(/\/+$/, '')
}

const endpoints = (settings: Settings) => ({
  gatewayUrl: urlSetting(settings, 'DINGTALK_GATEWAY_URL', DEFAULT_GATEWAY_URL),
  apiBase: urlSetting(settings, 'DINGTALK_API_BASE_URL', DEFAULT_API_BASE),
})

/**
 * Reply addresses are posted to only on DingTalk's own hosts, or on the host of an overridden
 * endpoint (a test fake): a message can never make the agent post its answers elsewhere.
 */
function trustedWebhook(url: string, settings: Settings): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  const origins = new Set(['https://api.dingtalk.com', 'https://oapi.dingtalk.com'])
  for (const name of ['DINGTALK_GATEWAY_URL', 'DINGTALK_API_BASE_URL']) {
    const value = settings.env(name)?.trim()
    if (!value) continue
    try {
      origins.add(new URL(value).origin)
    } catch {}
  }
  return origins.has(parsed.origin)
}

export function createDingTalkAdapter(config: Readonly<DingTalkConfig>, settings: Settings, fallbackLog: Logger): GatewayAdapter & { stop(): Promise<void> } {
  const extra = config.extra
  const backoff: Backoff = { initialMs: extra.reconnect_initial_ms, maxMs: Math.max(extra.reconnect_max_ms, extra.reconnect_initial_ms) }
  const seen = new SeenMessages(DEDUP_WINDOW_MS, 10_000)
  const conversations = new Map<string, Conversation>()
  const tokens = new AccessTokens()
  let running: Running | undefined
  const starting = startOnce(start)
  const log = () => running?.log ?? fallbackLog
  const secrets = () => settings.secretValues()

  function remember(message: InboundRobotMessage): void {
    const previous = conversations.get(message.chatId)
    let webhook = previous?.webhook
    if (message.webhook) {
      if (trustedWebhook(message.webhook.url, settings)) webhook = { url: message.webhook.url, expiresAt: message.webhook.expiresAt || Date.now() + WEBHOOK_DEFAULT_TTL_MS }
      else log().warn(`ignored the reply address of DingTalk message ${message.msgId}: not a DingTalk host`)
    }
    conversations.delete(message.chatId)
    conversations.set(message.chatId, {
      kind: message.chatType,
      ...(webhook ? { webhook } : {}),
      ...((message.staffId ?? previous?.staffId) ? { staffId: message.staffId ?? previous?.staffId } : {}),
      ...((message.robotCode ?? previous?.robotCode) ? { robotCode: message.robotCode ?? previous?.robotCode } : {}),
    })
    while (conversations.size > CONVERSATIONS_MAX) conversations.delete(conversations.keys().next().value!)
  }

  function inbound(frame: DWClientDownStream): void {
    const state = running
    if (!state) return
    let data: RobotMessage
    try {
      data = JSON.parse(frame.data) as RobotMessage
    } catch {
      return state.log.warn('ignored a DingTalk callback whose data is not JSON')
    }
    const parsed = parseRobotMessage(data, { requireMention: extra.require_mention, robotName: extra.robot_name })
    if (!parsed.ok) {
      // Content the agent cannot take is a drop (info, counted); a group message not addressed to the robot is not.
      if (parsed.reason.startsWith('unsupported')) return state.gateway.dropped(PLATFORM, { reason: parsed.reason, chatId: data?.conversationId, messageId: data?.msgId })
      return state.log.debug(`ignored a DingTalk message: ${parsed.reason}`)
    }
    const message = parsed.message
    if (seen.check(message.msgId)) return state.log.debug(`dropped a duplicate of DingTalk message ${message.msgId}`)
    remember(message)
    state.log.debug(`DingTalk message ${message.msgId} from ${message.userId} in ${message.chatType} ${message.chatId} (${message.text.length} characters)`)
    state.gateway
      .dispatch({
        source: { platform: PLATFORM, userId: message.userId, ...(message.userName ? { userName: message.userName } : {}), chatId: message.chatId, chatType: message.chatType },
        text: message.text,
        messageId: message.msgId,
        receivedAt: message.receivedAt ?? Date.now(),
      })
      .then((result) => state.log.debug(`DingTalk message ${message.msgId}: ${result.status}`))
      .catch((error) => state.log.error(`DingTalk message ${message.msgId} failed: ${errorMessage(error)}`))
  }

  function proactiveTarget(chatId: string, conversation: Conversation | undefined): ProactiveTarget {
    if (chatId.startsWith('user:') && chatId.length > 5) return { kind: 'user', staffId: chatId.slice(5) }
    if (chatId.startsWith('group:') && chatId.length > 6) return { kind: 'group', openConversationId: chatId.slice(6) }
    if (conversation?.kind === 'dm') {
      if (conversation.staffId) return { kind: 'user', staffId: conversation.staffId }
      throw new AgentError('E_DELIVERY', `cannot message DingTalk chat ${chatId}: its reply address has expired and the sender has no staff id (proactive sends need a recent message in that chat)`)
    }
    return { kind: 'group', openConversationId: chatId }
  }

  async function deliver(chatId: string, message: MarkdownMessage): Promise<void> {
    const conversation = conversations.get(chatId)
    const webhook = conversation?.webhook
    if (webhook && webhook.expiresAt - Date.now() > WEBHOOK_MARGIN_MS) return postToSessionWebhook(webhook.url, message, secrets())
    const target = proactiveTarget(chatId, conversation)
    const credentials = running?.credentials ?? credentialsFrom(settings, 'DingTalk delivery')
    const { apiBase } = endpoints(settings)
    const token = running ? await running.client.accessToken() : await tokens.get(apiBase, credentials)
    const robotCode = conversation?.robotCode ?? extra.robot_code ?? credentials.clientId
    await sendAsRobot(apiBase, token, robotCode, target, message, [...secrets(), credentials.clientSecret])
  }

  async function start(ctx: AdapterContext): Promise<void> {
    if (running) return
    const credentials = credentialsFrom(ctx.settings, 'the DingTalk adapter')
    const { gatewayUrl, apiBase } = endpoints(ctx.settings)
    const gateway = ctx.services.get<GatewayService>(GATEWAY_SERVICE)
    if (!gateway) throw new ConfigError('the DingTalk adapter needs the gateway service')
    const client = await createStreamClient({
      ...credentials,
      gatewayUrl,
      apiBase,
      tokens,
      backoff,
      log: ctx.log,
      ua: 'agent-dingtalk/1.0',
      onRobotMessage: (frame) => inbound(frame),
      onFatal: (error) => gateway.connectionLost(PLATFORM, error),
      onReconnected: () => gateway.connected(PLATFORM),
    })
    await client.open()
    if (ctx.signal.aborted) {
      await client.close()
      throw new AgentError('E_INTERRUPTED', 'the DingTalk adapter was stopped while connecting')
    }
    running = { client, gateway, log: ctx.log, credentials }
    ctx.log.info(`connected to the DingTalk stream (${new URL(gatewayUrl).host}) as ${credentials.clientId}`)
  }

  return {
    name: PLATFORM,
    description: 'DingTalk robot over Stream mode (no public URL); markdown replies',
    enabled: dingtalkEnabled,
    maxMessageLength: extra.max_message_length,
    splitsLongMessages: true,
    async start(ctx) {
      // One connection at a time, even if start() is called again while it connects.
      return starting.run(ctx)
    },
    async stop() {
      await starting.settled()
      const state = running
      running = undefined
      await state?.client.close()
    },
    async send(chatId, text) {
      const messages = markdownMessages(text, extra.max_message_length)
      for (const message of messages) await deliver(chatId, message)
      log().debug(`sent ${messages.length} DingTalk message(s) to ${chatId}`)
    },
  }
}
