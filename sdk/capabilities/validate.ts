// Checking a whole set of capability files: each file parsed, identifiers unique across all files,
// and every permission entry naming a known manifest and a permission or set of it. Capabilities
// of every platform are checked (our manifests do not vary by build target), so `check` on one
// machine finds what would fail on another.

import { parseCapabilityFile, type ParseResult } from './parse.ts'
import { APP_MANIFEST_KEY, type ManifestSet } from './manifests.ts'
import { parseIdentifier } from './identifier.ts'
import type { Capability, CapabilityProblem, CapabilityWarning } from './types.ts'

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
      if (expanded.ok) return
      const field = entry.form === 'object' ? `permissions[${i}].identifier` : `permissions[${i}]`
      problems.push({ kind: expanded.kind === 'invalid-permission-identifier' ? 'invalid-permission-identifier' : expanded.kind, ...where, field, message: `Permission ${entry.identifier} not found: ${expanded.message}`, expected: expectedFor(entry.identifier, manifests) })
    })
  }
  return problems
}

/** A few known identifiers close to the one written, or the manifest keys when the prefix is unknown. */
function expectedFor(identifier: string, manifests: ManifestSet): string {
  const { prefix } = parseIdentifier(identifier)
  const key = prefix ?? APP_MANIFEST_KEY
  if (!manifests.get(key)) return `a known prefix: ${manifests.keys().filter((k) => k !== APP_MANIFEST_KEY).sort().join(', ')} (or none for app commands)`
  const candidates = manifests.identifiers().map((i) => i.id).filter((id) => (key === APP_MANIFEST_KEY ? !id.includes(':') : id.startsWith(`${key}:`) && !id.slice(key.length + 1).includes(':')))
  if (candidates.length === 0) return key === APP_MANIFEST_KEY ? 'an app command permission, but no command is exposed to frontends' : `a permission of ${key}`
  const score = (id: string) => similarity(id, identifier)
  const best = [...candidates].sort((a, b) => score(b) - score(a)).slice(0, 5)
  return `one of ${best.join(', ')}${candidates.length > best.length ? ` … (${candidates.length} known for ${key === APP_MANIFEST_KEY ? 'the app' : key})` : ''}`
}

/** Shared character bigrams (Dice coefficient): enough to rank a few suggestions. */
function similarity(a: string, b: string): number {
  const grams = (s: string) => {
    const out = new Map<string, number>()
    for (let i = 0; i < s.length - 1; i++) out.set(s.slice(i, i + 2), (out.get(s.slice(i, i + 2)) ?? 0) + 1)
    return out
  }
  const ga = grams(a)
  const gb = grams(b)
  let shared = 0
  for (const [g, n] of ga) shared += Math.min(n, gb.get(g) ?? 0)
  return (2 * shared) / Math.max(1, a.length + b.length - 2)
}
