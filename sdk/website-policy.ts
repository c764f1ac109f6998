// The website access policy (`security.website_blocklist` in config.yaml), shared by every tool that
// fetches URLs (web tools, browser). Rules are hosts (`example.com` also covers its subdomains) or
// picomatch globs on the host (`*.ads.example`, `tracker-*.net`); URL rules are reduced to their
// host; `shared_files` add one rule per line. A malformed policy blocks everything (fail closed).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isAbsolute, join } from 'node:path'
import type { Settings } from './types.ts'

export interface WebsiteVerdict {
  blocked: boolean
  host?: string
  rule?: string
  /** One line for the model or the user when blocked. */
  message?: string
}

export interface WebsitePolicy {
  readonly enabled: boolean
  readonly rules: readonly string[]
  check(url: string): WebsiteVerdict
}

type Matcher = (text: string) => boolean
let picomatchFn: ((glob: string, options?: Record<string, unknown>) => Matcher) | undefined
// picomatch loads on first use only (the SDK is imported by every `agent` start).
const glob = (pattern: string): Matcher => (picomatchFn ??= createRequire(import.meta.url)('picomatch'))(pattern, { nocase: true, dot: true })

/** Lowercase host of a URL (or of `host/path` without a scheme); '' when there is none. */
export function urlHost(url: string): string {
  const text = url.trim()
  for (const candidate of [text, `http://${text}`]) {
    try {
      const host = new URL(candidate).hostname.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '')
      if (host) return host
    } catch {
      // try the next form
    }
  }
  return ''
}

function normaliseRule(rule: unknown): string | undefined {
  if (typeof rule !== 'string') return undefined
  let value = rule.trim().toLowerCase()
  if (!value || value.startsWith('#')) return undefined
  if (value.includes('://')) value = urlHost(value) || value
  value = value.split('/')[0]!.replace(/\.$/, '')
  if (value.startsWith('www.')) value = value.slice(4)
  return value || undefined
}

function hostMatches(host: string, rule: string): boolean {
  const bare = host.startsWith('www.') ? host.slice(4) : host
  if (/[*?[\]{}!]/.test(rule)) return glob(rule)(bare) || glob(rule)(host)
  return bare === rule || bare.endsWith(`.${rule}`)
}

/** Reads the policy now (call per use: config edits apply at once). */
export function websitePolicy(settings: Pick<Settings, 'get' | 'home'>): WebsitePolicy {
  const raw = settings.get<unknown>('security.website_blocklist')
  const invalid = (why: string): WebsitePolicy => ({
    enabled: true,
    rules: [],
    check: (url) => ({ blocked: true, host: urlHost(url), message: `Blocked: security.website_blocklist is invalid (${why}); fix config.yaml` }),
  })
  if (raw === undefined || raw === null) return { enabled: false, rules: [], check: () => ({ blocked: false }) }
  // A bare list is accepted as the domains.
  const section = Array.isArray(raw) ? { domains: raw } : raw
  if (typeof section !== 'object') return invalid('it must be a mapping with enabled, domains, shared_files')
  const { enabled = true, domains = [], shared_files: files = [] } = section as Record<string, unknown>
  if (typeof enabled !== 'boolean') return invalid('enabled must be true or false')
  if (!Array.isArray(domains) || !Array.isArray(files)) return invalid('domains and shared_files must be lists')
  const rules = new Set<string>()
  for (const rule of domains) {
    const normal = normaliseRule(rule)
    if (normal) rules.add(normal)
  }
  for (const file of files) {
    if (typeof file !== 'string' || !file.trim()) continue
    const path = isAbsolute(file) ? file : join(settings.home, file)
    let text: string
    try {
      text = readFileSync(path, 'utf8')
    } catch {
      return invalid(`shared file ${path} cannot be read`)
    }
    for (const line of text.split(/\r?\n/)) {
      const normal = normaliseRule(line)
      if (normal) rules.add(normal)
    }
  }
  const list = [...rules]
  return {
    enabled,
    rules: list,
    check(url) {
      if (!enabled || list.length === 0) return { blocked: false }
      const host = urlHost(url)
      if (!host) return { blocked: true, message: `Blocked: "${url}" has no host the website policy can check` }
      const rule = list.find((r) => hostMatches(host, r))
      return rule ? { blocked: true, host, rule, message: `Blocked by website policy: ${host} matches "${rule}" (security.website_blocklist)` } : { blocked: false, host }
    },
  }
}
