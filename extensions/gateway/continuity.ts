// The continuity part of the gateway service: resume points, catching up on a backlog within its
// bound (the rest summarised in one notice per chat, never silence), and the report of messages an
// adapter drops on purpose (one info line each, counted in the status).

import {
  boundBacklog, DEFAULT_BACKLOG_BOUND, GATEWAY_AUTH_SERVICE, gatewaySessionKey,
  type BacklogBound, type CatchUpResult, type DroppedMessage, type GatewayAuthService, type GatewayInbound, type GatewayService, type Logger, type ResumePoint, type Services, type Settings,
} from 'agent/sdk'
import type { ContinuityStore } from './continuity-store.ts'
import type { Reply } from './outbox.ts'

export interface BacklogConfig {
  max_messages?: number
  max_minutes?: number
}

export interface ContinuityOptions {
  store: ContinuityStore
  services: Services
  settings: Settings
  log: Logger
  backlog: BacklogConfig
  dispatch: GatewayService['dispatch']
  deliver(reply: Reply): Promise<void>
  describe(source: { platform: string; userId?: string; chatId?: string }): string
  /** A drop was counted (the status file is rewritten). */
  changed?(): void
  now?: () => number
}

/** The notice a chat gets for the backlog messages that were not answered. */
export function backlogNotice(count: number, oldest: number | undefined): string {
  const when = oldest === undefined ? '' : ` (the oldest from ${new Date(oldest).toISOString().slice(0, 16).replace('T', ' ')} UTC)`
  return `I was offline: ${count} earlier message${count === 1 ? '' : 's'} here${when} ${count === 1 ? 'was' : 'were'} not answered. Please send again what still needs an answer.`
}

export class Continuity {
  private readonly drops = new Map<string, number>()
  private readonly now: () => number

  constructor(private readonly options: ContinuityOptions) {
    this.now = options.now ?? Date.now
  }

  resumePoint(adapter: string): ResumePoint {
    const store = this.options.store
    return {
      get: async () => (await store.resume(adapter))?.cursor,
      async set(cursor) {
        if (typeof cursor !== 'string' || cursor === '') throw new TypeError(`the resume point of "${adapter}" must be non-empty text`)
        await store.setResume(adapter, cursor)
      },
      savedAt: async () => (await store.resume(adapter))?.savedAt,
      clear: () => store.setResume(adapter, undefined),
    }
  }

  /** gateway.backlog, overridden per platform by platforms.<name>.backlog. */
  bound(adapter: string): BacklogBound {
    const own = this.options.settings.get<BacklogConfig>(`platforms.${adapter}.backlog`) ?? {}
    const messages = own.max_messages ?? this.options.backlog.max_messages
    const minutes = own.max_minutes ?? this.options.backlog.max_minutes
    return {
      maxMessages: Number.isInteger(messages) && messages! >= 0 ? messages! : DEFAULT_BACKLOG_BOUND.maxMessages,
      maxAgeMs: typeof minutes === 'number' && minutes >= 0 ? minutes * 60_000 : DEFAULT_BACKLOG_BOUND.maxAgeMs,
    }
  }

  async catchUp(adapter: string, messages: GatewayInbound[]): Promise<CatchUpResult> {
    const store = this.options.store
    const seen = await Promise.all(messages.map((m) => (m.messageId ? store.seen(m.source.platform, m.messageId) : false)))
    const fresh = messages.filter((_, i) => !seen[i])
    const { answer, summarise } = boundBacklog(fresh, this.bound(adapter), this.now())
    const chats = new Map<string, GatewayInbound[]>()
    for (const message of summarise) {
      // Recorded as seen: delivered again later, it is still not answered.
      const id = await store.claim(message.source.platform, message.messageId, message.receivedAt)
      if (id !== undefined) await store.settle(id)
      const key = gatewaySessionKey(message.source)
      chats.set(key, [...(chats.get(key) ?? []), message])
    }
    for (const group of chats.values()) await this.summarise(adapter, group)
    for (const message of answer) await this.options.dispatch(message)
    return { dispatched: answer.length, summarised: summarise.length, duplicates: messages.length - fresh.length }
  }

  private async summarise(adapter: string, group: GatewayInbound[]): Promise<void> {
    const newest = group.at(-1)!
    const reason = `backlog beyond the bound: ${group.length} message(s) summarised in one notice`
    this.count(adapter, group.length)
    this.options.log.info(`dropped ${group.length} ${adapter} message(s) from ${this.options.describe(newest.source)}: ${reason}`)
    const auth = this.options.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
    // Only a chat the gateway would answer is told: a stranger learns nothing from a notice.
    if (!(await auth?.authorize(newest.source))?.allowed) return
    const oldest = group.reduce<number | undefined>((min, m) => (m.receivedAt === undefined ? min : Math.min(min ?? m.receivedAt, m.receivedAt)), undefined)
    const chatId = newest.source.chatId ?? newest.source.userId
    if (!chatId) return
    await this.options.deliver({ platform: newest.source.platform, chatId, ...(newest.source.threadId ? { threadId: newest.source.threadId } : {}), text: backlogNotice(group.length, oldest) })
  }

  dropped(adapter: string, message: DroppedMessage): void {
    this.count(adapter)
    const chat = message.chatId || message.userId ? ` from ${this.options.describe({ platform: adapter, chatId: message.chatId, userId: message.userId })}` : ''
    const id = message.messageId ? ` (${message.messageId})` : ''
    this.options.log.info(`dropped a ${adapter} message${chat}${id}: ${message.reason}`)
  }

  droppedCount(adapter: string): number {
    return this.drops.get(adapter) ?? 0
  }

  private count(adapter: string, n = 1): void {
    this.drops.set(adapter, this.droppedCount(adapter) + n)
    this.options.changed?.()
  }
}
