// The Socket Mode connection (@slack/socket-mode): apps.connections.open with the app-level token
// gives a websocket URL, Slack says hello on it, then sends envelopes; each one is acknowledged at once
// and handed on. The SDK's own reconnect loop is off (its failures become unhandled rejections); this
// file reconnects with exponential backoff instead: at once-ish after Slack asks for a refresh, longer
// while Slack is unreachable, and after `watchdogMs` down the gateway takes over (it restarts the
// adapter with its own backoff). A refused token or Socket Mode turned off is reported as
// configuration.

import { AgentError, ConfigError, errorMessage, settleWithin, type Logger } from 'agent/sdk'
import type { Logger as SlackLogger } from '@slack/web-api'
import type { SocketModeClient } from '@slack/socket-mode'
import { classify, type SocketModeModule } from './web.ts'

const FIRST_RETRY_MS = 500
const MAX_RETRY_MS = 30_000
/** A connection up this long counts as healthy: its next reconnect starts the backoff again. */
const STABLE_MS = 30_000
/** Longest wait for the SDK to close the websocket. */
const CLOSE_MS = 3000
/** Longest wait for an abandoned attempt's URL request (the Web API client's timeout and one retry). */
const SETTLE_MS = 35_000

export interface Envelope {
  type: string
  envelopeId: string
  body: any
}

export interface ConnectionOptions {
  socketMode: SocketModeModule
  appToken: string
  /** The Web API base (apps.connections.open is a Web API method). */
  base: string
  logger: SlackLogger
  log: Logger
  connectTimeoutMs: number
  /** Down this long, the connection is handed to the gateway; 0: never. */
  watchdogMs: number
  clean(text: string): string
  /** Every envelope, after it was acknowledged. */
  onEnvelope(envelope: Envelope): void
  /** The connection is gone for good (configuration) or for too long: the gateway restarts the adapter. */
  onLost(error: AgentError): void
  /** The connection is back after a reconnect of its own. */
  onBack(): void
}

type Phase = 'idle' | 'connecting' | 'up' | 'down' | 'closed'

export class SocketConnection {
  private readonly client: SocketModeClient
  private phase: Phase = 'idle'
  private failures = 0
  private upSince = 0
  private downSince: number | undefined
  private timer: NodeJS.Timeout | undefined
  /** Set when Slack's disconnect says Socket Mode is off for the app. */
  private fatal: ConfigError | undefined
  private lastError: unknown
  private readonly host: string

  constructor(private readonly options: ConnectionOptions) {
    this.host = new URL(options.base).host
    this.client = new options.socketMode.SocketModeClient({
      appToken: options.appToken,
      logger: options.logger,
      autoReconnectEnabled: false,
      clientOptions: { slackApiUrl: options.base, timeout: 15_000, retryConfig: { retries: 1, minTimeout: 300, maxTimeout: 1000 } },
    })
    this.client.on('slack_event', (event: { ack(response?: unknown): Promise<void>; type: string; envelope_id: string; body: unknown }) => {
      // Acknowledged before anything else: Slack redelivers an envelope not acknowledged within 3 s.
      event.ack().catch((error) => options.log.debug(`could not acknowledge Slack envelope ${event.envelope_id}: ${options.clean(errorMessage(error))}`))
      setImmediate(() => options.onEnvelope({ type: event.type, envelopeId: event.envelope_id, body: event.body }))
    })
    this.client.on('ws_message', (data: unknown) => this.peek(data))
    this.client.on('error', (error: unknown) => (this.lastError = error))
    this.client.on('connected', () => this.connected())
    this.client.on('disconnected', () => this.disconnected())
  }

  /** The first connection: resolves on Slack's hello, throws a classified error otherwise. */
  async open(signal: AbortSignal): Promise<void> {
    this.phase = 'connecting'
    try {
      await this.attempt(signal)
    } catch (error) {
      this.phase = 'idle'
      throw error
    }
  }

  async close(): Promise<void> {
    this.phase = 'closed'
    clearTimeout(this.timer)
    await this.shut()
  }

  /** Slack's `disconnect` message says why; `link_disabled` means Socket Mode was turned off. */
  private peek(data: unknown): void {
    const text = typeof data === 'string' ? data : data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? Buffer.from(data as ArrayBuffer).toString('utf8') : ''
    if (!text.includes('"disconnect"')) return
    let reason: unknown
    try {
      const message = JSON.parse(text)
      if (message?.type !== 'disconnect') return
      reason = message.reason
    } catch {
      return
    }
    this.options.log.info(`Slack asked for a new Socket Mode connection (${String(reason)})`)
    if (reason === 'link_disabled') this.fatal = new ConfigError('Slack turned Socket Mode off for this app (disconnect: link_disabled): enable it under Settings → Socket Mode')
  }

  private connected(): void {
    if (this.phase === 'closed') return
    const back = this.downSince !== undefined
    this.upSince = Date.now()
    this.downSince = undefined
    if (!back) return
    this.options.log.info('the Slack Socket Mode connection is back')
    this.options.onBack()
  }

  private disconnected(): void {
    if (this.phase !== 'up') return
    this.phase = 'down'
    this.downSince = Date.now()
    // A connection that held is reconnected at once-ish; one that keeps dropping right after hello backs off.
    this.failures = this.downSince - this.upSince >= STABLE_MS ? 0 : this.failures + 1
    this.options.log.info('the Slack Socket Mode connection closed; reconnecting')
    this.schedule()
  }

  private schedule(): void {
    if (this.phase === 'closed') return
    if (this.fatal) return this.lose(this.fatal)
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** this.failures)
    this.timer = setTimeout(() => void this.reconnect(), delay)
    this.timer.unref?.()
  }

  private async reconnect(): Promise<void> {
    if (this.phase !== 'down') return
    const down = Date.now() - (this.downSince ?? Date.now())
    if (this.options.watchdogMs > 0 && down >= this.options.watchdogMs) {
      return this.lose(new AgentError('E_NETWORK', `the Slack Socket Mode connection did not come back within ${Math.round(this.options.watchdogMs / 1000)} s`))
    }
    this.phase = 'connecting'
    try {
      await this.attempt(new AbortController().signal)
    } catch (error) {
      if ((this.phase as Phase) === 'closed') return
      this.phase = 'down'
      this.failures++
      if (AgentError.isInstance(error) && error.code === 'E_CONFIG') return this.lose(error)
      this.options.log.debug(`Slack reconnect attempt ${this.failures} failed: ${this.options.clean(errorMessage(error))}`)
      this.schedule()
    }
  }

  private lose(error: AgentError): void {
    if (this.phase === 'closed') return
    this.phase = 'down'
    this.options.log.error(`Slack connection stopped: ${error.message}`)
    this.options.onLost(error)
  }

  /** One connection attempt: a fresh URL, the websocket, Slack's hello; closed again on failure. */
  private async attempt(signal: AbortSignal): Promise<void> {
    this.lastError = undefined
    const started = this.client.start()
    started.catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    let onAbort: (() => void) | undefined
    const seconds = Math.round(this.options.connectTimeoutMs / 1000)
    const stop = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AgentError('E_NETWORK', `Slack did not say hello on the Socket Mode connection within ${seconds} s`)), this.options.connectTimeoutMs)
      onAbort = () => reject(new AgentError('E_INTERRUPTED', 'the Slack adapter was stopped while connecting'))
      if (signal.aborted) onAbort()
      else signal.addEventListener('abort', onAbort, { once: true })
    })
    stop.catch(() => undefined)
    try {
      await Promise.race([started, stop])
      if (this.fatal) throw this.fatal
      if ((this.phase as Phase) === 'closed') throw new AgentError('E_INTERRUPTED', 'the Slack adapter was stopped while connecting')
      this.phase = 'up'
    } catch (error) {
      await this.shut()
      // A start still fetching its URL would open a socket after this: wait for it (bounded), close again.
      await settleWithin(started, SETTLE_MS)
      await this.shut()
      // The SDK rejects without a reason when the websocket closes before hello: its last error says why.
      const cause = error ?? this.lastError ?? new Error('the Socket Mode connection closed before Slack said hello')
      throw classify(cause, 'SLACK_APP_TOKEN', this.host, this.options.clean)
    } finally {
      clearTimeout(timer)
      if (onAbort) signal.removeEventListener('abort', onAbort)
    }
  }

  private async shut(): Promise<void> {
    await settleWithin(this.client.disconnect(), CLOSE_MS)
  }
}
