// The website access policy (`security.website_blocklist` in config.yaml), shared by every tool that
// fetches URLs (web tools, browser, skills hub). Rules are hosts (`example.com` also covers its
// subdomains), IP addresses or CIDR ranges, or picomatch globs on the host (`*.ads.example`,
// `tracker-*.net`); URL rules are reduced to their host; `shared_files` add one rule per line. Hosts
// and rules are compared in one spelling (sdk/host-address.ts), so `[::ffff:127.0.0.1]`, `127.1` or
// `0x7f.0.0.1` meet a `127.0.0.1` rule. Callers check every redirect hop (sdk/guarded-fetch.ts) and
// the final URL. A malformed policy blocks everything (fail closed).

import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { isAbsolute, join } from 'node:path'
import { canonicalHost, hostInCidr, isLocalAlias, parseCidr, parseHostAddress } from './host-address.ts'
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

/** Host of a URL (or of `host/path` without a scheme) in its canonical spelling; '' when there is none. */
export function urlHost(url: string): string {
  const text = url.trim()
  for (const candidate of [text, `http://${text}`]) {
    try {
      const host = canonicalHost(new URL(candidate).hostname)
      if (host) return host
    } catch {
      // try the next form
    }
  }
  return ''
}

/** One rule in canonical form; undefined for blanks and comments; throws on a malformed CIDR. */
function normaliseRule(rule: unknown): string | undefined {
  if (typeof rule !== 'string') return undefined
  let value = rule.trim().toLowerCase()
  if (!value || value.startsWith('#')) return undefined
  const cidr = parseCidr(value)
  if (cidr) return `${cidr.address.toString()}/${cidr.bits}`
  if (value.includes('://')) value = urlHost(value) || value
  value = value.split('/')[0]!
  // A port says nothing about the site: `[::1]:8080` → ::1, `example.com:443` → example.com.
  const bracketed = /^\[([^\]]+)\]/.exec(value)
  if (bracketed) value = bracketed[1]!
  else if ((value.match(/:/g) ?? []).length === 1) value = value.replace(/:\d*$/, '')
  value = canonicalHost(value)
  if (value.startsWith('www.')) value = value.slice(4)
  return value || undefined
}

const isGlob = (rule: string) => /[*?[\]{}!]/.test(rule)

function matchesOne(host: string, rule: string): boolean {
  if (/\/\d+$/.test(rule)) return hostInCidr(host, parseCidr(rule)!)
  const bare = host.startsWith('www.') ? host.slice(4) : host
  if (isGlob(rule)) return glob(rule)(bare) || glob(rule)(host)
  // An address matches only itself: `0.0.1` must not cover 127.0.0.1 as a "subdomain".
  if (parseHostAddress(host)) return host === rule
  return bare === rule || bare.endsWith(`.${rule}`)
}

/**
 * Whether a canonical host falls under a rule. Loopback names and addresses stand for each other
 * (`localhost`, `*.localhost`, `0.0.0.0`, `::` reach this machine; a rule for one covers the others).
 */
function hostMatches(host: string, rule: string): boolean {
  const forms = new Set([host])
  if (isLocalAlias(host) || host === '127.0.0.1' || host === '::1') for (const alias of ['localhost', '127.0.0.1', '::1']) forms.add(alias)
  for (const form of forms) if (matchesOne(form, rule)) return true
  return false
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
  try {
    for (const rule of domains) {
      const normal = normaliseRule(rule)
      if (normal) rules.add(normal)
    }
  } catch (error) {
    return invalid((error as Error).message)
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
    try {
      for (const line of text.split(/\r?\n/)) {
        const normal = normaliseRule(line)
        if (normal) rules.add(normal)
      }
    } catch (error) {
      return invalid(`${path}: ${(error as Error).message}`)
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
