// Bounded HTTP reads for hubs and well-known sites: https only (plain http only to a loopback host),
// redirects followed by hand (sdk fetchGuarded) under the same rule and the website policy at every
// hop, a timeout, and a size cap checked while reading.

import { AgentError, fetchGuarded, isLoopbackHost, linkAbortWithTimeout } from 'agent/sdk'

export interface FetchLimits {
  timeoutMs: number
  maxBytes: number
  signal?: AbortSignal
  /** A further guard on every URL requested (the website policy): a refusal message, or undefined. */
  allow?: (url: URL) => string | undefined
}

const MAX_REDIRECTS = 5

/** Throws a one-line error for a URL we may not fetch. */
export function checkUrl(raw: string): URL {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new AgentError('E_USAGE', `"${raw}" is not a URL`)
  }
  if (url.protocol === 'https:') return url
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url
  if (url.protocol === 'http:') throw new AgentError('E_USAGE', `${url.origin}: plain http is only allowed to a loopback host; use https`)
  throw new AgentError('E_USAGE', `${raw}: only https URLs are supported`)
}

export class FetchError extends AgentError {
  readonly status?: number
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('E_FETCH', message, { cause: options.cause })
    this.status = options.status
  }
}

/** GETs a URL; resolves with the body bytes, or throws FetchError (404 carries status 404). */
export async function fetchBytes(raw: string, limits: FetchLimits): Promise<Buffer> {
  const deadline = linkAbortWithTimeout(limits.timeoutMs, limits.signal)
  try {
    return await fetchWithin(raw, limits, deadline.signal)
  } finally {
    deadline.dispose()
  }
}

async function fetchWithin(raw: string, limits: FetchLimits, signal: AbortSignal): Promise<Buffer> {
  const start = checkUrl(raw)
  let response: Response
  let url: URL
  try {
    ;({ response, url } = await fetchGuarded(start, {
      check: (hop) => limits.allow?.(checkUrl(hop.href)),
      maxRedirects: MAX_REDIRECTS,
      init: { signal, headers: { accept: 'application/json, text/markdown, text/plain, */*' } },
    }))
  } catch (error) {
    if (AgentError.isInstance(error)) throw error.code === 'E_REDIRECTS' ? new FetchError(`${raw}: more than ${MAX_REDIRECTS} redirects`) : error
    const reason = (error as Error).name === 'TimeoutError' ? `timed out after ${limits.timeoutMs} ms` : ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message
    throw new FetchError(`${start.href}: ${reason}`, { cause: error })
  }
  if (!response.ok) {
    await response.body?.cancel()
    throw new FetchError(`${url.href}: HTTP ${response.status}`, { status: response.status })
  }
  const declared = Number(response.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > limits.maxBytes) {
    await response.body?.cancel()
    throw new FetchError(`${url.href}: larger than ${limits.maxBytes} bytes`)
  }
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of response.body ?? []) {
    size += (chunk as Uint8Array).length
    if (size > limits.maxBytes) throw new FetchError(`${url.href}: larger than ${limits.maxBytes} bytes`)
    chunks.push(Buffer.from(chunk as Uint8Array))
  }
  return Buffer.concat(chunks)
}

export async function fetchJson(raw: string, limits: FetchLimits): Promise<unknown> {
  const bytes = await fetchBytes(raw, limits)
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new FetchError(`${raw}: not valid JSON`)
  }
}
