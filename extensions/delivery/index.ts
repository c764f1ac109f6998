// The delivery service: cron results, /background answers, webhook runs and approval prompts go to a
// chat of a platform (its home channel by default), a code-hosting comment, or the log. A chat
// delivery the platform cannot take now waits in the gateway's outbox when this process runs the
// adapter (`agent gateway run`); elsewhere the failure is the caller's.

import { adapterParts, AgentError, defineExtension, DELIVERY_SERVICE, GATEWAY_SERVICE, isRetryableDelivery, platformEnvPrefix, platformSetting, redactPhone, redactPhonesIn, type DeliveryReceipt, type GatewayService, type DeliveryService, type DeliveryTarget, type GatewayAdapter, type HomeChannel, type MessageSource } from 'agent/sdk'
import { postComment, REPO_PATTERN } from './code-host.ts'

interface DeliveryConfig {
  github_api_url?: string
  comment_timeout_ms: number
}

const isTarget = (value: DeliveryTarget | MessageSource): value is DeliveryTarget => 'kind' in value

/** Chat ids that look like phone numbers are redacted wherever a description is shown or logged. */
const showChat = (chatId: string) => (/^\+?[\d\s().-]{7,}$/.test(chatId) ? redactPhone(chatId) : chatId)

export default defineExtension<DeliveryConfig>({
  name: 'delivery',
  version: '1.0.0',
  description: 'Delivers results to a platform chat, a code-hosting comment or the log',
  configKey: 'delivery',
  config: {
    type: 'object',
    properties: {
      github_api_url: { type: 'string' },
      comment_timeout_ms: { type: 'integer', minimum: 1, default: 30_000 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const homeChannel = (platform: string): HomeChannel | undefined => {
      const chatId = platformSetting(api.settings, platform, 'HOME_CHANNEL')?.trim()
      if (!chatId) return undefined
      const threadId = platformSetting(api.settings, platform, 'HOME_CHANNEL_THREAD_ID')?.trim()
      return { platform, chatId, name: platformSetting(api.settings, platform, 'HOME_CHANNEL_NAME')?.trim() || 'Home', ...(threadId ? { threadId } : {}) }
    }

    async function toChat(target: Extract<DeliveryTarget, { kind: 'chat' }>, text: string): Promise<DeliveryReceipt> {
      const adapter = api.adapters.get(target.platform) as GatewayAdapter | undefined
      if (!adapter) throw new AgentError('E_DELIVERY', `cannot deliver to "${target.platform}": no such platform adapter is loaded`)
      if (!adapter.send) throw new AgentError('E_DELIVERY', `the "${target.platform}" adapter cannot send messages`)
      const home = target.chatId ? undefined : homeChannel(target.platform)
      const chatId = target.chatId ?? home?.chatId ?? adapter.defaultChatId
      if (!chatId) throw new AgentError('E_DELIVERY', `no chat given and no home channel for ${target.platform} (set ${platformEnvPrefix(target.platform)}_HOME_CHANNEL)`)
      const threadId = target.threadId ?? home?.threadId
      const parts = adapterParts(adapter, text)
      const description = `${target.platform}:${showChat(chatId)}`
      let sent = 0
      try {
        for (const part of parts) {
          await adapter.send(chatId, part, threadId ? { threadId } : undefined)
          sent++
        }
      } catch (error) {
        const gateway = api.services.get<GatewayService>(GATEWAY_SERVICE)
        if (!isRetryableDelivery(error) || !gateway?.queueDelivery({ platform: target.platform, chatId, ...(threadId ? { threadId } : {}), text, partsSent: sent })) throw error
        api.log.info(`delivery to ${description} queued until the adapter can send it`)
        return { target: { ...target, chatId }, parts: sent, description: `${description} (queued)`, queued: true }
      }
      return { target: { ...target, chatId }, parts: parts.length, description }
    }

    const service: DeliveryService = {
      homeChannel,
      async send(to, text) {
        const target: DeliveryTarget = isTarget(to) ? to : { kind: 'chat', platform: to.platform, chatId: to.chatId ?? to.userId, ...((to as { threadId?: string }).threadId ? { threadId: (to as { threadId?: string }).threadId } : {}) }
        if (target.kind === 'log') {
          api.log.info(`delivered to the log: ${redactPhonesIn(text)}`)
          return { target, parts: 1, description: 'log' }
        }
        if (target.kind === 'code-comment') {
          await postComment({
            baseUrl: api.config.github_api_url ?? api.settings.env('GITHUB_API_URL') ?? 'https://api.github.com',
            token: api.settings.env('GITHUB_TOKEN'),
            repo: target.repo,
            number: target.number,
            body: text,
            timeoutMs: api.config.comment_timeout_ms,
            secrets: api.settings.secretValues(),
          })
          return { target, parts: 1, description: `github:${target.repo}#${target.number}` }
        }
        return toChat(target, text)
      },
      parse(spec, extra = {}, origin) {
        const value = spec.trim()
        if (value === '' || value === 'log') return { kind: 'log' }
        if (value === 'origin') {
          if (!origin) throw new AgentError('E_USAGE', 'deliver "origin" needs an originating chat')
          return { kind: 'chat', platform: origin.platform, chatId: origin.chatId ?? origin.userId }
        }
        if (value === 'github_comment') {
          const repo = String(extra.repo ?? '')
          const number = Number(extra.pr_number ?? extra.issue_number)
          if (!REPO_PATTERN.test(repo)) throw new AgentError('E_USAGE', `deliver github_comment needs deliver_extra.repo as owner/name, got "${repo}"`)
          if (!Number.isInteger(number) || number < 1) throw new AgentError('E_USAGE', 'deliver github_comment needs deliver_extra.pr_number (or issue_number) as a positive integer')
          return { kind: 'code-comment', host: 'github', repo, number }
        }
        const colon = value.indexOf(':')
        const platform = colon === -1 ? value : value.slice(0, colon)
        if (!/^[a-z][a-z0-9_]*$/.test(platform)) throw new AgentError('E_USAGE', `unknown delivery target "${value}"`)
        const chatId = colon === -1 ? (extra.chat_id === undefined ? undefined : String(extra.chat_id)) : value.slice(colon + 1)
        const thread = extra.thread_id ?? extra.message_thread_id
        return { kind: 'chat', platform, ...(chatId ? { chatId } : {}), ...(thread !== undefined ? { threadId: String(thread) } : {}) }
      },
    }
    api.services.provide<DeliveryService>(DELIVERY_SERVICE, service)
  },
})
