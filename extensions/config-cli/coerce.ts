// What a value typed after `agent config set <key>` becomes. The schema of the key's owner decides:
// a string stays a string (`{…}` templates, `a: b` text, `#` included), YAML is read only where the
// schema wants a non-string. For a key no schema describes, YAML scalars and `[…]`/`{…}` collections
// keep their type, but text that only looks like a mapping (`A push: {x}`, `{x}`) stays text.

import type { JsonSchema } from 'agent/sdk'
import { parse as parseYaml } from 'yaml'

type Kind = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object'

const kindOf = (value: unknown): Kind => (value === null ? 'null' : Array.isArray(value) ? 'array' : (typeof value as Kind))

/** The kinds of value a schema admits (integer counts as number); undefined when it does not say. */
export function allowedKinds(schema: JsonSchema | undefined): Set<Kind> | undefined {
  const kinds = new Set<Kind>()
  const visit = (s: unknown) => {
    if (typeof s !== 'object' || s === null) return
    const node = s as JsonSchema
    for (const type of ([] as unknown[]).concat(node.type ?? [])) kinds.add(type === 'integer' ? 'number' : (type as Kind))
    if (Array.isArray(node.enum)) for (const v of node.enum) kinds.add(kindOf(v))
    if ('const' in node) kinds.add(kindOf(node.const))
    if (node.type === undefined && (node.properties || node.additionalProperties)) kinds.add('object')
    for (const alternative of [...((node.anyOf as unknown[]) ?? []), ...((node.oneOf as unknown[]) ?? [])]) visit(alternative)
  }
  visit(schema)
  return kinds.size ? kinds : undefined
}

function readYaml(raw: string): { value: unknown } | undefined {
  try {
    return { value: parseYaml(raw) }
  } catch {
    return undefined
  }
}

/** An unquoted scalar that reads as a string is kept as typed: YAML would drop ` #…` as a comment. */
const asTyped = (raw: string, value: unknown) => (typeof value === 'string' && !/^\s*["']/.test(raw) ? raw : value)

export function coerceValue(raw: string, schema: JsonSchema | undefined): unknown {
  const parsed = readYaml(raw)
  const kinds = allowedKinds(schema)
  if (kinds) {
    if (parsed && kinds.has(kindOf(parsed.value))) return asTyped(raw, parsed.value)
    if (kinds.has('string')) return raw
    // Not what the schema wants: the schema check that follows says what was expected.
    return parsed ? parsed.value : raw
  }
  if (!parsed) return raw
  const value = parsed.value
  if (kindOf(value) === 'object' && (!raw.trimStart().startsWith('{') || Object.values(value as object).some((v) => v === null))) return raw
  return asTyped(raw, value)
}
