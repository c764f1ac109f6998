// The long-lived stream: DingTalk's own SDK (dingtalk-stream, class DWClient: websocket, ping/pong,
// heartbeat, callback acks) with three things changed by subclassing. The "open connection" request
// goes to a configurable URL (the SDK hard-codes it) and tells bad credentials (fatal) from network
// trouble (retried); reconnects back off exponentially with jitter instead of the SDK's fixed 1 s,
// single-flight (the SDK may ask twice for one failure); the access token comes from the
// configurable OpenAPI base; and a SYSTEM `disconnect` (DingTalk announcing that it will close this
// connection, about 10 s later) opens the next connection at once and switches over when it is up,
// the old one serving until then: no gap. Only constructed inside start(): the SDK is imported lazily.

import { AgentError, ConfigError, errorMessage, redactSecrets, type Logger } from 'agent/sdk'
import type { DWClientDownStream } from 'dingtalk-stream'
import type WebSocket from 'ws'
import { networkReason, type AccessTokens, type Credentials } from './rest.ts'

export const TOPIC_ROBOT = '/v1.0/im/bot/messages/get'
/** A connection that stayed up this long starts the backoff afresh when it drops. */
const STABLE_MS = 60_000
const OPEN_TIMEOUT_MS = 15_000

export interface Backoff {
  initialMs: number
  maxMs: number
}

/** Exponential from initialMs, capped at maxMs, with "equal jitter": a delay in [base/2, base]. */
export function backoffDelay(attempt: number, backoff: Backoff, random: () => number = Math.random): number {
  const base = Math.min(backoff.maxMs, backoff.initialMs * 2 ** Math.max(0, Math.min(attempt - 1, 30)))
  return Math.round(base / 2 + (random() * base) / 2)
}

export interface StreamOptions extends Credentials {
  gatewayUrl: string
  apiBase: string
  tokens: AccessTokens
  backoff: Backoff
  log: Logger
  /** A robot message arrived (already acknowledged). */
  onRobotMessage(frame: DWClientDownStream): void
  /** Credentials were refused while reconnecting: the stream gave up. */
  onFatal(error: unknown): void
  /** The stream is up again after a reconnect or a handover (the gateway sends what waited). */
  onReconnected?(): void
  /** The SDK's identification string sent with the open-connection request. */
  ua?: string
}

export interface StreamClient {
  /** Opens the stream once: ConfigError when DingTalk refuses the credentials, another error otherwise. */
  open(): Promise<void>
  /** Closes the stream and stops reconnecting. */
  close(): Promise<void>
  accessToken(): Promise<string>
  /** Reconnect attempts since the connection was last stable. */
  readonly failures: number
}

/** What the SDK keeps private and we need (its TypeScript types hide them). */
interface SdkInternals {
  socket?: WebSocket
  dw_url?: string
  reconnectInterval: number
  heartbeatIntervallId?: NodeJS.Timeout
  userDisconnect: boolean
  config: { clientId: string; clientSecret: string; ua?: string; subscriptions: Array<{ type: string; topic: string }>; access_token?: string; endpoint?: unknown }
}

type Mode = 'idle' | 'opening' | 'open' | 'reconnecting' | 'closed'

export async function createStreamClient(options: StreamOptions): Promise<StreamClient> {
  const { DWClient } = await import('dingtalk-stream')
  const secrets = [options.clientSecret]
  const clean = (text: string) => redactSecrets(text, secrets)
  /** A code from DingTalk's error body, as a short single word in our one-line errors. */
  const codeOf = (data: any) => (typeof data?.code === 'string' && data.code ? ` ${clean(data.code.replace(/\s+/g, ' ').slice(0, 60))}` : '')

  class AgentStreamClient extends DWClient implements StreamClient {
    private mode: Mode = 'idle'
    private timer?: NodeJS.Timeout
    private connectedAt = 0
    private handingOver = false
    failures = 0

    constructor() {
      // keepAlive: the SDK pings every 8 s and drops a connection that stops answering. debug stays
      // off: the SDK's debug output prints its config, client secret included.
      // Only the robot callback is subscribed (the SDK's default adds every organisation event, and
      // its default list is one array shared by every client it builds).
      super({ clientId: options.clientId, clientSecret: options.clientSecret, keepAlive: true, debug: false, ua: options.ua ?? '', subscriptions: [] } as ConstructorParameters<typeof DWClient>[0])
      // The SDK calls connect() again this long after a socket closes; ours applies the backoff.
      this.internals.reconnectInterval = 0
      this.registerCallbackListener(TOPIC_ROBOT, (frame: DWClientDownStream) => {
        // Acknowledge first: DingTalk redelivers a callback that is not acknowledged within 60 s.
        try {
          this.socketCallBackResponse(frame.headers.messageId, { success: true })
        } catch (error) {
          options.log.warn(`cannot acknowledge a DingTalk callback: ${clean(errorMessage(error))}`)
        }
        try {
          options.onRobotMessage(frame)
        } catch (error) {
          options.log.error(`a DingTalk robot message failed: ${clean(errorMessage(error))}`)
        }
      })
    }

    /** The SDK parses every frame without a guard: a malformed one would throw out of the socket handler. */
    override onDownStream(data: string): void {
      try {
        super.onDownStream(data)
      } catch (error) {
        options.log.warn(`ignored a malformed DingTalk stream frame: ${clean(errorMessage(error))}`)
      }
    }

    /** The SDK marks itself unregistered on `disconnect` and waits for the server to close: we move on at once. */
    override onSystem(downstream: DWClientDownStream): void {
      super.onSystem(downstream)
      if (downstream?.headers?.topic === 'disconnect') void this.handOver()
    }

    /** Opens the next connection while the announced-to-close one still serves, then closes the old one. */
    private async handOver(): Promise<void> {
      if (this.mode !== 'open' || this.handingOver) return
      this.handingOver = true
      const old = this.internals.socket
      // Its close is expected now: the SDK's listener must not take it for a lost connection.
      old?.removeAllListeners('close')
      old?.on('close', () => options.log.debug('the previous DingTalk stream connection closed'))
      try {
        await this.getEndpoint()
        if (this.mode !== 'open') return
        await this.connectSocket()
        if (this.mode !== 'open') return void this.internals.socket?.terminate()
        this.connectedAt = Date.now()
        options.log.info('DingTalk announced a disconnect: switched to a new stream connection')
      } catch (error) {
        if (this.mode !== 'open') return
        // The old one closes soon anyway: reconnect as after a drop.
        old?.terminate()
        this.mode = 'reconnecting'
        this.schedule(`the handover after a disconnect notice failed: ${errorMessage(error)}`)
        return
      } finally {
        this.handingOver = false
      }
      if (old && old.readyState === old.OPEN) old.close(1000)
      else old?.terminate()
      options.onReconnected?.()
    }

    private get internals(): SdkInternals {
      return this as unknown as SdkInternals
    }

    /** The SDK's open-connection request, sent to the configured gateway URL. */
    override async getEndpoint(): Promise<this> {
      const config = this.internals.config
      const host = safeHost(options.gatewayUrl)
      let response: Response
      try {
        response = await fetch(options.gatewayUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ clientId: config.clientId, clientSecret: config.clientSecret, ua: config.ua ?? '', subscriptions: config.subscriptions }),
          signal: AbortSignal.timeout(OPEN_TIMEOUT_MS),
        })
      } catch (error) {
        throw new AgentError('E_NETWORK', `cannot reach the DingTalk stream gateway (${host}): ${clean(networkReason(error))}`, { cause: error })
      }
      const text = await response.text().catch(() => '')
      let data: any
      try {
        data = JSON.parse(text)
      } catch {}
      if (response.status === 401 || response.status === 403) {
        throw new ConfigError(`DingTalk refused DINGTALK_CLIENT_ID/DINGTALK_CLIENT_SECRET (HTTP ${response.status}${codeOf(data)}): check the app's client id and client secret`)
      }
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        throw new ConfigError(`the DingTalk stream gateway (${host}) refused the connection request (HTTP ${response.status}${codeOf(data)})`)
      }
      if (!response.ok) throw new AgentError('E_NETWORK', `the DingTalk stream gateway (${host}) answered HTTP ${response.status}`)
      const endpoint = data?.endpoint
      const ticket = data?.ticket
      if (typeof endpoint !== 'string' || !/^wss?:\/\//.test(endpoint) || typeof ticket !== 'string' || !ticket) {
        throw new AgentError('E_NETWORK', `the DingTalk stream gateway (${host}) answered without a websocket endpoint and ticket`)
      }
      this.internals.dw_url = `${endpoint}${endpoint.includes('?') ? '&' : '?'}ticket=${encodeURIComponent(ticket)}`
      return this
    }

    /** The SDK's token call, against the configurable OpenAPI base (the SDK hard-codes its URL). */
    override async getAccessToken(): Promise<string> {
      const token = await options.tokens.get(options.apiBase, options)
      this.internals.config.access_token = token
      return token
    }

    accessToken(): Promise<string> {
      return this.getAccessToken()
    }

    /** The SDK's websocket connect, bounded in time. */
    private async connectSocket(): Promise<void> {
      // The SDK starts a new heartbeat interval on every open without clearing the old one.
      clearInterval(this.internals.heartbeatIntervallId)
      let timer: NodeJS.Timeout | undefined
      try {
        // _connect() creates the socket and its listeners synchronously.
        const connecting = this._connect()
        const socket = this.internals.socket
        if (socket) {
          hush(socket, 'open')
          hush(socket, 'error')
          socket.on('error', (error) => options.log.debug(`DingTalk stream socket error: ${clean(errorMessage(error))}`))
        }
        await Promise.race([
          connecting,
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              this.internals.socket?.terminate()
              reject(new AgentError('E_NETWORK', 'the DingTalk stream websocket did not open in time'))
            }, OPEN_TIMEOUT_MS)
          }),
        ])
      } catch (error) {
        if (AgentError.isInstance(error)) throw error
        throw new AgentError('E_NETWORK', `the DingTalk stream websocket failed: ${clean(errorMessage(error))}`, { cause: error })
      } finally {
        clearTimeout(timer)
      }
    }

    async open(): Promise<void> {
      this.mode = 'opening'
      this.internals.userDisconnect = false
      try {
        await this.getEndpoint()
        await this.connectSocket()
      } catch (error) {
        await this.close()
        throw error
      }
      this.mode = 'open'
      this.connectedAt = Date.now()
    }

    /** Called by the SDK when the socket closes (and, in its own code, when a connect fails). */
    override async connect(): Promise<void> {
      if (this.mode !== 'open') return
      this.mode = 'reconnecting'
      clearInterval(this.internals.heartbeatIntervallId)
      if (Date.now() - this.connectedAt >= STABLE_MS) this.failures = 0
      this.schedule('the connection closed')
    }

    private schedule(reason: string): void {
      if (this.mode !== 'reconnecting' || this.timer) return
      this.failures++
      const delay = backoffDelay(this.failures, options.backoff)
      options.log.warn(`DingTalk stream down (${reason}); reconnecting in ${(delay / 1000).toFixed(1)} s (attempt ${this.failures})`)
      this.timer = setTimeout(() => {
        this.timer = undefined
        void this.reconnect()
      }, delay)
    }

    private async reconnect(): Promise<void> {
      if (this.mode !== 'reconnecting') return
      try {
        await this.getEndpoint()
        if (this.mode !== 'reconnecting') return
        await this.connectSocket()
      } catch (error) {
        if (this.mode !== 'reconnecting') return
        if (AgentError.isInstance(error) && error.code === 'E_CONFIG') {
          options.log.error(`DingTalk stream stopped: ${errorMessage(error)}`)
          await this.close()
          try {
            options.onFatal(error)
          } catch {}
          return
        }
        this.schedule(errorMessage(error))
        return
      }
      if (this.mode !== 'reconnecting') return void this.internals.socket?.terminate()
      this.mode = 'open'
      this.connectedAt = Date.now()
      options.log.warn(`DingTalk stream reconnected after ${this.failures} attempt(s)`)
      options.onReconnected?.()
    }

    async close(): Promise<void> {
      this.mode = 'closed'
      clearTimeout(this.timer)
      this.timer = undefined
      const internals = this.internals
      internals.userDisconnect = true
      clearInterval(internals.heartbeatIntervallId)
      const socket = internals.socket
      internals.socket = undefined
      if (!socket || socket.readyState === socket.CLOSED) return
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => (socket.terminate(), resolve()), 2000)
        socket.once('close', () => (clearTimeout(timer), resolve()))
        if (socket.readyState === socket.OPEN) socket.close(1000)
        else socket.terminate()
      })
    }
  }

  return new AgentStreamClient()
}

/**
 * The SDK's socket listeners print to the console ("connect success" on stdout, a socket error with
 * its stack on stderr). They run as before, with the console silenced for their synchronous run;
 * what matters reaches our log as one line (the reconnect warnings carry the reason).
 */
function hush(socket: WebSocket, event: 'open' | 'error'): void {
  for (const listener of socket.listeners(event) as Array<(...args: unknown[]) => void>) {
    socket.removeListener(event, listener)
    socket.on(event, (...args: unknown[]) => {
      const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error }
      const quiet = () => {}
      Object.assign(console, { log: quiet, info: quiet, warn: quiet, error: quiet })
      try {
        listener.apply(socket, args)
      } finally {
        Object.assign(console, saved)
      }
    })
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'invalid URL'
  }
}
