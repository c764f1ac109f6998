// One authenticated connection to Home Assistant's websocket API (home-assistant-js-websocket over
// `ws`, both imported on first use): state-change subscriptions, service calls and states with a
// deadline, a ping watchdog for half-open connections, and the library's reconnect loop, whose
// auth_invalid ends it (reported through onAuthLost). A rejected token on connect is a ConfigError.

import { AgentError, ConfigError, errorMessage, redactSecrets, type Logger } from 'agent/sdk'
import type { Connection, HassEntity, HassEvent, HassServiceTarget } from 'home-assistant-js-websocket'
import { socketFactory } from './socket.ts'

export interface HaClientOptions {
  wsUrl: string
  baseUrl: string
  token: string
  log: Logger
  /** Handshake deadline (default 10 s). */
  connectTimeoutMs?: number
  /** Deadline of a command (default 10 s). */
  commandTimeoutMs?: number
  /** 0 disables the watchdog. */
  pingIntervalMs?: number
  /** The token stopped working while reconnecting: the connection is closed, this one error is final. */
  onAuthLost?(error: ConfigError): void
  /** The library reconnected (subscriptions restored): what happened meanwhile may be read back. */
  onReconnected?(): void
}

/** Home Assistant's `{code, message}` error objects, the library's numeric codes and Errors, as one line. */
function describe(error: unknown, token: string): string {
  let text: string
  if (typeof error === 'number') text = error === 3 ? 'connection lost' : `error ${error}`
  else if (error && typeof error === 'object' && !(error instanceof Error) && 'message' in error) {
    const { code, message } = error as { code?: unknown; message?: unknown }
    text = `${String(message)}${code !== undefined ? ` (${String(code)})` : ''}`
  } else text = errorMessage(error)
  return redactSecrets(text, [token]).split('\n')[0]!
}

function deadline<T>(promise: Promise<T>, ms: number, what: string, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => finish(() => reject(new AgentError('E_TIMEOUT', `Home Assistant did not answer ${what} within ${Math.round(ms / 1000)} s`))), ms)
    const onAbort = () => finish(() => reject(new AgentError('E_INTERRUPTED', `${what} was interrupted`)))
    const finish = (fn: () => void) => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      fn()
    }
    if (signal?.aborted) return onAbort()
    signal?.addEventListener('abort', onAbort, { once: true })
    promise.then((value) => finish(() => resolve(value)), (error) => finish(() => reject(error)))
  })
}

export class HaClient {
  private watchdog: NodeJS.Timeout | undefined
  private pinging = false
  private closed = false

  private constructor(
    private readonly conn: Connection,
    private readonly options: HaClientOptions,
  ) {}

  /** Connects and authenticates once (no retry: the gateway owns retries of a failed start). */
  static async connect(options: HaClientOptions): Promise<HaClient> {
    const [haws, wsModule] = await Promise.all([import('home-assistant-js-websocket'), import('ws')])
    const WebSocket = wsModule.WebSocket ?? (wsModule as unknown as { default: typeof wsModule.WebSocket }).default
    const log = options.log
    const factory = socketFactory({
      WebSocket,
      wsUrl: options.wsUrl,
      token: options.token,
      timeoutMs: options.connectTimeoutMs ?? 10_000,
      invalidAuth: haws.ERR_INVALID_AUTH,
      onSocketError: (error) => log.debug(`websocket error: ${error.message}`),
    })
    let conn: Connection
    try {
      let calls = 0
      conn = await haws.createConnection({
        setupRetry: 0,
        // The first call is this connect; later ones are the library's reconnects.
        createSocket: () => {
          const reconnecting = calls++ > 0
          return factory.create().catch((error) => {
            if (reconnecting) log.debug(`reconnect attempt failed: ${error === haws.ERR_INVALID_AUTH ? 'auth_invalid' : describe(error, options.token)}`)
            throw error
          })
        },
      })
    } catch (error) {
      if (error === haws.ERR_INVALID_AUTH) throw new ConfigError(`Home Assistant at ${options.baseUrl} rejected HASS_TOKEN (auth_invalid: ${factory.authMessage ?? 'no reason given'})`)
      throw new AgentError('E_CONNECT', describe(error, options.token), { cause: error })
    }
    const client = new HaClient(conn, options)
    // Reconnects (the library's loop, 0-5 s apart, subscriptions restored) are logged; a token that
    // stops working ends the loop and is reported once.
    conn.addEventListener('disconnected', () => log.warn('connection to Home Assistant lost; reconnecting'))
    conn.addEventListener('ready', () => {
      log.info(`reconnected to Home Assistant at ${options.baseUrl}`)
      options.onReconnected?.()
    })
    conn.addEventListener('reconnect-error', () => {
      const error = new ConfigError(`Home Assistant at ${options.baseUrl} rejected HASS_TOKEN while reconnecting (auth_invalid: ${factory.authMessage ?? 'no reason given'})`)
      log.error(error.message)
      client.close()
      options.onAuthLost?.(error)
    })
    client.startWatchdog()
    return client
  }

  get haVersion(): string {
    return this.conn.haVersion
  }

  get connected(): boolean {
    return !this.closed && this.conn.connected
  }

  /** Subscribes to `state_changed`; kept across reconnects by the library. */
  async subscribeStateChanges(callback: (event: HassEvent) => void): Promise<void> {
    await this.command(this.conn.subscribeEvents<HassEvent>(callback, 'state_changed'), 'subscribe_events')
  }

  async callService(domain: string, service: string, data?: Record<string, unknown>, target?: HassServiceTarget, signal?: AbortSignal): Promise<unknown> {
    const { callService } = await import('home-assistant-js-websocket')
    return this.command(callService(this.conn, domain, service, data, target), `${domain}.${service}`, signal)
  }

  async states(signal?: AbortSignal): Promise<HassEntity[]> {
    const { getStates } = await import('home-assistant-js-websocket')
    return this.command(getStates(this.conn), 'get_states', signal)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    clearInterval(this.watchdog)
    this.conn.close()
  }

  private async command<T>(promise: Promise<T>, what: string, signal?: AbortSignal): Promise<T> {
    // The library throws ERR_CONNECTION_LOST synchronously-rejected when the socket is down.
    try {
      return await deadline(promise, this.options.commandTimeoutMs ?? 10_000, what, signal)
    } catch (error) {
      if (AgentError.isInstance(error)) throw error
      throw new AgentError('E_HOME_ASSISTANT', `Home Assistant refused ${what}: ${describe(error, this.options.token)}`, { cause: error })
    }
  }

  /** A ping every interval; no pong in time means a half-open connection: drop it so the library reconnects. */
  private startWatchdog(): void {
    const interval = this.options.pingIntervalMs ?? 30_000
    if (interval <= 0) return
    const patience = Math.min(10_000, interval)
    this.watchdog = setInterval(() => {
      if (this.pinging || !this.connected) return
      this.pinging = true
      deadline(this.conn.ping(), patience, 'ping')
        .catch((error) => {
          if (this.closed || !AgentError.isInstance(error) || error.code !== 'E_TIMEOUT') return
          this.options.log.warn(`no pong from Home Assistant within ${Math.round(patience / 1000)} s; reconnecting`)
          ;(this.conn.socket as unknown as { terminate?(): void } | undefined)?.terminate?.()
        })
        .finally(() => (this.pinging = false))
    }, interval)
    this.watchdog.unref?.()
  }
}

/** A connection opened on first use and closed after `idleMs` without use (send() and tools outside a running gateway). */
export class OnDemandConnection {
  private client: HaClient | undefined
  private opening: Promise<HaClient> | undefined
  private timer: NodeJS.Timeout | undefined
  private generation = 0

  constructor(
    private readonly open: () => Promise<HaClient>,
    private readonly idleMs = 30_000,
  ) {}

  async get(): Promise<HaClient> {
    this.touch()
    if (this.client?.connected) return this.client
    this.client?.close()
    this.client = undefined
    const generation = this.generation
    this.opening ??= this.open()
      .then((client) => {
        // Closed while it was opening: serve this one call, then let it go.
        if (generation !== this.generation) setTimeout(() => client.close(), 1_000)
        else this.client = client
        return client
      })
      .finally(() => (this.opening = undefined))
    return this.opening
  }

  close(): void {
    this.generation++
    clearTimeout(this.timer)
    this.client?.close()
    this.client = undefined
  }

  private touch(): void {
    clearTimeout(this.timer)
    this.timer = setTimeout(() => this.close(), this.idleMs)
    this.timer.unref?.()
  }
}
