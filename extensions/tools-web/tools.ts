// web_search, web_extract and web_crawl over the selected backend, with the website policy applied
// to every URL asked for and every URL returned (for a page: the one asked for and the final one the
// backend reports after redirects).

import { websitePolicy, type Settings, type ToolBackendChoice, type ToolDefinition } from 'agent/sdk'
import { BACKENDS, type CallOptions, type Page, type WebBackend } from './backends.ts'

export interface WebConfig {
  backend?: 'firecrawl' | 'parallel'
  timeout: number
  crawl_timeout: number
  crawl_poll_interval: number
  max_chars: number
  max_results: number
  crawl_limit: number
}

export const BACKEND_CHOICE: ToolBackendChoice = {
  setting: 'web.backend',
  label: 'Web search and extract',
  options: BACKENDS.map((b) => ({ value: b.name, label: b.label, envKeys: b.envKeys, ...(b.canCrawl ? { note: 'crawl supported' } : {}) })),
}

/** `web.backend` (read live: `agent tools` writes it), else the first backend whose key is present. */
export function selectBackend(settings: Settings, config: WebConfig): WebBackend | { error: string } {
  const named = settings.get<string>('web.backend') ?? config.backend
  if (named) {
    const backend = BACKENDS.find((b) => b.name === named)
    if (!backend) return { error: `web.backend "${named}" is not one of ${BACKENDS.map((b) => b.name).join(', ')}` }
    const ready = backend.configured(settings)
    return ready === true ? backend : { error: `web backend ${backend.name}: ${ready} (run agent tools, or set it in .env)` }
  }
  const found = BACKENDS.find((b) => b.configured(settings) === true)
  return found ?? { error: `no web backend is configured: set ${BACKENDS.map((b) => b.envKeys[0]).join(' or ')} (agent tools)` }
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… ${text.length - max} more characters]` : text
}

export function webTools(config: WebConfig, settings: Settings): ToolDefinition[] {
  const options = (signal: AbortSignal, timeout = config.timeout): CallOptions => ({ timeoutMs: timeout * 1000, signal, pollIntervalMs: config.crawl_poll_interval * 1000 })
  const backendOrThrow = (): WebBackend => {
    const picked = selectBackend(settings, config)
    if ('error' in picked) throw new Error(picked.error)
    return picked
  }
  const available = (settings: Settings) => {
    const picked = selectBackend(settings, config)
    return 'error' in picked ? picked.error : true
  }
  /** Drops the content of pages whose URL, or any URL the backend reached them by (redirects), is blocked. */
  const filterPages = (pages: Page[]) => {
    const policy = websitePolicy(settings)
    return pages.map(({ via = [], ...p }) => {
      const verdict = [p.url, ...via].map((u) => policy.check(u)).find((v) => v.blocked)
      return verdict ? { url: p.url, title: '', content: '', error: verdict.message } : { ...p, content: cap(p.content, config.max_chars) }
    })
  }

  return [
    {
      name: 'web_search',
      toolset: 'web',
      description: 'Search the web. Returns titles, URLs and snippets.',
      parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 20 } }, required: ['query'], additionalProperties: false },
      available,
      backends: BACKEND_CHOICE,
      async execute({ input, signal }) {
        const { query, limit } = input as { query?: string; limit?: number }
        if (typeof query !== 'string' || !query.trim()) throw new Error('web_search needs a non-empty "query"')
        const backend = backendOrThrow()
        const hits = await backend.search(settings, query, Math.min(limit ?? config.max_results, 20), options(signal))
        const policy = websitePolicy(settings)
        const allowed = hits.filter((h) => !policy.check(h.url).blocked)
        return { backend: backend.name, results: allowed, ...(allowed.length < hits.length ? { blocked: hits.length - allowed.length } : {}) }
      },
    } as ToolDefinition,
    {
      name: 'web_extract',
      toolset: 'web',
      description: 'Fetch web pages and return their main content as markdown.',
      parameters: {
        type: 'object',
        properties: { urls: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 }, objective: { type: 'string', description: 'What to look for (focuses the extraction where the backend supports it)' } },
        required: ['urls'],
        additionalProperties: false,
      },
      available,
      backends: BACKEND_CHOICE,
      async execute({ input, signal }) {
        const { urls, objective } = input as { urls?: unknown; objective?: string }
        if (!Array.isArray(urls) || urls.length === 0 || urls.some((u) => typeof u !== 'string' || !u.trim())) throw new Error('web_extract needs "urls": a list of 1 to 5 URLs')
        const policy = websitePolicy(settings)
        const refused = (urls as string[]).map((u) => ({ url: u, verdict: policy.check(u) })).filter((r) => r.verdict.blocked)
        const allowed = (urls as string[]).filter((u) => !policy.check(u).blocked)
        if (allowed.length === 0) throw new Error(refused.map((r) => r.verdict.message).join('; '))
        const backend = backendOrThrow()
        const pages = filterPages(await backend.extract(settings, allowed.slice(0, 5), objective, options(signal)))
        return { backend: backend.name, pages: [...pages, ...refused.map((r) => ({ url: r.url, title: '', content: '', error: r.verdict.message }))] }
      },
    } as ToolDefinition,
    {
      name: 'web_crawl',
      toolset: 'web',
      description: 'Crawl a website from a start URL and return the content of its pages (crawl-capable backend only).',
      parameters: {
        type: 'object',
        properties: { url: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 50 }, instructions: { type: 'string', description: 'Which pages to focus on' } },
        required: ['url'],
        additionalProperties: false,
      },
      available,
      backends: BACKEND_CHOICE,
      async execute({ input, signal }) {
        const { url, limit, instructions } = input as { url?: string; limit?: number; instructions?: string }
        if (typeof url !== 'string' || !url.trim()) throw new Error('web_crawl needs "url"')
        const backend = backendOrThrow()
        if (!backend.canCrawl || !backend.crawl) {
          const capable = BACKENDS.filter((b) => b.canCrawl).map((b) => b.name).join(', ')
          throw new Error(`web_crawl is not available on the ${backend.name} backend; it needs ${capable} (set web.backend: ${capable} and its key)`)
        }
        const verdict = websitePolicy(settings).check(url)
        if (verdict.blocked) throw new Error(verdict.message)
        const pages = await backend.crawl!(settings, url, Math.min(limit ?? config.crawl_limit, 50), instructions, options(signal, config.crawl_timeout))
        return { backend: backend.name, pages: filterPages(pages) }
      },
    } as ToolDefinition,
  ]
}
