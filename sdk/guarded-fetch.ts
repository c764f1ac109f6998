// A fetch that follows redirects by hand so a guard (the website policy, an https-only rule) sees
// every hop before it is requested, and the final URL: `redirect: 'follow'` would connect to each
// Location first and tell nobody. Bounded hops; credentials are not carried to another origin.

import { AgentError } from './errors.ts'

export interface GuardedFetchOptions {
  /** Why a URL may not be requested (a one-line message), or undefined to allow it. Throwing refuses too. */
  check(url: URL): string | undefined
  /** Redirects followed at most (default 5); one more is an error. */
  maxRedirects?: number
  init?: Omit<RequestInit, 'redirect'>
}

export interface GuardedResponse {
  response: Response
  /** The URL that answered (after every redirect). */
  url: URL
  /** Every URL requested, the first one included. */
  hops: URL[]
}

const REDIRECT = new Set([301, 302, 303, 307, 308])
/** Headers that identify the caller to one origin and must not follow a redirect to another. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key']

/** Throws E_BLOCKED when `check` refuses the URL. */
function guard(url: URL, check: GuardedFetchOptions['check'], hop: number): void {
  const reason = check(url)
  if (reason !== undefined) throw new AgentError('E_BLOCKED', hop === 0 ? reason : `${reason} (reached by a redirect)`)
}

/**
 * GETs (or sends `init`) to a URL, following at most `maxRedirects` redirects, each Location checked
 * before it is requested. A refused hop throws E_BLOCKED; too many hops throw E_REDIRECTS. The
 * response body of every redirect is discarded; the final response is returned unread.
 */
export async function fetchGuarded(start: string | URL, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const max = options.maxRedirects ?? 5
  let url: URL
  try {
    url = new URL(start)
  } catch {
    throw new AgentError('E_USAGE', `"${String(start)}" is not a URL`)
  }
  let init: RequestInit = { ...options.init, redirect: 'manual' }
  const hops: URL[] = []
  for (;;) {
    guard(url, options.check, hops.length)
    hops.push(url)
    const response = await fetch(url, init)
    const location = response.headers.get('location')
    if (!REDIRECT.has(response.status) || !location) return { response, url, hops }
    await response.body?.cancel().catch(() => undefined)
    if (hops.length > max) throw new AgentError('E_REDIRECTS', `${hops[0]!.href}: more than ${max} redirects`)
    let next: URL
    try {
      next = new URL(location, url)
    } catch {
      throw new AgentError('E_FETCH', `${url.href}: redirect to an invalid URL`)
    }
    init = nextInit(init, response.status, url, next)
    url = next
  }
}

/** 303 (and 301/302 after a POST) become a GET without a body; another origin loses the credentials. */
function nextInit(init: RequestInit, status: number, from: URL, to: URL): RequestInit {
  const next: RequestInit = { ...init }
  const method = (init.method ?? 'GET').toUpperCase()
  if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
    next.method = 'GET'
    delete next.body
  }
  if (from.origin !== to.origin && init.headers) {
    const headers = new Headers(init.headers)
    for (const name of CREDENTIAL_HEADERS) headers.delete(name)
    next.headers = headers
  }
  return next
}
