// Turns one JSON Schema validation error into a line a person can act on: the key, what is allowed,
// what was given, and for an unknown key the closest valid one ("did you mean mode?").

import type { OutputUnit } from '@cfworker/json-schema'
import { closestNames } from '../../sdk/closest.ts'
import type { JsonSchema } from '../../sdk/types.ts'

const segments = (pointer: string) => pointer.replace(/^#\/?/, '').split('/').filter(Boolean).map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))

/** The schema that describes the value at an instance path (properties, items, additionalProperties, anyOf/oneOf). */
export function schemaAt(schema: JsonSchema | undefined, path: string[]): JsonSchema | undefined {
  let current = schema
  for (const segment of path) {
    if (!current) return undefined
    current = childSchema(current, segment)
  }
  return current
}

function childSchema(schema: JsonSchema, segment: string): JsonSchema | undefined {
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (properties && segment in properties) return properties[segment]
  if (/^\d+$/.test(segment) && typeof schema.items === 'object') return schema.items as JsonSchema
  if (typeof schema.additionalProperties === 'object') return schema.additionalProperties as JsonSchema
  for (const alternative of [...((schema.anyOf as JsonSchema[] | undefined) ?? []), ...((schema.oneOf as JsonSchema[] | undefined) ?? [])]) {
    const child = childSchema(alternative, segment)
    if (child) return child
  }
  return undefined
}

/** The value at a path of plain objects (undefined where the path leaves them). */
export function valueAt(value: unknown, path: string[]): unknown {
  let current = value
  for (const segment of path) current = typeof current === 'object' && current !== null ? (current as Record<string, unknown>)[segment] : undefined
  return current
}

/** "got …", or nothing for keys that may hold a secret (the line ends up in logs). */
function got(key: string, value: unknown): string {
  if (/key|token|secret|password|credential/i.test(key)) return ''
  const text = JSON.stringify(value) ?? String(value)
  return ` (got ${text.length > 40 ? `${text.slice(0, 40)}…` : text})`
}

const TYPE_NAMES: Record<string, string> = { number: 'a number', integer: 'an integer', string: 'a string', boolean: 'true or false', array: 'a list', object: 'a mapping', null: 'null' }

export function explainProblem(unit: OutputUnit, schema: JsonSchema, value: unknown, keyPrefix: string): string {
  const path = segments(unit.instanceLocation)
  const key = [keyPrefix, ...path].filter(Boolean).join('.') || '(root)'
  const here = schemaAt(schema, path)
  const given = valueAt(value, path)
  if (unit.keyword === 'false') {
    const parent = schemaAt(schema, path.slice(0, -1))
    const properties = (parent?.properties as Record<string, JsonSchema> | undefined) ?? {}
    const known = Object.keys(properties)
    const name = path.at(-1) ?? ''
    // `x-aliases` lists names other tools use for a key (`max_turns` for `max_iterations`).
    const aliased = known.find((k) => Array.isArray(properties[k]?.['x-aliases']) && (properties[k]!['x-aliases'] as unknown[]).includes(name))
    const near = aliased ?? closestNames(name, known)[0]
    return `${key}: unknown key${near ? ` (did you mean "${near}"?)` : ''}${known.length ? `; valid keys: ${known.join(', ')}` : ''}`
  }
  if (unit.keyword === 'enum' && Array.isArray(here?.enum)) return `${key}: must be one of ${here.enum.map((v) => String(v)).join(', ')}${got(key, given)}`
  if (unit.keyword === 'type' && here?.type !== undefined) {
    const types = ([] as unknown[]).concat(here.type).map((t) => TYPE_NAMES[String(t)] ?? String(t))
    return `${key}: must be ${types.join(' or ')}${got(key, given)}`
  }
  const bounds: Record<string, string> = { minimum: 'at least', exclusiveMinimum: 'greater than', maximum: 'at most', exclusiveMaximum: 'less than' }
  if (unit.keyword in bounds && here && typeof here[unit.keyword] === 'number') return `${key}: must be ${bounds[unit.keyword]} ${String(here[unit.keyword])}${got(key, given)}`
  const message = unit.error.replace(/^Instance (does not|is not|has)/, (m) => m.replace('Instance ', 'value '))
  return `${key}: ${message}`
}
