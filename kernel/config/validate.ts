// Validates an extension's config section against its JSON Schema and fills in the schema's
// defaults. Problems become one line naming the file, the key and what was expected. Numbers must
// be finite: YAML's .inf and .nan pass a JSON Schema `type: number` (and .inf even `integer`
// with a minimum), and an infinite limit is no limit.

import { Validator } from '@cfworker/json-schema'
import { ConfigError } from '../../sdk/errors.ts'
import type { JsonSchema } from '../../sdk/types.ts'
import { explainProblem } from './explain.ts'

/** Fills `default` values of object properties, recursively, without touching given values. */
export function applyDefaults(schema: JsonSchema, value: unknown): unknown {
  if (value === undefined && 'default' in schema) value = structuredClone(schema.default)
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (properties && (value === undefined || (typeof value === 'object' && value !== null && !Array.isArray(value)))) {
    const out: Record<string, unknown> = { ...((value as Record<string, unknown>) ?? {}) }
    for (const [key, sub] of Object.entries(properties)) {
      const filled = applyDefaults(sub, out[key])
      if (filled !== undefined) out[key] = filled
    }
    return out
  }
  return value
}

/** Dot paths (below `prefix`) of every number in `value` that is not finite, with how YAML spells it. */
export function nonFiniteNumbers(value: unknown, prefix: string, out: string[] = []): string[] {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    out.push(`${prefix || '(root)'}: must be a finite number, not ${Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf'}`)
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nonFiniteNumbers(item, `${prefix}.${i}`, out))
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) nonFiniteNumbers(item, prefix ? `${prefix}.${key}` : key, out)
  }
  return out
}

/** Every problem of a config section (one line each, naming the key), and the section with defaults applied. */
export function configProblems(schema: JsonSchema, value: unknown, key: string): { filled: Record<string, unknown>; problems: string[] } {
  const filled = applyDefaults(schema, value ?? {}) as Record<string, unknown>
  const infinite = nonFiniteNumbers(filled, key)
  const result = new Validator(schema as never, '2020-12', false).validate(filled)
  if (result.valid && infinite.length === 0) return { filled, problems: [] }
  // Keep the leaf errors: the outer ones ("properties do not match") only repeat them.
  const leaves = result.errors.filter((e) => !['properties', 'allOf', 'anyOf', 'items', 'additionalProperties', '$ref'].includes(e.keyword) || result.errors.length === 1)
  const schemaLines = (leaves.length ? leaves : result.errors).map((e) => explainProblem(e, schema, filled, key))
  // A non-finite number also fails its minimum or integer check: say it once, as the clearer line.
  return { filled, problems: [...new Set([...infinite, ...schemaLines.filter((l) => !infinite.some((i) => l.startsWith(i.slice(0, i.indexOf(': ') + 2))))])] }
}

/** Returns the validated config (defaults applied), or throws ConfigError listing every problem. */
export function validateConfig(schema: JsonSchema, value: unknown, where: { file: string; key: string }): Record<string, unknown> {
  const { filled, problems } = configProblems(schema, value, where.key)
  if (problems.length === 0) return filled
  throw new ConfigError(`${where.file}: ${problems.join('; ')}`)
}
