// Helpers every provider extension shares (built-in or third-party): one call with timeout, abort,
// bounded retries of transient failures, and the single clear line a failure becomes. Providers
// only translate their wire format; the failure policy lives here so all of them behave alike.

import { linkAbort } from './abort.ts'
import { AgentError, ConfigError } from './errors.ts'
import { redactSecrets } from './redact.ts'

export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  retries?: number
  /** First backoff delay; doubles each retry, with jitter (default 1000 ms). */
  baseDelayMs?: number
  /** Upper bound of one delay, also of a server's Retry-After (default 20 000 ms). */
  maxDelayMs?: number
}

export interface CallOptions extends RetryPolicy {
  /** Canonical provider name, first word of every error. */
  provider: string
  /** Endpoint, named in connection errors. */
  baseUrl: string
  /** Per attempt (AGENT_API_TIMEOUT). */
  timeoutMs: number
  signal?: AbortSignal
  /** Values to mask in error text (API keys, tokens). */
  secrets?: Iterable<string | undefined>
  /** How to fix missing or rejected credentials, appended to 401/403 errors. */
  authHint?: string
}

export interface Attempt {
  /** Aborted on caller abort or on this attempt's timeout. */
  signal: AbortSignal
  /** 0 for the first attempt. */
  number: number
  /** Call once output reached the caller (a stream delta): a later failure is then not retried. */
  markDelivered(): void
}

/** A failure read from an HTTP answer, thrown by providers that speak HTTP with fetch. */
export class ProviderHttpError extends Error {
  readonly status: number
  readonly retryAfterMs?: number
  constructor(status: number, message: string, retryAfterMs?: number) {
    super(message)
    this.name = 'ProviderHttpError'
    this.status = status
    this.retryAfterMs = retryAfterMs
  }
}

/** A broken exchange (truncated stream, malformed answer): retried like a dropped connection. */
export class ProviderProtocolError extends Error {
  readonly transient: boolean
  constructor(message: string, transient = true) {
    super(message)
    this.name = 'ProviderProtocolError'
    this.transient = transient
  }
}

/**
 * The most one model answer may hold, counted decoded (a compressed answer after decompression): a
 * buffered answer's body, one event of a streamed one, and the text, reasoning and tool-call
 * arguments a stream accumulates. Real answers, reasoning and images included, stay far below it;
 * past it the endpoint (or a proxy in between) is broken or hostile, and the call fails instead of
 * the process running out of memory. `AGENT_API_MAX_ANSWER_MB` overrides it.
 */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/** The setting (MiB, in .env or the environment) that overrides MAX_ANSWER_BYTES. */
export const MAX_ANSWER_ENV = 'AGENT_API_MAX_ANSWER_MB'

/** The cap on one answer for these settings: `AGENT_API_MAX_ANSWER_MB` when set (a positive number, else a ConfigError), else MAX_ANSWER_BYTES. */
export function maxAnswerBytes(settings?: { env(name: string): string | undefined }): number {
  const raw = settings?.env(MAX_ANSWER_ENV)?.trim()
  if (raw === undefined || raw === '') return MAX_ANSWER_BYTES
  const mib = Number(raw)
  if (!Number.isFinite(mib) || mib <= 0) throw new ConfigError(`${MAX_ANSWER_ENV} must be a positive number of MiB (got ${JSON.stringify(raw)})`)
  return Math.max(1024, Math.round(mib * 1024 * 1024))
}

function sizeText(bytes: number): string {
  const mib = bytes / (1024 * 1024)
  if (mib >= 1) return `${Number(mib.toFixed(mib < 10 ? 1 : 0))} MiB`
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KiB` : `${bytes} bytes`
}

/** An answer past its cap (MAX_ANSWER_BYTES): a broken or hostile endpoint, not retried. */
export class AnswerTooLargeError extends ProviderProtocolError {
  readonly limit: number
  /** `what`: 'answer', 'streamed answer', 'stream event' … */
  constructor(limit: number, what = 'answer') {
    super(`the endpoint's ${what} is larger than ${sizeText(limit)}; refused (${MAX_ANSWER_ENV} raises the cap)`, false)
    this.name = 'AnswerTooLargeError'
    this.limit = limit
  }
}

/**
 * What a streamed answer holds so far (text, reasoning, tool calls), against its cap: every
 * provider's stream reader counts into one, and past the cap it throws AnswerTooLargeError before
 * the piece is kept or reported.
 */
export class AnswerBudget {
  private size = 0
  constructor(readonly limit: number = MAX_ANSWER_BYTES) {}

  /** Counts `n` more characters; throws past the cap. */
  grow(n: number): void {
    this.size += n
    if (this.size > this.limit) throw new AnswerTooLargeError(this.limit, 'streamed answer')
  }
}

const LF = 10
const CR = 13

/**
 * Caps a body as it is read. `whole`: the body's bytes in all (a buffered answer). `events`: the
 * bytes of one server-sent event, from one blank line to the next (a stream may run as long as it
 * likes; what a parser holds at once, the event being read, stays bounded). Past the cap the stream
 * errors with AnswerTooLargeError, which cancels the source (the connection is closed).
 */
export function limitBody(body: ReadableStream<Uint8Array>, limit: number, kind: 'whole' | 'events'): ReadableStream<Uint8Array> {
  let size = 0
  // events: 0 within a line, 1 just after a line ending in LF, 2 just after a CR (CRLF may follow).
  let state = 0
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (kind === 'whole') size += chunk.byteLength
        else {
          let boundary = -1
          for (let i = 0; i < chunk.length; i++) {
            const byte = chunk[i]
            if (byte === LF) {
              if (state === 1) boundary = i
              state = 1
            } else if (byte === CR) {
              if (state !== 0) boundary = i
              state = 2
            } else state = 0
          }
          size = boundary < 0 ? size + chunk.byteLength : chunk.byteLength - boundary - 1
        }
        if (size > limit) controller.error(new AnswerTooLargeError(limit, kind === 'whole' ? 'answer' : 'stream event'))
        else controller.enqueue(chunk)
      },
    }),
  )
}

/** A body that fails at once: a declared length past the cap, refused without reading. */
export function refusedBody(limit: number): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (controller) => controller.error(new AnswerTooLargeError(limit)) })
}

/**
 * The answer of a fetch with its body capped at `limit` decoded bytes (limitBody: `events` for a
 * text/event-stream, else `whole`); a declared Content-Length past the cap is refused unread (the
 * body fails at once, which its reader reports). Status and headers as they came.
 */
export function limitResponse(response: Response, limit: number = MAX_ANSWER_BYTES): Response {
  if (!response.body) return response
  const headers = response.headers
  const stream = /^\s*text\/event-stream/i.test(headers.get('content-type') ?? '')
  const encoding = headers.get('content-encoding')
  let body: ReadableStream<Uint8Array>
  if (!stream && (!encoding || /^\s*identity\s*$/i.test(encoding)) && Number(headers.get('content-length') ?? 0) > limit) {
    response.body.cancel().catch(() => undefined)
    body = refusedBody(limit)
  } else body = limitBody(response.body, limit, stream ? 'events' : 'whole')
  const limited = new Response(body, { status: response.status, statusText: response.statusText, headers })
  Object.defineProperties(limited, { url: { value: response.url }, redirected: { value: response.redirected } })
  return limited
}

/** `fetch` (the global one by default) with every answer capped (limitResponse). */
export function limitedFetch(limit: number = MAX_ANSWER_BYTES, base: typeof fetch = fetch): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => limitResponse(await base(input, init), limit)) as typeof fetch
}

const NETWORK_REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed by the server',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'response body stalled',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed TLS certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
}
/** Network failures worth another attempt; refused/not-found fail at once (nothing is listening). */
const TRANSIENT_NETWORK = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])

/** The innermost system error code in a cause chain (`fetch failed` → ECONNREFUSED). */
export function networkCode(error: unknown): string | undefined {
  let current: any = error
  for (let depth = 0; current && depth < 6; depth++) {
    if (typeof current.code === 'string' && (NETWORK_REASONS[current.code] || /^E[A-Z]+$/.test(current.code) || current.code.startsWith('UND_ERR'))) return current.code
    if (current instanceof AggregateError && current.errors?.length) current = current.errors[0]
    else current = current.cause
  }
  if (error instanceof Error && /socket hang up|terminated|other side closed/i.test(error.message)) return 'ECONNRESET'
  return undefined
}

function statusOf(error: any): number | undefined {
  const status = error?.status ?? error?.statusCode
  return typeof status === 'number' && status >= 400 ? status : undefined
}

/** Retry-After (seconds or HTTP date) from an error's headers, in ms. */
function retryAfterOf(error: any): number | undefined {
  if (typeof error?.retryAfterMs === 'number') return error.retryAfterMs
  const headers = error?.headers
  const raw = typeof headers?.get === 'function' ? headers.get('retry-after') : headers?.['retry-after']
  return parseRetryAfter(raw)
}

export function parseRetryAfter(raw: string | null | undefined): number | undefined {
  if (!raw) return undefined
  const seconds = Number(raw)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(raw)
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : undefined
}

export function isTransient(error: unknown): boolean {
  if (error instanceof ProviderProtocolError) return error.transient
  const status = statusOf(error)
  if (status !== undefined) return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500
  const code = networkCode(error)
  return code !== undefined && TRANSIENT_NETWORK.has(code)
}

/** The server's own words from an error, without stack, JSON noise or newlines. */
function serverMessage(error: any): string {
  const nested = error?.error?.error?.message ?? error?.error?.message ?? (typeof error?.error === 'string' ? error.error : undefined)
  let text = String(nested ?? error?.message ?? error ?? 'unknown error')
  // The openai client prefixes "<status> " to its messages; the status is printed separately.
  text = text.replace(/^\d{3}\s+/, '')
  return text.replace(/\s+/g, ' ').trim().slice(0, 300)
}

/** One line for a failed call: `<provider>: <what happened>`; secrets masked; never a stack. */
export function describeProviderError(error: unknown, options: Pick<CallOptions, 'provider' | 'baseUrl' | 'secrets' | 'authHint'>): string {
  const status = statusOf(error)
  let line: string
  if (status !== undefined) {
    line = `${options.provider}: HTTP ${status} from ${options.baseUrl}: ${serverMessage(error)}`
    if ((status === 401 || status === 403) && options.authHint) line += ` (${options.authHint})`
  } else {
    const code = networkCode(error)
    if (code) line = `${options.provider}: cannot reach ${options.baseUrl}: ${NETWORK_REASONS[code] ?? code.toLowerCase()}`
    else if (isConnectionFailure(error)) line = `${options.provider}: cannot reach ${options.baseUrl}: ${innermostMessage(error)}`
    else line = `${options.provider}: ${serverMessage(error)}`
  }
  return redactSecrets(withoutUrlPasswords(line), options.secrets ?? [])
}

/**
 * `scheme://user:password@host` → `scheme://user:***@host`, wherever a URL with a password appears
 * (the base URL named in the line, a network error quoting it); a password shorter than a known
 * secret's minimum length too. Only on the error path.
 */
function withoutUrlPasswords(text: string): string {
  return text.includes('@') ? text.replace(/\b([a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:)[^/\s@]+@/gi, '$1***@') : text
}

/** fetch's `TypeError: fetch failed` and the openai client's APIConnectionError wrap the real reason. */
function isConnectionFailure(error: any): boolean {
  return /^APIConnection/.test(error?.name ?? '') || /^APIConnection/.test(error?.constructor?.name ?? '') || (error instanceof TypeError && /fetch failed/i.test(error.message))
}

function innermostMessage(error: any): string {
  let current = error
  for (let depth = 0; current?.cause && depth < 6; depth++) current = current.cause
  return serverMessage(current)
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })

export function backoffDelay(retry: number, policy: RetryPolicy = {}, retryAfterMs?: number): number {
  const base = policy.baseDelayMs ?? 1000
  const max = policy.maxDelayMs ?? 20_000
  const exp = base * 2 ** retry
  const jittered = exp / 2 + Math.random() * (exp / 2)
  return Math.min(max, Math.max(retryAfterMs ?? 0, jittered))
}

/**
 * Runs `fn` with a per-attempt timeout and the caller's abort signal; retries transient failures
 * (429, 5xx, dropped connections) with bounded exponential backoff; turns the final failure into
 * one AgentError line (code E_PROVIDER, or E_INTERRUPTED when the caller aborted).
 */
export async function callProvider<T>(options: CallOptions, fn: (attempt: Attempt) => Promise<T>): Promise<T> {
  const retries = Math.max(0, options.retries ?? 3)
  for (let number = 0; ; number++) {
    if (options.signal?.aborted) throw interrupted(options)
    // Not AbortSignal.any: the client's listener on a composite signal would pin it (sdk/abort.ts).
    const attempt = linkAbort(options.signal)
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      attempt.abort(new Error('timeout'))
    }, options.timeoutMs)
    let delivered = false
    try {
      return await fn({ signal: attempt.signal, number, markDelivered: () => void (delivered = true) })
    } catch (error) {
      if (AgentError.isInstance(error)) throw error
      if (options.signal?.aborted) throw interrupted(options, error)
      if (timedOut) {
        throw new AgentError('E_PROVIDER', redactSecrets(`${options.provider}: no answer from ${withoutUrlPasswords(options.baseUrl)} within ${seconds(options.timeoutMs)} s (AGENT_API_TIMEOUT)`, options.secrets ?? []), { cause: error })
      }
      if (!delivered && number < retries && isTransient(error)) {
        try {
          await sleep(backoffDelay(number, options, retryAfterOf(error)), options.signal)
        } catch {
          throw interrupted(options, error)
        }
        continue
      }
      const line = describeProviderError(error, options)
      throw new AgentError('E_PROVIDER', number > 0 ? `${line} (after ${number + 1} attempts)` : line, { cause: error })
    } finally {
      clearTimeout(timer)
      attempt.dispose()
    }
  }
}

const seconds = (ms: number) => (ms >= 1000 ? String(Math.round(ms / 1000)) : String(Number((ms / 1000).toFixed(2))))

function interrupted(options: CallOptions, cause?: unknown): AgentError {
  return new AgentError('E_INTERRUPTED', `${options.provider}: model call interrupted`, { cause })
}

/** An id for a tool call the provider sent without one, so results still pair with their call. */
export function syntheticCallId(index: number): string {
  return `call_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}_${index}`
}

/** Parses a JSON arguments string; a broken one stays as it came (the runtime reports it to the model). */
export function parseToolArguments(text: string): Record<string, unknown> {
  if (!text.trim()) return {}
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : { value }
  } catch {
    return { _raw: text }
  }
}

/** Joins a base URL and a path with exactly one slash. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`
}

/**
 * Constructor options for the official `openai` client as every provider uses it: nothing read from
 * the environment (the settings are the only source of keys and URLs), no retries of its own (
 * callProvider owns them), and a client timeout above callProvider's per-attempt deadline.
 */
export function openAIClientOptions(options: { apiKey: string; baseUrl: string; timeoutMs: number; headers?: Record<string, string>; fetch?: typeof fetch }): Record<string, unknown> {
  return {
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    maxRetries: 0,
    timeout: options.timeoutMs * 2,
    logLevel: 'off',
    defaultHeaders: options.headers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  }
}
