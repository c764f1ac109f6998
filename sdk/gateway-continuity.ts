// What an adapter uses so that no message is lost across reconnects, re-logins and restarts (issue
// 23): a resume point persisted per adapter (where to continue reading the platform), the backlog
// bound applied to what arrived while it was away, the outbound queue's contract (which send errors
// mean "retry later", the idempotency key of a queued reply) and the report of a message dropped on
// purpose. The gateway service (sdk/gateway.ts) provides them; extensions/gateway/README.md says how.

import { AgentError, errorCode } from './errors.ts'

/**
 * An adapter's resume point: a platform cursor (Matrix's sync token, Telegram's update offset, the
 * last event id or timestamp) kept in the database per adapter (state.db, or PostgreSQL shared by
 * several gateway instances), so a reconnect, a re-login, a restart or another instance taking the
 * adapter over continues where it stopped. `set` resolves once committed (it survives a SIGKILL).
 *
 * Exactly once: advance the cursor only past messages already handed to `dispatch` (or `catchUp`),
 * which records each message id before it returns; a message the platform then delivers again is
 * recognised by its id and not answered twice.
 */
export interface ResumePoint {
  /** The saved cursor, or undefined before the first save (start from "now", as without one). */
  get(): Promise<string | undefined>
  /** Saves the cursor (empty text is refused); resolves once committed. */
  set(cursor: string): Promise<void>
  /** When the cursor was saved (epoch ms), or undefined. */
  savedAt(): Promise<number | undefined>
  /** Forgets it (the platform said the cursor is no longer valid). */
  clear(): Promise<void>
}

/**
 * How much backlog (messages that arrived while the adapter was away) is answered: at most
 * `maxMessages` of the newest, none older than `maxAgeMs`. Older ones get one summary notice per
 * chat. `gateway.backlog.max_messages` / `max_minutes`, per platform `platforms.<name>.backlog.…`.
 */
export interface BacklogBound {
  maxMessages: number
  maxAgeMs: number
}

export const DEFAULT_BACKLOG_BOUND: BacklogBound = { maxMessages: 20, maxAgeMs: 60 * 60_000 }

export interface CatchUpResult {
  /** How many were dispatched (the newest within the bound). */
  dispatched: number
  /** Beyond the bound: summarised in one notice per chat, not answered. */
  summarised: number
  /** Already seen (answered before, or in flight): skipped. */
  duplicates: number
}

/** A message an adapter drops on purpose (reported with `GatewayService.dropped`). */
export interface DroppedMessage {
  reason: string
  chatId?: string
  messageId?: string
  userId?: string
}

/** What `send()` receives from the outbound queue besides the thread. */
export interface QueuedSendOptions {
  threadId?: string
  /**
   * Stable across every retry of one reply part (`<outbox id>-<created at>.<part>`): a platform with idempotent
   * sends (Matrix transaction ids, Telegram none, Slack client_msg_id …) passes it on, so a send
   * retried after a lost response is not shown twice.
   */
  idempotencyKey?: string
}

/** Error codes of a send that may succeed later: the reply stays queued and is retried. */
export const RETRYABLE_DELIVERY_CODES: ReadonlySet<string> = new Set(['E_UNAVAILABLE', 'E_NETWORK', 'E_RATE_LIMITED', 'E_TIMEOUT', 'E_CONNECT', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'])

/**
 * Thrown by an adapter's send() when the platform cannot take the message now (not connected, logged
 * out, rate limited, 5xx): the gateway keeps the reply queued and retries it after the adapter
 * (re)connects, or after `retryAfterMs` when given (a 429's Retry-After).
 */
export class DeliveryDeferred extends AgentError {
  readonly retryAfterMs?: number

  constructor(message: string, options: { cause?: unknown; retryAfterMs?: number; code?: 'E_UNAVAILABLE' | 'E_RATE_LIMITED' } = {}) {
    super(options.code ?? 'E_UNAVAILABLE', message, { cause: options.cause })
    this.name = 'DeliveryDeferred'
    if (options.retryAfterMs !== undefined) this.retryAfterMs = options.retryAfterMs
  }
}

/** Whether a send failure may succeed later (DeliveryDeferred, a retryable code here or on a cause). */
export function isRetryableDelivery(error: unknown): boolean {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current; depth++) {
    const code = errorCode(current)
    if (code && RETRYABLE_DELIVERY_CODES.has(code)) return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

/** The Retry-After a deferred send asked for (ms), if any. */
export function retryAfterOf(error: unknown): number | undefined {
  const value = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined
}

/**
 * Splits a backlog into what is answered and what is only summarised: messages older than the age
 * bound, and all but the newest `maxMessages`, are summarised. Input order is kept; messages without
 * `receivedAt` count as now.
 */
export function boundBacklog<T extends { receivedAt?: number }>(messages: readonly T[], bound: BacklogBound, now: number): { answer: T[]; summarise: T[] } {
  const fresh = messages.filter((m) => now - (m.receivedAt ?? now) <= bound.maxAgeMs)
  const byAge = [...fresh].sort((a, b) => (a.receivedAt ?? now) - (b.receivedAt ?? now))
  const newest = new Set(bound.maxMessages > 0 ? byAge.slice(-bound.maxMessages) : [])
  return { answer: messages.filter((m) => newest.has(m)), summarise: messages.filter((m) => !newest.has(m)) }
}
