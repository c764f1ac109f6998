// The opener's scope checks. URL entries `{ url, app? }` are globs on the raw URL string (`*`
// crosses `/`, no normalisation), and `app` takes part in both the deny and the allow test. Path
// entries `{ path, app? }` expand their base-directory variable and match with a literal `/` and a
// literal leading dot; any deny match refuses, then some allow pattern must match and some allow
// path entry's `app` must accept the application asked for. An empty allow list allows nothing.

import { posix } from 'node:path'
import { expandPathEntry, type BaseDirectories } from './base-dirs.ts'
import { Glob } from './glob.ts'
import type { ScopeLists, ScopeValue } from './types.ts'

/** absent/null: only a call without `with`; true: any application; false: none; a string: exactly it. */
export type AppSpec = string | boolean | null | undefined

export interface UrlScopeEntry {
  url: string
  app?: AppSpec
}

export interface PathScopeEntry {
  path: string
  app?: AppSpec
}

export interface ScopeVerdict {
  allowed: boolean
  reason: string
  /** The scope entry that decided, when one did. */
  decidedBy?: ScopeValue
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** An entry with both `url` and `path` is a URL entry (the URL shape is tried first). */
export const asUrlEntry = (v: ScopeValue): UrlScopeEntry | undefined => (isRecord(v) && typeof v.url === 'string' ? (v as unknown as UrlScopeEntry) : undefined)
export const asPathEntry = (v: ScopeValue): PathScopeEntry | undefined =>
  isRecord(v) && typeof v.url !== 'string' && typeof v.path === 'string' ? (v as unknown as PathScopeEntry) : undefined

export function appMatches(spec: AppSpec, withApp: string | undefined): boolean {
  if (spec === undefined || spec === null) return withApp === undefined
  if (spec === true) return true
  if (spec === false) return false
  return withApp === spec
}

const withSuffix = (withApp: string | undefined) => (withApp === undefined ? '' : ` with ${withApp}`)

/** Compiles a glob, or undefined for a pattern that does not parse. */
function glob(pattern: string): Glob | undefined {
  try {
    return new Glob(pattern)
  } catch {
    return undefined
  }
}

export function checkUrlScope(url: string, withApp: string | undefined, scope: ScopeLists): ScopeVerdict {
  for (const value of scope.deny) {
    const entry = asUrlEntry(value)
    if (!entry) continue
    const g = glob(entry.url)
    // A deny pattern that does not parse refuses everything it might have meant (fail closed).
    if ((!g || g.matches(url)) && appMatches(entry.app, withApp)) {
      return { allowed: false, reason: `Not allowed to open url ${url}${withSuffix(withApp)}: denied by ${JSON.stringify(value)}`, decidedBy: value }
    }
  }
  for (const value of scope.allow) {
    const entry = asUrlEntry(value)
    if (!entry) continue
    if (glob(entry.url)?.matches(url) && appMatches(entry.app, withApp)) return { allowed: true, reason: `allowed by ${JSON.stringify(value)}`, decidedBy: value }
  }
  return { allowed: false, reason: `Not allowed to open url ${url}${withSuffix(withApp)}: no allowed url entry matches` }
}

export interface PathCheckOptions {
  dirs: BaseDirectories
  /** Dotfiles need a literal leading dot (default true; Windows has it off). */
  requireLiteralLeadingDot?: boolean
}

export function checkPathScope(path: string, withApp: string | undefined, scope: ScopeLists, options: PathCheckOptions): ScopeVerdict {
  const refused = (why: string, decidedBy?: ScopeValue): ScopeVerdict => ({ allowed: false, reason: `Not allowed to open path ${path}${withSuffix(withApp)}: ${why}`, ...(decidedBy !== undefined ? { decidedBy } : {}) })
  if (!path.startsWith('/')) return refused('the path must be absolute')
  // `..` is resolved before matching, so `$HOME/**` cannot be escaped with `$HOME/../../etc/x`.
  const target = posix.normalize(path)
  const matchOptions = { requireLiteralSeparator: true, requireLiteralLeadingDot: options.requireLiteralLeadingDot ?? true }
  const compiled = (value: ScopeValue) => {
    const entry = asPathEntry(value)
    if (!entry) return undefined
    const pattern = expandPathEntry(entry.path, options.dirs)
    return pattern === undefined ? undefined : { entry, glob: glob(pattern), pattern }
  }
  for (const value of scope.deny) {
    const c = compiled(value)
    if (c && (!c.glob || c.glob.matches(target, matchOptions))) return refused(`denied by ${JSON.stringify(value)}`, value)
  }
  const allows = scope.allow.map((value) => ({ value, c: compiled(value) })).filter((a) => a.c !== undefined)
  const hit = allows.find((a) => a.c!.glob?.matches(target, matchOptions))
  if (!hit) return refused('no allowed path entry matches')
  if (!allows.some((a) => appMatches(a.c!.entry.app, withApp))) return refused(`no allowed path entry accepts ${withApp === undefined ? 'the default application' : withApp}`)
  return { allowed: true, reason: `allowed by ${JSON.stringify(hit.value)}`, decidedBy: hit.value }
}
