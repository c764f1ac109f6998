// The opener's scope checks. URL entries `{ url, app? }` are globs on the raw URL string (`*`
// crosses `/`, no normalisation), and `app` takes part in both the deny and the allow test. Path
// entries `{ path, app? }` expand their base-directory variable and match with a literal `/` and a
// literal leading dot; any deny match refuses, then some allow pattern must match and some allow
// path entry's `app` must accept the application asked for. An empty allow list allows nothing,
// and an entry that cannot be used (a pattern that does not compile) denies the command.

import { posix } from 'node:path'
import { expandPathEntry, isPathVariable, type BaseDirectories } from './base-dirs.ts'
import { Glob, type GlobSyntaxError } from './glob.ts'
import { describeValue } from './parse.ts'
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

/** One scope value read as an opener entry: a URL glob, a path entry, or why it cannot be used. */
type ReadEntry = { kind: 'url'; entry: UrlScopeEntry; glob: Glob } | { kind: 'path'; entry: PathScopeEntry } | { kind: 'broken'; error: string }

function readEntry(value: ScopeValue): ReadEntry {
  if (!isRecord(value)) return { kind: 'broken', error: `an opener scope entry is an object with \`url\` or \`path\`, not ${describeValue(value)}` }
  const app = value.app
  if (app !== undefined && app !== null && typeof app !== 'string' && typeof app !== 'boolean') return { kind: 'broken', error: `\`app\` must be a string, a boolean or null, not ${describeValue(app)}` }
  const url = asUrlEntry(value)
  if (url) {
    try {
      return { kind: 'url', entry: url, glob: new Glob(url.url) }
    } catch (error) {
      return { kind: 'broken', error: `url: ${(error as Error).message}` }
    }
  }
  const path = asPathEntry(value)
  if (!path) return { kind: 'broken', error: 'an opener scope entry needs `url` or `path` (a string)' }
  // The base directory is escaped when expanded: only the rest of the entry is a pattern.
  const variable = /^\$([A-Z]+)(\/|$)/.exec(path.path)
  const skip = variable && isPathVariable(variable[1]!) ? variable[0].length : 0
  try {
    new Glob(path.path.slice(skip))
  } catch (error) {
    const e = error as GlobSyntaxError
    return { kind: 'broken', error: `path: Pattern syntax error near position ${e.position + skip}: ${e.reason}` }
  }
  return { kind: 'path', entry: path }
}

/**
 * Why a value cannot be an opener scope entry, or undefined when it can. In the reference an entry
 * that fails to load fails the whole command; here too: a broken entry is never skipped, since
 * skipping an allow entry beside `https://*`, or any deny entry, would widen access.
 */
export function openerScopeError(value: ScopeValue): string | undefined {
  const read = readEntry(value)
  return read.kind === 'broken' ? read.error : undefined
}

/** The first value of a scope that cannot be used, with why. */
function brokenEntry(scope: ScopeLists): { value: ScopeValue; error: string } | undefined {
  for (const value of [...scope.deny, ...scope.allow]) {
    const error = openerScopeError(value)
    if (error !== undefined) return { value, error }
  }
  return undefined
}

const brokenReason = (broken: { value: ScopeValue; error: string }) => `the scope entry ${JSON.stringify(broken.value)} cannot be used (${broken.error}), so the command is denied`

export function checkUrlScope(url: string, withApp: string | undefined, scope: ScopeLists): ScopeVerdict {
  const read = (values: readonly ScopeValue[]) => values.map((value) => ({ value, read: readEntry(value) }))
  const deny = read(scope.deny)
  const allow = read(scope.allow)
  const broken = [...deny, ...allow].find((e) => e.read.kind === 'broken')
  if (broken) return { allowed: false, reason: `Not allowed to open url ${url}${withSuffix(withApp)}: ${brokenReason({ value: broken.value, error: (broken.read as { error: string }).error })}`, decidedBy: broken.value }
  for (const { value, read: r } of deny) {
    if (r.kind === 'url' && r.glob.matches(url) && appMatches(r.entry.app, withApp)) {
      return { allowed: false, reason: `Not allowed to open url ${url}${withSuffix(withApp)}: denied by ${JSON.stringify(value)}`, decidedBy: value }
    }
  }
  for (const { value, read: r } of allow) {
    if (r.kind === 'url' && r.glob.matches(url) && appMatches(r.entry.app, withApp)) return { allowed: true, reason: `allowed by ${JSON.stringify(value)}`, decidedBy: value }
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
  const broken = brokenEntry(scope)
  if (broken) return refused(brokenReason(broken), broken.value)
  if (!path.startsWith('/')) return refused('the path must be absolute')
  // `..` is resolved before matching, so `$HOME/**` cannot be escaped with `$HOME/../../etc/x`.
  const target = posix.normalize(path)
  const matchOptions = { requireLiteralSeparator: true, requireLiteralLeadingDot: options.requireLiteralLeadingDot ?? true }
  // Entries whose base directory is unknown on this machine are dropped (as in the reference).
  let unusable: { value: ScopeValue; error: string } | undefined
  const compile = (values: readonly ScopeValue[]) =>
    values.flatMap((value) => {
      const entry = asPathEntry(value)
      const pattern = entry && expandPathEntry(entry.path, options.dirs)
      if (!entry || pattern === undefined) return []
      try {
        return [{ value, entry, glob: new Glob(pattern) }]
      } catch (error) {
        unusable ??= { value, error: `path: ${(error as Error).message}` }
        return []
      }
    })
  const denies = compile(scope.deny)
  const allows = compile(scope.allow)
  if (unusable) return refused(brokenReason(unusable), unusable.value)
  const denied = denies.find((d) => d.glob.matches(target, matchOptions))
  if (denied) return refused(`denied by ${JSON.stringify(denied.value)}`, denied.value)
  const hit = allows.find((a) => a.glob.matches(target, matchOptions))
  if (!hit) return refused('no allowed path entry matches')
  if (!allows.some((a) => appMatches(a.entry.app, withApp))) return refused(`no allowed path entry accepts ${withApp === undefined ? 'the default application' : withApp}`)
  return { allowed: true, reason: `allowed by ${JSON.stringify(hit.value)}`, decidedBy: hit.value }
}
