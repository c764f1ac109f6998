// Scope lists as commands receive them: values kept in the order they were written, each value
// once (deep equality, so `{url, app}` and `{app, url}` are one value). A capability holding
// `opener:default` and a scope-only entry of the same plugin would otherwise list the default URLs
// twice.

import { canonicalJson } from './parse.ts'
import type { ScopeLists, ScopeValue } from './types.ts'

// Scope values are read-only once parsed, so an object's key is computed once.
const keys = new WeakMap<object, string>()

function keyOf(value: ScopeValue): string {
  if (typeof value !== 'object' || value === null) return canonicalJson(value)
  let key = keys.get(value)
  if (key === undefined) keys.set(value, (key = canonicalJson(value)))
  return key
}

/** The values of the lists in order, each once. */
export function uniqueValues(...lists: ReadonlyArray<readonly ScopeValue[]>): ScopeValue[] {
  const seen = new Set<string>()
  const out: ScopeValue[] = []
  for (const list of lists) {
    for (const value of list) {
      const key = keyOf(value)
      if (seen.has(key)) continue
      seen.add(key)
      out.push(value)
    }
  }
  return out
}

/** Several scopes as one (allow lists joined, deny lists joined), each value once. */
export function mergeScopes(...scopes: readonly ScopeLists[]): ScopeLists {
  return { allow: uniqueValues(...scopes.map((s) => s.allow)), deny: uniqueValues(...scopes.map((s) => s.deny)) }
}
