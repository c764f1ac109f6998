// The matrix-js-sdk side of the adapter: loading the SDK lazily, routing its process-wide logger into
// the adapter's debug log (redacted, one line each, never the console), a fetch that can abort
// everything in flight when the client closes, signing in (whoami for a token, /login for a
// password), waiting for the first sync of a started client, and turning SDK errors into one-line
// agent errors: refused credentials are ConfigErrors (fatal), unreachable or failing homeservers are
// retryable.

import { AgentError, ConfigError, errorMessage, shortHash } from 'agent/sdk'
import type { MatrixClient } from 'matrix-js-sdk'
import type { Credentials } from './settings.ts'

export type Sdk = typeof import('matrix-js-sdk')

/** Requests that name no timeout of their own (the /sync long-poll does) give up after this long. */
const REQUEST_TIMEOUT_MS = 30_000
const DEVICE_NAME = 'agent gateway'
/** Error codes that mean the credentials themselves are wrong: retrying cannot help. */
const REFUSED = new Set(['M_UNKNOWN_TOKEN', 'M_MISSING_TOKEN', 'M_FORBIDDEN', 'M_USER_DEACTIVATED', 'M_INVALID_USERNAME', 'M_USER_LOCKED', 'M_USER_SUSPENDED'])

interface SdkLogger {
  methodFactory: (method: string, level: number, name: string | symbol) => (...args: unknown[]) => void
  getLevel(): number
  setLevel(level: number, persist?: boolean): void
  getChild(namespace: string): SdkLogger
}

/** Children the SDK creates when its modules load (before any patch could see them). */
const SDK_CHILD_LOGGERS = ['MatrixRTCSession', 'MatrixRTCSessionManager']

function describeArg(arg: unknown): string {
  if (typeof arg === 'string') return arg
  if (arg instanceof Error) return errorMessage(arg)
  try {
    return JSON.stringify(arg) ?? String(arg)
  } catch {
    return String(arg)
  }
}

const SINK = Symbol.for('agent.matrix.log-sink')
type PatchedLogger = SdkLogger & { [SINK]?: (line: string) => void }

/**
 * Sends everything the SDK logs (its loglevel logger is process-wide) to `sink` as one line per call;
 * a later call only swaps the sink. The logger's children made at module load are patched by name,
 * later ones as they are created.
 */
export async function routeSdkLogs(sink: (line: string) => void): Promise<void> {
  const { logger } = (await import('matrix-js-sdk/lib/logger.js')) as unknown as { logger: PatchedLogger }
  const patched = Boolean(logger[SINK])
  logger[SINK] = sink
  if (patched) return
  const factory: SdkLogger['methodFactory'] = () => (...args) => logger[SINK]?.(args.map(describeArg).join(' ').replace(/\s+/g, ' ').slice(0, 500))
  const patch = (target: SdkLogger) => {
    target.methodFactory = factory
    target.setLevel(target.getLevel(), false)
  }
  patch(logger)
  for (const name of SDK_CHILD_LOGGERS) patch(logger.getChild(name))
  const getChild = logger.getChild
  logger.getChild = function (namespace: string) {
    const child = getChild.call(this, namespace)
    if (child.methodFactory !== factory) patch(child)
    return child
  }
}

/** A fetch whose requests all abort on close(); afterwards new requests fail at once. */
export function closableFetch(): { fetch: typeof globalThis.fetch; close(): void } {
  const inflight = new Set<AbortController>()
  let closed = false
  return {
    async fetch(input, init) {
      if (closed) throw new Error('the Matrix client is stopped')
      const controller = new AbortController()
      const outer = init?.signal
      if (outer?.aborted) controller.abort(outer.reason)
      outer?.addEventListener('abort', () => controller.abort(outer.reason), { once: true })
      inflight.add(controller)
      try {
        return await globalThis.fetch(input, { ...init, signal: controller.signal })
      } finally {
        inflight.delete(controller)
      }
    },
    close() {
      closed = true
      for (const controller of inflight) controller.abort(new Error('the Matrix client is stopped'))
      inflight.clear()
    },
  }
}

interface HttpFailure {
  httpStatus?: number
  errcode?: string
  data?: { error?: unknown }
}

/** The innermost error code of a network failure (ECONNREFUSED …), if any. */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 5 && current; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

/** `HTTP 403 M_FORBIDDEN: reason`, or the network failure: for log lines and delivery errors. */
export function describeFailure(error: unknown): string {
  const failure = error as HttpFailure
  if (typeof failure?.httpStatus === 'number') {
    const detail = typeof failure.data?.error === 'string' ? failure.data.error.replace(/\s+/g, ' ').slice(0, 200) : undefined
    return `HTTP ${failure.httpStatus}${[failure.errcode, detail].filter(Boolean).length ? ` ${[failure.errcode, detail].filter(Boolean).join(': ')}` : ''}`
  }
  const code = networkCode(error)
  const message = errorMessage(error)
  return code && !message.includes(code) ? `${message} (${code})` : message
}

/**
 * One line for a failed request. Credentials refused → ConfigError naming the variable to fix; a
 * homeserver that is not one (404) → ConfigError; rate limits, 5xx and network failures → retryable.
 */
export function matrixFailure(error: unknown, context: { host: string; credential: string }): AgentError {
  const failure = error as HttpFailure
  const status = typeof failure?.httpStatus === 'number' ? failure.httpStatus : undefined
  const errcode = typeof failure?.errcode === 'string' ? failure.errcode : undefined
  const what = describeFailure(error)
  if (status === undefined) return new AgentError('E_UNAVAILABLE', `cannot reach the Matrix homeserver (${context.host}): ${what}`, { cause: error })
  if ((status === 401 || status === 403) && (!errcode || REFUSED.has(errcode))) {
    return new ConfigError(`the Matrix homeserver (${context.host}) refused ${context.credential} (${what})`, { cause: error })
  }
  if (status === 404 || status === 405) return new ConfigError(`MATRIX_HOMESERVER (${context.host}) does not serve the Matrix client API (${what})`, { cause: error })
  return new AgentError('E_UNAVAILABLE', `the Matrix homeserver (${context.host}) answered ${what}`, { cause: error })
}

type RequestOtherUrl = (method: string, url: URL | string, body?: unknown, opts?: { localTimeoutMs?: number; abortSignal?: AbortSignal; [key: string]: unknown }) => Promise<unknown>

/**
 * A client whose requests time out through Node's own AbortSignal.timeout. matrix-js-sdk 34 arms its
 * local timeouts with a ponyfill that never clears its (ref'd) timer: every /sync would leave one of
 * up to 110 s behind and keep a stopped gateway process alive. Every request goes through the
 * instance's requestOtherUrl, so the bound is moved there and the client itself is given none.
 */
function makeClient(sdk: Sdk, options: Parameters<Sdk['createClient']>[0]): MatrixClient {
  const client = sdk.createClient(options)
  const http = client.http as unknown as { requestOtherUrl: RequestOtherUrl }
  const original = http.requestOtherUrl.bind(http)
  http.requestOtherUrl = (method, url, body, opts = {}) => {
    const signals = [AbortSignal.timeout(opts.localTimeoutMs ?? REQUEST_TIMEOUT_MS), ...(opts.abortSignal ? [opts.abortSignal] : [])]
    return original(method, url, body, { ...opts, localTimeoutMs: undefined, abortSignal: AbortSignal.any(signals) })
  }
  return client
}

export interface Session {
  userId: string
  deviceId?: string
  accessToken: string
}

/**
 * Signs in: an access token is checked with whoami; a password logs in on a device id derived from
 * the agent home and user, so restarts reuse one device instead of piling up new ones.
 */
export async function signIn(sdk: Sdk, options: { baseUrl: string; credentials: Credentials; home: string; fetch: typeof globalThis.fetch; cached?: Session }): Promise<Session> {
  const host = new URL(options.baseUrl).host
  const credentials = options.credentials
  const token = credentials.kind === 'token' ? credentials.accessToken : options.cached?.accessToken
  if (token) {
    const probe = makeClient(sdk, { baseUrl: options.baseUrl, accessToken: token, fetchFn: options.fetch })
    let who: { user_id: string; device_id?: string } | undefined
    try {
      who = await probe.whoami()
    } catch (error) {
      const failure = matrixFailure(error, { host, credential: credentials.kind === 'token' ? 'MATRIX_ACCESS_TOKEN' : 'the token of the last login' })
      // A remembered login token that stopped working is replaced by a fresh login below.
      if (credentials.kind === 'token' || !ConfigError.isInstance(failure)) throw failure
    }
    if (who) {
      if (credentials.userId && who.user_id.toLowerCase() !== credentials.userId.toLowerCase()) throw new ConfigError(`MATRIX_ACCESS_TOKEN belongs to ${who.user_id}, not to MATRIX_USER_ID ${credentials.userId}`)
      return { userId: who.user_id, ...(who.device_id ? { deviceId: who.device_id } : {}), accessToken: token }
    }
  }
  if (credentials.kind !== 'password') throw new ConfigError('the Matrix adapter needs MATRIX_ACCESS_TOKEN, or MATRIX_USER_ID and MATRIX_PASSWORD')
  const anonymous = makeClient(sdk, { baseUrl: options.baseUrl, fetchFn: options.fetch })
  try {
    const response = await anonymous.login('m.login.password', {
      identifier: { type: 'm.id.user', user: credentials.userId },
      password: credentials.password,
      device_id: `AGENT${shortHash(`${options.home}\n${credentials.userId}`, 10).toUpperCase()}`,
      initial_device_display_name: DEVICE_NAME,
    })
    return { userId: response.user_id, ...(response.device_id ? { deviceId: response.device_id } : {}), accessToken: response.access_token }
  } catch (error) {
    throw matrixFailure(error, { host, credential: 'MATRIX_USER_ID/MATRIX_PASSWORD' })
  }
}

/** The client of a signed-in session (not started). */
export function createSessionClient(sdk: Sdk, baseUrl: string, session: Session, fetch: typeof globalThis.fetch): MatrixClient {
  return makeClient(sdk, {
    baseUrl,
    accessToken: session.accessToken,
    userId: session.userId,
    ...(session.deviceId ? { deviceId: session.deviceId } : {}),
    fetchFn: fetch,
    timelineSupport: false,
  })
}

/**
 * Stops a client for good: the sync loop, every request in flight, and the SDK's capability refresh
 * timer (whose in-flight fetch, if any, would re-arm it after stopClient and keep the process alive).
 */
export async function closeClient(client: MatrixClient, fetch: { close(): void }): Promise<void> {
  client.stopClient()
  fetch.close()
  await new Promise((resolve) => setTimeout(resolve, 20))
  // A private member in matrix-js-sdk 34.x (pinned): stopped again once the aborted fetch has settled.
  ;(client as unknown as { serverCapabilitiesService?: { stop?: () => void } }).serverCapabilitiesService?.stop?.()
  client.removeAllListeners()
}

/** Resolves on the first completed sync; a refused token is fatal, silence past the bound is retryable. */
export function firstSync(sdk: Sdk, client: MatrixClient, options: { signal: AbortSignal; host: string; credential: string; timeoutMs: number }): Promise<void> {
  const { signal, host, credential, timeoutMs } = options
  return new Promise((resolve, reject) => {
    let lastError: unknown
    const finish = (settle: () => void) => {
      clearTimeout(timer)
      client.off(sdk.ClientEvent.Sync, onSync)
      signal.removeEventListener('abort', onAbort)
      settle()
    }
    const onSync = (now: string, _before: string | null, data?: { error?: unknown }) => {
      if (now === 'PREPARED' || now === 'SYNCING') return finish(resolve)
      if (data?.error) lastError = data.error
      if ((data?.error as { errcode?: string } | undefined)?.errcode === 'M_UNKNOWN_TOKEN') finish(() => reject(matrixFailure(data!.error, { host, credential })))
    }
    const onAbort = () => finish(() => reject(new AgentError('E_INTERRUPTED', 'the Matrix adapter was stopped while connecting')))
    const timer = setTimeout(() => finish(() => reject(new AgentError('E_UNAVAILABLE', `the first Matrix sync did not finish within ${Math.round(timeoutMs / 1000)} s${lastError ? ` (${describeFailure(lastError)})` : ''}`))), timeoutMs)
    client.on(sdk.ClientEvent.Sync, onSync)
    signal.addEventListener('abort', onAbort, { once: true })
    if (signal.aborted) onAbort()
  })
}
