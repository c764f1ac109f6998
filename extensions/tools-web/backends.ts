// The two web backends and their REST wire formats:
//   firecrawl: POST /v2/search {query, limit}; POST /v2/scrape {url, formats}; POST /v2/crawl then
//              GET /v2/crawl/{id} until completed (Authorization: Bearer <FIRECRAWL_API_KEY>;
//              FIRECRAWL_API_URL for a self-hosted server). The crawl-capable one.
//   parallel:  POST /v1/search {objective, search_queries, advanced_settings.max_results};
//              POST /v1/extract {urls, objective, advanced_settings.full_content}
//              (x-api-key: <PARALLEL_API_KEY>; PARALLEL_BASE_URL overrides the address).

import type { Settings } from 'agent/sdk'
import { requestJson } from './http.ts'

export interface SearchHit {
  url: string
  title: string
  snippet: string
}

export interface Page {
  url: string
  title: string
  content: string
  error?: string
  /** Every other URL the backend reported for this page (the one asked for, the final one after redirects). */
  via?: string[]
}

export interface CallOptions {
  timeoutMs: number
  signal?: AbortSignal
  pollIntervalMs: number
}

export interface WebBackend {
  name: 'firecrawl' | 'parallel'
  label: string
  envKeys: string[]
  canCrawl: boolean
  configured(settings: Settings): true | string
  search(settings: Settings, query: string, limit: number, options: CallOptions): Promise<SearchHit[]>
  extract(settings: Settings, urls: string[], objective: string | undefined, options: CallOptions): Promise<Page[]>
  crawl?(settings: Settings, url: string, limit: number, instructions: string | undefined, options: CallOptions): Promise<Page[]>
}

const trimSlash = (url: string) => url.replace(/\/+$/, '')

export const firecrawl: WebBackend = {
  name: 'firecrawl',
  label: 'Firecrawl (search, extract, crawl)',
  envKeys: ['FIRECRAWL_API_KEY', 'FIRECRAWL_API_URL'],
  canCrawl: true,
  configured: (s) => (s.env('FIRECRAWL_API_KEY') || s.env('FIRECRAWL_API_URL') ? true : 'FIRECRAWL_API_KEY is not set'),
  async search(s, query, limit, options) {
    const body = await call<{ data?: { web?: RawHit[] } | RawHit[] }>(s, 'POST', '/v2/search', { query, limit }, options)
    const hits = Array.isArray(body.data) ? body.data : (body.data?.web ?? [])
    return hits.map((h) => ({ url: String(h.url ?? ''), title: String(h.title ?? ''), snippet: String(h.description ?? h.snippet ?? '') }))
  },
  async extract(s, urls, _objective, options) {
    return Promise.all(
      urls.map(async (url): Promise<Page> => {
        try {
          const body = await call<{ data?: RawDoc }>(s, 'POST', '/v2/scrape', { url, formats: ['markdown'], onlyMainContent: true }, options)
          return page(body.data, url)
        } catch (error) {
          return { url, title: '', content: '', error: (error as Error).message }
        }
      }),
    )
  },
  async crawl(s, url, limit, instructions, options) {
    const started = await call<{ id?: string; success?: boolean }>(s, 'POST', '/v2/crawl', { url, limit, ...(instructions ? { prompt: instructions } : {}), scrapeOptions: { formats: ['markdown'], onlyMainContent: true } }, options)
    if (!started.id) throw new Error('firecrawl did not return a crawl id')
    const deadline = Date.now() + options.timeoutMs
    for (;;) {
      const status = await call<{ status?: string; data?: RawDoc[]; error?: string }>(s, 'GET', `/v2/crawl/${encodeURIComponent(started.id)}`, undefined, options)
      if (status.status === 'completed') return (status.data ?? []).map((d) => page(d, url))
      if (status.status === 'failed' || status.status === 'cancelled') throw new Error(`firecrawl crawl ${status.status}${status.error ? `: ${status.error}` : ''}`)
      if (Date.now() + options.pollIntervalMs > deadline) throw new Error(`firecrawl crawl did not finish within ${Math.round(options.timeoutMs / 1000)} s`)
      await new Promise((r) => setTimeout(r, options.pollIntervalMs))
      if (options.signal?.aborted) throw new Error('crawl interrupted')
    }
  },
}

export const parallel: WebBackend = {
  name: 'parallel',
  label: 'Parallel (search, extract)',
  envKeys: ['PARALLEL_API_KEY', 'PARALLEL_BASE_URL'],
  canCrawl: false,
  configured: (s) => (s.env('PARALLEL_API_KEY') ? true : 'PARALLEL_API_KEY is not set'),
  async search(s, query, limit, options) {
    const body = await callParallel<{ results?: Array<{ url?: string; title?: string; excerpts?: string[] }> }>(s, '/v1/search', { objective: query, search_queries: [query], advanced_settings: { max_results: limit } }, options)
    return (body.results ?? []).map((r) => ({ url: String(r.url ?? ''), title: String(r.title ?? ''), snippet: (r.excerpts ?? []).join(' … ') }))
  },
  async extract(s, urls, objective, options) {
    const body = await callParallel<{ results?: Array<{ url?: string; title?: string; full_content?: string; excerpts?: string[] }>; errors?: Array<{ url?: string; error_type?: string; content?: string }> }>(
      s,
      '/v1/extract',
      { urls, ...(objective ? { objective } : {}), advanced_settings: { full_content: true } },
      options,
    )
    const pages: Page[] = (body.results ?? []).map((r) => ({ url: String(r.url ?? ''), title: String(r.title ?? ''), content: r.full_content ?? (r.excerpts ?? []).join('\n\n') }))
    for (const e of body.errors ?? []) pages.push({ url: String(e.url ?? ''), title: '', content: '', error: `${e.error_type ?? 'error'}${e.content ? `: ${e.content}` : ''}` })
    return pages
  },
}

export const BACKENDS: readonly WebBackend[] = [firecrawl, parallel]

interface RawHit {
  url?: string
  title?: string
  description?: string
  snippet?: string
}

interface RawDoc {
  markdown?: string
  metadata?: { title?: string; sourceURL?: string; url?: string; error?: string }
}

/** Firecrawl's metadata: `sourceURL` is the URL asked for, `url` the one that answered after redirects. */
function page(doc: RawDoc | undefined, fallbackUrl: string): Page {
  const url = doc?.metadata?.sourceURL ?? doc?.metadata?.url ?? fallbackUrl
  const via = [fallbackUrl, doc?.metadata?.url].filter((u): u is string => typeof u === 'string' && u !== url)
  return { url, title: doc?.metadata?.title ?? '', content: doc?.markdown ?? '', ...(doc?.metadata?.error ? { error: doc.metadata.error } : {}), ...(via.length ? { via } : {}) }
}

function secrets(s: Settings): string[] {
  return s.secretValues()
}

function call<T>(s: Settings, method: 'GET' | 'POST', path: string, body: unknown, options: CallOptions): Promise<T> {
  const base = trimSlash(s.env('FIRECRAWL_API_URL') ?? 'https://api.firecrawl.dev')
  const key = s.env('FIRECRAWL_API_KEY')
  return requestJson<T>({ method, url: `${base}${path}`, headers: key ? { authorization: `Bearer ${key}` } : {}, body, timeoutMs: options.timeoutMs, signal: options.signal, secrets: secrets(s), backend: 'firecrawl' })
}

function callParallel<T>(s: Settings, path: string, body: unknown, options: CallOptions): Promise<T> {
  const base = trimSlash(s.env('PARALLEL_BASE_URL') ?? 'https://api.parallel.ai')
  return requestJson<T>({ method: 'POST', url: `${base}${path}`, headers: { 'x-api-key': s.env('PARALLEL_API_KEY') ?? '' }, body, timeoutMs: options.timeoutMs, signal: options.signal, secrets: secrets(s), backend: 'parallel' })
}
