// Checking a whole set of capability files: each file parsed, identifiers unique across all files,
// every permission entry naming a known manifest and a permission or set of it, and every scope
// value a command would receive usable by it (a pattern that does not compile denies the command). Capabilities
// of every platform are checked (our manifests do not vary by build target), so `check` on one
// machine finds what would fail on another.

import { closestNames } from '../closest.ts'
import { parseCapabilityFile, type ParseResult } from './parse.ts'
import { APP_MANIFEST_KEY, type ExpandedPermission, type ManifestSet } from './manifests.ts'
import { hasEmptySegment, identifierError, parseIdentifier } from './identifier.ts'
import type { Capability, CapabilityProblem, CapabilityWarning, Manifest, PermissionEntry } from './types.ts'

export interface CapabilityFileText {
  file: string
  text: string
}

export interface CheckResult {
  /** Every capability that parsed (those with reference problems included), in file order. */
  capabilities: Capability[]
  problems: CapabilityProblem[]
  warnings: CapabilityWarning[]
}

/** Parses and validates files together; `problems` empty means the set is usable. */
export function checkCapabilityFiles(files: readonly CapabilityFileText[], manifests: ManifestSet): CheckResult {
  const parsed: ParseResult[] = files.map((f) => parseCapabilityFile(f.file, f.text))
  const result: CheckResult = { capabilities: [], problems: [], warnings: [] }
  // Capabilities with problems are checked too (every problem at once), in file order.
  const all: Array<{ capability: Capability; identified: boolean }> = []
  for (const p of parsed) {
    result.capabilities.push(...p.capabilities)
    all.push(...[...p.capabilities.map((capability) => ({ capability, identified: true })), ...p.partial].sort((a, b) => (a.capability.source.index ?? 0) - (b.capability.source.index ?? 0)))
    result.problems.push(...p.problems)
    result.warnings.push(...p.warnings)
  }
  result.problems.push(...checkCapabilities(all, manifests))
  // File by file, in the order given (the sort is stable: within a file, parse problems come first).
  const order = new Map(files.map((f, i) => [f.file, i]))
  result.problems.sort((a, b) => (order.get(a.file) ?? 0) - (order.get(b.file) ?? 0))
  return result
}

/** Duplicate identifiers and unknown permissions among parsed capabilities (`identified: false` skips the duplicate test). */
export function checkCapabilities(capabilities: ReadonlyArray<Capability | { capability: Capability; identified: boolean }>, manifests: ManifestSet): CapabilityProblem[] {
  const problems: CapabilityProblem[] = []
  const firstSeen = new Map<string, Capability>()
  // A permission reached by many capabilities has its own scope checked once.
  const brokenDefinitions = new Map<string, string | undefined>()
  for (const item of capabilities) {
    const { capability, identified } = 'capability' in item ? item : { capability: item, identified: true }
    const where = { file: capability.source.file, capability: capability.identifier }
    const earlier = identified ? firstSeen.get(capability.identifier) : undefined
    if (!identified) {
      // no identifier: nothing to compare
    } else if (earlier) {
      const at = earlier.source.file === capability.source.file ? 'earlier in this file' : `in ${earlier.source.file}`
      problems.push({ kind: 'duplicate-capability', ...where, field: 'identifier', message: `capability with identifier \`${capability.identifier}\` already exists (${at})`, expected: 'identifiers unique across all capability files' })
    } else firstSeen.set(capability.identifier, capability)

    capability.permissions.forEach((entry, i) => {
      const expanded = manifests.expand(entry.identifier)
      const field = entry.form === 'object' ? `permissions[${i}].identifier` : `permissions[${i}]`
      if (!expanded.ok) {
        const hints = hintsFor(entry.identifier, manifests)
        const expected = hints.expected
        // A set that exists but does not expand (a member missing) needs no "did you mean" itself.
        const suggestions = hints.suggestions.filter((s) => s !== entry.identifier)
        const hint = suggestions.length > 0 ? ` (did you mean ${suggestions.join(' or ')}?)` : ''
        problems.push({ kind: expanded.kind, ...where, field, message: `Permission ${entry.identifier} not found: ${expanded.message}${hint}`, expected })
        return
      }
      problems.push(...scopeProblems(entry, i, expanded.permissions, manifests, where, brokenDefinitions))
    })
  }
  return problems
}

/**
 * Scope values a command could not use, which would deny it at run time: those of an object entry
 * (once per manifest that interprets them), and those of every permission the entry reaches
 * (a permission file's own scope, through sets and defaults).
 */
function scopeProblems(
  entry: PermissionEntry,
  index: number,
  reached: readonly ExpandedPermission[],
  manifests: ManifestSet,
  where: { file: string; capability: string },
  brokenDefinitions: Map<string, string | undefined>,
): CapabilityProblem[] {
  const problems: CapabilityProblem[] = []
  const via = reached.length === 1 && reached[0]!.id === entry.identifier ? '' : ` (reached through ${entry.identifier})`
  const checkedKeys = new Set<string>()
  for (const permission of reached) {
    const scopeError = manifests.get(permission.key)?.scopeError
    if (!scopeError) continue
    if (!checkedKeys.has(permission.key)) {
      checkedKeys.add(permission.key)
      for (const list of ['allow', 'deny'] as const) {
        ;(entry[list] ?? []).forEach((value, j) => {
          const error = scopeError(value)
          if (error === undefined) return
          problems.push({ kind: 'parse', ...where, field: `permissions[${index}].${list}[${j}]`, permission: permission.id, message: `scope entry ${JSON.stringify(value)} cannot be compiled: ${error}; ${permission.id}${via} would be denied at run time`, expected: SCOPE_EXPECTED })
        })
      }
    }
    let broken = brokenDefinitions.get(permission.id)
    if (!brokenDefinitions.has(permission.id)) brokenDefinitions.set(permission.id, (broken = definitionScopeError(permission, scopeError)))
    if (broken === undefined) continue
    const at = permission.definition.source ? ` (defined in ${permission.definition.source.file}${permission.definition.source.line ? `:${permission.definition.source.line}` : ''})` : ''
    problems.push({ kind: 'parse', ...where, field: entry.form === 'object' ? `permissions[${index}].identifier` : `permissions[${index}]`, permission: permission.id, message: `permission ${permission.id}${via}${at} has a scope entry that cannot be compiled: ${broken}; it would be denied at run time`, expected: SCOPE_EXPECTED })
  }
  return problems
}

const SCOPE_EXPECTED = 'scope entries the command can use (opener: `{ url }` or `{ path }` with a valid glob)'

/** The first unusable value of a permission's own scope, as `scope.allow[0]: why`. */
function definitionScopeError(permission: ExpandedPermission, scopeError: NonNullable<Manifest['scopeError']>): string | undefined {
  for (const list of ['allow', 'deny'] as const) {
    const values = permission.definition.scope?.[list] ?? []
    for (let j = 0; j < values.length; j++) {
      const error = scopeError(values[j])
      if (error !== undefined) return `scope.${list}[${j}] ${JSON.stringify(values[j])}: ${error}`
    }
  }
  return undefined
}

/** What a capability could have named instead: the nearest known identifiers, and a summary for `expected`. */
function hintsFor(identifier: string, manifests: ManifestSet): { expected: string; suggestions: string[] } {
  const all = manifests.identifiers().map((i) => i.id)
  if (hasEmptySegment(identifier)) {
    // `core::window` → `core:window`: a manifest key stands for its default set.
    const tidy = identifier.split(':').filter(Boolean).join(':')
    const suggestions = manifests.get(tidy) ? [`${tidy}:default`] : all.includes(tidy) ? [tidy] : nearest(tidy, all, 3)
    return { expected: suggestions.length > 0 ? `one of ${suggestions.join(', ')}` : 'a known permission identifier (`agent capabilities permissions` lists them)', suggestions }
  }
  if (identifierError(identifier)) return { expected: 'a permission identifier such as `core:default`, `opener:allow-open-url` or `allow-my-command`', suggestions: [] }
  const { prefix, base } = parseIdentifier(identifier)
  const key = prefix ?? APP_MANIFEST_KEY
  if (!manifests.get(key)) {
    // Core namespaces need their prefix: `window:allow-close` is `core:window:allow-close`.
    const suggestions = manifests.get(`core:${key}`) && all.includes(`core:${identifier}`) ? [`core:${identifier}`] : nearest(key, manifests.keys().filter((k) => k !== APP_MANIFEST_KEY), 1).map((k) => `${k}:${base}`)
    return { expected: `a known prefix: ${manifests.keys().filter((k) => k !== APP_MANIFEST_KEY).sort().join(', ')} (or none for app commands)`, suggestions }
  }
  const candidates = all.filter((id) => (key === APP_MANIFEST_KEY ? !id.includes(':') : id.startsWith(`${key}:`) && !id.slice(key.length + 1).includes(':')))
  if (candidates.length === 0) return { expected: key === APP_MANIFEST_KEY ? 'an app command permission, but no command is exposed to frontends' : `a permission of ${key}`, suggestions: [] }
  const best = nearest(identifier, candidates, 5, Infinity)
  return {
    expected: `one of ${best.join(', ')}${candidates.length > best.length ? ` … (${candidates.length} known for ${key === APP_MANIFEST_KEY ? 'the app' : key})` : ''}`,
    suggestions: nearest(identifier, candidates, 1),
  }
}

/** Up to `count` known names closest to `name` (within 3 edits unless told), closest first. */
function nearest(name: string, known: readonly string[], count: number, maxDistance = 3): string[] {
  return closestNames(name, known, maxDistance).slice(0, count)
}
