// Bounded JSON intake for anything that parses a body from the network: nesting depth and the
// total number of object members and array elements are checked by a linear scan of the text
// BEFORE JSON.parse, so a hostile body is refused with a 400 and never reaches the recursive code
// (redaction, stringify, transcript walks) that would overflow the stack on it. `__proto__` keys are
// dropped.

import { HttpError } from './http-error.ts'

export interface JsonBounds {
  /** Deepest allowed nesting of objects/arrays (a bare `{}` is depth 1). Default 64. */
  maxDepth?: number
  /** Most object members plus array elements allowed in the whole document. Default 10,000. */
  maxKeys?: number
}

export const JSON_INTAKE_DEFAULTS = { maxDepth: 64, maxKeys: 10_000 } as const

const INTAKE_MARKER: unique symbol = Symbol.for('agent.json-intake-error') as never

/** A body that is not acceptable JSON: always a 400 with a stable `code`. */
export class JsonIntakeError extends HttpError {
  readonly [INTAKE_MARKER] = true

  constructor(message: string, code: 'invalid_json' | 'json_too_deep' | 'json_too_large' | 'invalid_body') {
    super(400, message, { code })
    this.name = 'JsonIntakeError'
  }

  static override isInstance(value: unknown): value is JsonIntakeError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[INTAKE_MARKER] === true
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}

/**
 * Checks depth and entry count of JSON text without parsing it. Entries are counted as commas
 * outside strings plus one per non-empty container, which equals members + elements for valid
 * JSON; for invalid JSON the count is merely some number and JSON.parse refuses it afterwards.
 */
export function checkJsonBounds(text: string, bounds: JsonBounds = {}): void {
  const maxDepth = bounds.maxDepth ?? JSON_INTAKE_DEFAULTS.maxDepth
  const maxKeys = bounds.maxKeys ?? JSON_INTAKE_DEFAULTS.maxKeys
  let depth = 0
  let entries = 0
  let inString = false
  let justOpened = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
      continue
    }
    if (isSpace(c)) continue
    if (justOpened) {
      justOpened = false
      if (c !== CLOSE_OBJECT && c !== CLOSE_ARRAY) entries++
    }
    if (c === QUOTE) inString = true
    else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > maxDepth) throw new JsonIntakeError(`JSON nesting deeper than ${maxDepth} levels`, 'json_too_deep')
      justOpened = true
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth > 0) depth--
    } else if (c === COMMA) entries++
    if (entries > maxKeys) throw new JsonIntakeError(`JSON has more than ${maxKeys} members and elements`, 'json_too_large')
  }
}

// JSON.parse makes `"__proto__"` an own property, harmless until some code copies the object with
// Object.assign or a for-in merge, which then swaps the target's prototype: such keys are dropped.
// The reviver costs, so it runs only when the text could spell the key (plainly or escaped).
const dropProto = (key: string, value: unknown) => (key === '__proto__' ? undefined : value)
const MAY_SPELL_PROTO = /__proto__|\\u/

/** Parses JSON text (a leading BOM is ignored) within `bounds`; JsonIntakeError (400) otherwise. */
export function parseJsonBounded(text: string, bounds: JsonBounds = {}): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  checkJsonBounds(body, bounds)
  try {
    return MAY_SPELL_PROTO.test(body) ? JSON.parse(body, dropProto) : JSON.parse(body)
  } catch {
    throw new JsonIntakeError('Request body is not valid JSON', 'invalid_json')
  }
}

/** parseJsonBounded for a body that must be a JSON object (not an array, string or null). */
export function parseJsonObject<T = Record<string, unknown>>(text: string, bounds: JsonBounds = {}, what = 'Request body'): T {
  const value = parseJsonBounded(text, bounds)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonIntakeError(`${what} must be a JSON object`, 'invalid_body')
  }
  return value as T
}
