// The messaging gateway's services as other extensions see them: inbound dispatch (adapters hand
// every chat message to the gateway), delivery (cron, /background, webhooks, approvals send text to a
// chat, a code-hosting comment or the log), background-process notifications, and the pure helpers
// (session keys, notification levels) every party must compute the same way.

import { createHash } from 'node:crypto'
import type { ChatConversation } from './chat.ts'
import type { CatchUpResult, DroppedMessage, ResumePoint } from './gateway-continuity.ts'
import type { AdapterDefinition, CliSubcommand, MessageSource, Settings } from './types.ts'

export const GATEWAY_SERVICE = 'gateway'
export const DELIVERY_SERVICE = 'delivery'
export const GATEWAY_AUTH_SERVICE = 'gateway-auth'

// ---------------------------------------------------------------------------------------------
// Adapters

/**
 * What a gateway adapter may declare beyond AdapterDefinition (extra fields on the registered object).
 * The gateway reads them at call time.
 */
export interface GatewayAdapter extends AdapterDefinition {
  /** Shows a typing indicator in a chat; the gateway waits a human-like delay after calling it. */
  typing?(chatId: string): Promise<void>
  /** Longest message the platform accepts; the delivery service splits longer text. */
  maxMessageLength?: number
  /** true when send() splits long text itself (then the delivery service does not). */
  splitsLongMessages?: boolean
  /**
   * Where a delivery to this platform goes when it names no chat and no home channel is set: for a
   * platform with one natural destination (a smart-home hub's notifications).
   */
  defaultChatId?: string
  /** `agent gateway <name>` subcommands the platform adds (`slack-manifest` …); the gateway's own names win. */
  cliSubcommands?: Record<string, CliSubcommand>
  /**
   * Graceful drain before stop() (SIGTERM to `agent gateway run`): refuse new work, resolve when the
   * work under way has finished. The gateway bounds the wait (gateway.drain_timeout_seconds), then stops.
   */
  drain?(): Promise<void>
  /**
   * true for intake that is only an HTTP endpoint (the API server, webhooks): it runs on every
   * gateway instance. Otherwise (a long poll, a websocket, a sync loop) the adapter runs on one
   * instance at a time, the one holding the lease `adapter:<name>`; the others wait on `standby`.
   */
  everyInstance?: boolean
}

/** `1`, `true`, `yes` or `on` (any case): an environment switch that is on. */
export function envSwitchOn(value: string | undefined): boolean {
  return /^(1|true|yes|on)$/i.test(value?.trim() ?? '')
}

/** `api_server` → `API_SERVER`: the prefix of a platform's environment variables. */
export function platformEnvPrefix(platform: string): string {
  return platform.toUpperCase().replace(/[^A-Z0-9]/g, '_')
}

/**
 * A per-platform gateway setting (allowlists, home channel …): the variable `<PLATFORM>_<NAME>`
 * (process environment, then .env) wins; else `platforms.<platform>.extra.<name in lower case>` of
 * the user's own config.yaml (never a project's), a list read as a comma list, a boolean as
 * true/false.
 */
export function platformSetting(settings: Settings, platform: string, name: string): string | undefined {
  const fromEnv = settings.env(`${platformEnvPrefix(platform)}_${name}`)
  if (fromEnv !== undefined) return fromEnv
  const path = `platforms.${platform}.extra.${name.toLowerCase()}`
  const value = settings.getOwn ? settings.getOwn(path) : settings.get(path)
  if (Array.isArray(value)) return value.map(String).join(',')
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : undefined
}

/**
 * Whether `agent gateway run` starts a platform's adapter, the same rule for every platform:
 * `platforms.<name>.enabled: false` wins; `true`, or the environment switch (`SMS_ENABLED` …) on,
 * enables it; otherwise it runs when its credentials are present.
 */
export function platformEnabled(settings: Settings, platform: string, switchEnv: string, credentialsPresent: () => boolean): boolean {
  const configured = settings.get<boolean>(`platforms.${platform}.enabled`)
  if (configured === false) return false
  if (configured === true || envSwitchOn(settings.env(switchEnv))) return true
  return credentialsPresent()
}

// A ConfigError thrown by start() is fatal (bad configuration: no retry, `gateway run` exits 2);
// any other start failure is retried with exponential backoff.

/** One message from a chat platform, handed by its adapter to `GatewayService.dispatch`. */
export interface GatewayInbound {
  source: MessageSource & { threadId?: string }
  text: string
  /** Platform message id (dedup, replies). */
  messageId?: string
  receivedAt?: number
}

export type DispatchStatus =
  /** Queued for (or started on) the chat's session. */
  | 'queued'
  /** A slash command, run at once (never queued behind a running turn). */
  | 'command'
  /** Sender not authorised and nothing was sent back. */
  | 'denied'
  /** Sender not authorised; a pairing code was sent. */
  | 'pairing'
  /** An inboundMessage hook tap handled or refused it. */
  | 'handled'
  /** Empty text, duplicate message id … */
  | 'ignored'

export interface DispatchResult {
  status: DispatchStatus
  sessionKey: string
  /** Settles when the work caused by this message (command, agent turn and reply) is finished. */
  done: Promise<void>
}

/**
 * The chat controller the gateway gives to slash commands (`SlashContext.chat`): the shared
 * ChatConversation (sdk/chat.ts) of one chat, plus where that chat is.
 */
export interface GatewayChatController extends ChatConversation {
  readonly source: MessageSource & { threadId?: string }
  /** The routing key of this chat (gatewaySessionKey). */
  readonly sessionKey: string
  /** Sends text to this chat now. */
  send(text: string): Promise<void>
}

/** Every state an adapter may be in (`standby`: another gateway instance holds its lease). */
export const ADAPTER_STATES = ['starting', 'running', 'retrying', 'standby', 'failed', 'stopped'] as const

export interface AdapterStatus {
  name: string
  state: (typeof ADAPTER_STATES)[number]
  /** While on standby: the instance holding the adapter's lease (host:pid:id). */
  heldBy?: string
  attempts: number
  lastError?: string
  /** Epoch ms of the next reconnect attempt while retrying. */
  nextAttemptAt?: number
  /** Messages dropped on purpose since the gateway started (each logged at info with its reason). */
  dropped?: number
  /** Replies waiting in the outbound queue for this platform. */
  queued?: number
  /** Replies given up (too old or too many attempts; each logged with its chat and reason). */
  failedDeliveries?: number
}

export interface GatewayService {
  /** Adapters call this for every inbound chat message (authorisation, commands, per-chat queue). */
  dispatch(message: GatewayInbound): Promise<DispatchResult>
  /** An adapter lost its connection: the gateway restarts it with exponential backoff. */
  connectionLost(adapter: string, error: unknown): void
  /** Adapter lifecycle states. */
  status(): AdapterStatus[]
  /** true once `agent gateway run` began its graceful drain (a readiness probe answers 503 then). */
  draining?(): boolean
  /** The session a chat currently continues, if any (routes live in the shared storage, hence async). */
  sessionFor(source: MessageSource & { threadId?: string }): Promise<string | undefined>
  /** A random human-like typing delay within the configured bounds (ms). */
  typingDelay(): number
  /** Sends a background-process notification to a chat if the configured level lets it through. */
  notifyBackground(source: MessageSource, event: BackgroundEvent): Promise<boolean>
  /**
   * The adapter's resume point (sdk/gateway-continuity.ts): a cursor persisted in state.db so a
   * reconnect, re-login or restart continues where it stopped.
   */
  resumePoint(adapter: string): ResumePoint
  /**
   * Hands over the messages that arrived while the adapter was away (read from the resume point),
   * oldest first: the backlog bound applies (the newest N within T minutes are dispatched, the others
   * get one summary notice per chat), ids already seen are skipped. Resolves once all are dispatched.
   */
  catchUp(adapter: string, messages: GatewayInbound[]): Promise<CatchUpResult>
  /** An adapter drops a message on purpose: logged at info with the reason, counted in status(). */
  dropped(adapter: string, message: DroppedMessage): void
  /**
   * The adapter is connected again after reconnecting on its own (a library's internal reconnect):
   * the replies queued for it are sent now. Not needed after start(): the gateway does it then.
   */
  connected(adapter: string): void
  /**
   * Takes a delivery its adapter could not send now (a retryable failure, or the adapter is down)
   * into the outbox, when this process runs that adapter (`agent gateway run`): true when queued;
   * false elsewhere (a CLI process: the caller reports the failure). `partsSent` parts of the text
   * (split as the outbox splits it) already went out.
   */
  queueDelivery(delivery: { platform: string; chatId: string; threadId?: string; text: string; partsSent?: number }): boolean
}

// ---------------------------------------------------------------------------------------------
// Authorisation

export type AuthDecision =
  | { allowed: true; reason: string }
  | { allowed: false; reason: string; /** what to do with an unauthorised DM */ action: 'pair' | 'ignore' }

export interface PendingPairing {
  platform: string
  userId: string
  userName?: string
  createdAt: number
  expiresAt: number
  /** Set while failed approvals lock this pairing (its right code is refused too): when the lock lifts. */
  lockedUntil?: number
}

export interface ApprovedPairing {
  platform: string
  userId: string
  userName?: string
  approvedAt: number
}

export interface GatewayAuthService {
  /** Default deny; decides on the stable user id only, never the display name. Pairings live in the shared storage, hence async. */
  authorize(source: MessageSource): Promise<AuthDecision>
  /**
   * Whether the sender is named by id in `<PLATFORM>_ALLOWED_USERS` or `GATEWAY_ALLOWED_USERS`: a
   * person the owner listed, not one let in by `*`, an allow-all switch, a group list or a pairing.
   * Only they may grant what outlives the session (`/approve always` saves to config).
   */
  namesUser(source: MessageSource): boolean
  /** Issues a pairing code for an unknown DM sender, or undefined when rate limited / too many pending. */
  requestPairing(source: MessageSource): Promise<{ code: string; expiresAt: number } | undefined>
  /** Approves a pending code (once, across instances); rejects with a one-line AgentError when unknown, expired or locked out. */
  approve(code: string): Promise<ApprovedPairing>
  revoke(platform: string, userId: string): Promise<boolean>
  pending(): Promise<PendingPairing[]>
  approved(): Promise<ApprovedPairing[]>
}

// ---------------------------------------------------------------------------------------------
// Delivery

export type DeliveryTarget =
  /** A chat of a platform; no chatId means the platform's home channel. */
  | { kind: 'chat'; platform: string; chatId?: string; threadId?: string }
  /** A comment on an issue or pull request of the code host (REST API, base URL configurable). */
  | { kind: 'code-comment'; host: 'github'; repo: string; number: number }
  | { kind: 'log' }

export interface DeliveryReceipt {
  target: DeliveryTarget
  /** Number of messages sent (long text is split for platforms that need it). */
  parts: number
  /** Where it went, without secrets (e.g. `sms:+155****4567`, `github:owner/repo#12`, `log`). */
  description: string
  /**
   * The platform could not take it now and the running gateway queued it in its outbox (sent once
   * the adapter is back, see GatewayService.queueDelivery); `parts` counts the parts sent so far.
   */
  queued?: boolean
}

export interface HomeChannel {
  platform: string
  chatId: string
  name: string
  threadId?: string
}

export interface DeliveryService {
  /**
   * Sends text to a target, or back to the chat a message came from (a MessageSource). Throws a
   * one-line AgentError (no secrets) when it cannot: unknown platform, no home channel, REST failure.
   */
  send(to: DeliveryTarget | MessageSource, text: string): Promise<DeliveryReceipt>
  /**
   * Parses a `deliver` setting: `log`, `origin` (needs origin), `github_comment` (needs
   * `extra.repo` and `extra.pr_number` or `extra.issue_number`), `<platform>` (extra.chat_id,
   * else the home channel) or `<platform>:<chat_id>`.
   */
  parse(spec: string, extra?: Record<string, unknown>, origin?: MessageSource): DeliveryTarget
  /** `<PLATFORM>_HOME_CHANNEL` (+ `_NAME`, default "Home", + `_THREAD_ID`). */
  homeChannel(platform: string): HomeChannel | undefined
}

// ---------------------------------------------------------------------------------------------
// Background process notifications

export type BackgroundNotificationLevel = 'all' | 'result' | 'error' | 'off'
export const BACKGROUND_NOTIFICATION_LEVELS: readonly BackgroundNotificationLevel[] = ['all', 'result', 'error', 'off']

export type BackgroundEvent =
  /** Running output of a background process. */
  | { kind: 'output'; processId: string; text: string }
  /** The process ended. */
  | { kind: 'exit'; processId: string; exitCode: number; text: string }

/** all: output and exits; result: exits only; error: non-zero exits only; off: nothing. */
export function shouldNotify(level: BackgroundNotificationLevel, event: BackgroundEvent): boolean {
  if (level === 'off') return false
  if (level === 'all') return true
  if (event.kind !== 'exit') return false
  return level === 'result' || event.exitCode !== 0
}

// ---------------------------------------------------------------------------------------------
// Session routing

/**
 * The routing key of a chat: one session per chat. DMs are keyed by chat (else the user, so two
 * users never share one); group chats are per user inside the chat; threads are their own chat.
 */
export function gatewaySessionKey(source: MessageSource & { threadId?: string }): string {
  const kind = source.chatType ?? 'dm'
  const chat = source.chatId ?? source.userId ?? 'unknown'
  const thread = source.threadId ? `:${source.threadId}` : ''
  const user = kind !== 'dm' && source.userId ? `:${source.userId}` : ''
  return `agent:main:${source.platform}:${kind}:${chat}${thread}${user}`
}

/** A short stable hash (hex) used to scope names by a path, e.g. the gateway service name by AGENT_HOME. */
export function shortHash(text: string, length = 8): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length)
}

/**
 * Splits text into parts of at most `max` characters, breaking at the last newline, else the last
 * space, inside each window; a part with neither is cut hard.
 */
export function splitText(text: string, max: number): string[] {
  if (max < 1) throw new RangeError('max must be at least 1')
  const parts: string[] = []
  let rest = text
  while (rest.length > max) {
    const window = rest.slice(0, max + 1)
    let cut = window.lastIndexOf('\n')
    if (cut <= 0) cut = window.lastIndexOf(' ')
    if (cut <= 0) cut = max
    const part = rest.slice(0, cut).trimEnd()
    if (part) parts.push(part)
    rest = rest.slice(cut).replace(/^[\n ]+/, '')
  }
  if (rest.trim()) parts.push(rest)
  return parts
}

/** The parts a text is sent in to an adapter: split by its maxMessageLength unless it splits itself. */
export function adapterParts(adapter: Pick<GatewayAdapter, 'maxMessageLength' | 'splitsLongMessages'>, text: string): string[] {
  return adapter.maxMessageLength && !adapter.splitsLongMessages ? splitText(text, adapter.maxMessageLength) : [text]
}
