// Reading one capability file: JSON or TOML by extension, the three file forms dispatched by shape,
// and every field of every capability checked — all problems collected, each with the file, the
// capability, the field and what was expected. Unknown fields are ignored (as in the reference) but
// reported as warnings, since `platform` for `platforms` silently widens a capability.

import { createRequire } from 'node:module'
import { extname } from 'node:path'
import { closestNames } from '../closest.ts'
import { globError } from './glob.ts'
import { hasEmptySegment, identifierError } from './identifier.ts'
import { jsonErrorOffset, lineColumn } from './json-error.ts'
import { remoteUrlError } from './remote-url.ts'
import { TARGETS, type Capability, type CapabilityProblem, type CapabilityWarning, type PermissionEntry, type ProblemKind, type Target } from './types.ts'

export interface ParseResult {
  /** The capabilities without problems, defaults applied. */
  capabilities: Capability[]
  /** Capabilities with problems, with what could be read (their permissions are still checked). */
  partial: Array<{ capability: Capability; identified: boolean }>
  problems: CapabilityProblem[]
  warnings: CapabilityWarning[]
}

export type CapabilityFormat = 'json' | 'toml'

const requireLazy = createRequire(import.meta.url)
let toml: { parse(text: string): unknown } | undefined

/** The format a file name implies, or undefined for any other extension. */
export function formatOf(file: string): CapabilityFormat | undefined {
  const ext = extname(file).toLowerCase()
  return ext === '.json' ? 'json' : ext === '.toml' ? 'toml' : undefined
}

const CAPABILITY_FIELDS = ['identifier', 'description', 'remote', 'local', 'windows', 'webviews', 'permissions', 'platforms', '$schema']
const ENTRY_FIELDS = ['identifier', 'allow', 'deny']
const PLATFORM_LIST = TARGETS.map((t) => `\`${t}\``).join(', ')

/** `string "main"`, `number 3`, `an array` … for "invalid type" messages. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (value instanceof Date || (typeof value === 'object' && value?.constructor?.name === 'TomlDate')) return 'a date'
  if (typeof value === 'object') return 'an object'
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`
  return `${typeof value} ${String(value)}`
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && v.constructor?.name !== 'TomlDate'

/** A JSON syntax error with its line and column (Node's message has a position on some versions only). */
function jsonErrorMessage(error: Error, text: string): string {
  const offset = jsonErrorOffset(text)
  const first = error.message.replace(/, (\.\.\.)?"[\s\S]*" is not valid JSON$/, '').split('\n')[0]!.replace(/ in JSON at position \d+.*$/, '')
  if (offset < 0) return first
  const { line, column } = lineColumn(text, offset)
  return `${first} at line ${line} column ${column}`
}

/** TOML tables come with a null prototype: make plain values (dates stay, to be refused as dates). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain)
  if (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]))
  }
  return value
}

/** The value a JSON or TOML text holds, or why it does not parse (with line and column). */
export function readDocument(format: CapabilityFormat, text: string): { ok: true; document: unknown } | { ok: false; message: string } {
  try {
    if (format === 'json') return { ok: true, document: JSON.parse(text) }
    toml ??= requireLazy('smol-toml') as { parse(text: string): unknown }
    return { ok: true, document: plain(toml.parse(text)) }
  } catch (error) {
    const e = error as Error & { line?: number; column?: number }
    const message = format === 'json' ? jsonErrorMessage(e, text) : `${e.message.split('\n')[0]}${e.line ? ` at line ${e.line} column ${e.column}` : ''}`
    return { ok: false, message: `failed to parse ${format.toUpperCase()}: ${message}` }
  }
}

/** Parses the text of one capability file. `file` names it in problems; its extension picks the format. */
export function parseCapabilityFile(file: string, text: string, format: CapabilityFormat | undefined = formatOf(file)): ParseResult {
  const result: ParseResult = { capabilities: [], partial: [], problems: [], warnings: [] }
  const problem = (kind: ProblemKind, message: string, at: Partial<CapabilityProblem> = {}) => result.problems.push({ kind, file, message, ...at })
  if (!format) {
    problem('parse', `unknown capability format ${extname(file) || '(no extension)'}`, { expected: 'a .json or .toml file' })
    return result
  }
  const read = readDocument(format, text)
  if (!read.ok) {
    problem('parse', read.message)
    return result
  }
  const document = read.document
  // Dispatch by shape: an array is a list; an object with `capabilities` is a named list (its other
  // keys ignored); any other object is a single capability.
  if (Array.isArray(document)) {
    document.forEach((item, index) => parseCapability(item, { file, index }, result))
  } else if (isObject(document) && 'capabilities' in document) {
    const list = document.capabilities
    for (const key of Object.keys(document)) {
      if (key !== 'capabilities' && key !== '$schema') result.warnings.push({ file, field: key, message: `unknown field \`${key}\` next to \`capabilities\` is ignored` })
    }
    if (!Array.isArray(list)) problem('parse', `invalid type: ${describeValue(list)}`, { field: 'capabilities', expected: 'an array of capability objects' })
    else list.forEach((item, index) => parseCapability(item, { file, index }, result))
  } else if (isObject(document)) {
    parseCapability(document, { file }, result)
  } else {
    problem('parse', `invalid type: ${describeValue(document)}`, { expected: 'a capability object, an array of capability objects, or an object with a `capabilities` array' })
  }
  return result
}

function parseCapability(value: unknown, source: { file: string; index?: number }, result: ParseResult): void {
  const label = source.index === undefined ? '(no identifier)' : `#${source.index}`
  const name = isObject(value) && typeof value.identifier === 'string' ? value.identifier : label
  const before = result.problems.length
  const problem = (kind: ProblemKind, field: string | undefined, message: string, expected?: string) =>
    result.problems.push({ kind, file: source.file, capability: name, ...(field ? { field } : {}), ...(expected ? { expected } : {}), message })
  const invalidType = (field: string, got: unknown, expected: string) => problem('parse', field, `invalid type: ${describeValue(got)}`, expected)

  if (!isObject(value)) {
    invalidType(source.index === undefined ? '' : `capabilities[${source.index}]`, value, 'a capability object')
    return
  }
  for (const key of Object.keys(value)) {
    if (CAPABILITY_FIELDS.includes(key)) continue
    const hint = closestNames(key, CAPABILITY_FIELDS)[0]
    result.warnings.push({ file: source.file, capability: name, field: key, message: `unknown field \`${key}\` is ignored${hint ? ` (did you mean \`${hint}\`?)` : ''}` })
  }

  if (!('identifier' in value)) problem('missing-field', 'identifier', 'missing field `identifier`', 'a string naming the capability')
  else if (typeof value.identifier !== 'string') invalidType('identifier', value.identifier, 'a string')

  const description = value.description ?? ''
  if (typeof description !== 'string') invalidType('description', description, 'a string')

  let remote: Capability['remote'] = null
  if (value.remote !== undefined && value.remote !== null) {
    if (!isObject(value.remote)) invalidType('remote', value.remote, 'an object `{ urls: [...] }` or null')
    else if (!('urls' in value.remote)) problem('missing-field', 'remote.urls', 'missing field `urls`', 'an array of URL patterns')
    else if (!Array.isArray(value.remote.urls)) invalidType('remote.urls', value.remote.urls, 'an array of URL patterns')
    else {
      const urls: string[] = []
      value.remote.urls.forEach((url, i) => {
        if (typeof url !== 'string') return invalidType(`remote.urls[${i}]`, url, 'a URL pattern string')
        const error = remoteUrlError(url)
        if (error) problem('parse', `remote.urls[${i}]`, `invalid URL pattern for remote URL ${url}: ${error}`, 'a URLPattern such as `https://*.example.com` or `https://example.com:*/app/*`')
        else urls.push(url)
      })
      remote = { urls }
    }
  }

  const local = value.local ?? true
  if (typeof local !== 'boolean') invalidType('local', local, 'a boolean')

  const labels = (field: 'windows' | 'webviews'): string[] => {
    const list = value[field]
    if (list === undefined) return []
    if (!Array.isArray(list)) {
      invalidType(field, list, `an array of ${field === 'windows' ? 'window' : 'webview'} labels or glob patterns`)
      return []
    }
    return list.filter((item, i) => {
      if (typeof item !== 'string') return invalidType(`${field}[${i}]`, item, 'a label or glob pattern string'), false
      const error = globError(item)
      if (error) return problem('parse', `${field}[${i}]`, `failed to run glob: ${error}`, 'a glob pattern (`*`, `?`, `[a-z]`; `**` only as a whole component)'), false
      return true
    })
  }
  const windows = labels('windows')
  const webviews = labels('webviews')

  const warn = (field: string, message: string) => result.warnings.push({ file: source.file, capability: name, field, message })
  const permissions = parsePermissions(value, problem, invalidType, warn)

  let platforms: Target[] | null = null
  if (value.platforms !== undefined && value.platforms !== null) {
    if (!Array.isArray(value.platforms)) invalidType('platforms', value.platforms, `an array of ${PLATFORM_LIST}, or null for all`)
    else {
      platforms = []
      value.platforms.forEach((p, i) => {
        if (typeof p === 'string' && (TARGETS as readonly string[]).includes(p)) platforms!.push(p as Target)
        else if (typeof p !== 'string') invalidType(`platforms[${i}]`, p, `one of ${PLATFORM_LIST}`)
        else problem('invalid-platform', `platforms[${i}]`, `unknown variant \`${p}\``, `one of ${PLATFORM_LIST} (exact spelling)`)
      })
    }
  }

  const capability: Capability = {
    identifier: name,
    description: typeof description === 'string' ? description : '',
    remote,
    local: local === false ? false : true,
    windows,
    webviews,
    permissions,
    platforms,
    source,
  }
  if (result.problems.length > before) result.partial.push({ capability, identified: typeof value.identifier === 'string' })
  else result.capabilities.push(capability)
}

type ProblemFn = (kind: ProblemKind, field: string | undefined, message: string, expected?: string) => void

function parsePermissions(
  value: Record<string, unknown>,
  problem: ProblemFn,
  invalidType: (field: string, got: unknown, expected: string) => void,
  warn: (field: string, message: string) => void,
): PermissionEntry[] {
  if (!('permissions' in value)) {
    problem('missing-field', 'permissions', 'missing field `permissions`', 'an array of permission identifiers or `{ identifier, allow?, deny? }` objects')
    return []
  }
  if (!Array.isArray(value.permissions)) {
    invalidType('permissions', value.permissions, 'an array of permission identifiers or `{ identifier, allow?, deny? }` objects')
    return []
  }
  const entries: PermissionEntry[] = []
  const seen = new Map<string, number>()
  const grammar = (field: string, id: string) => {
    const error = identifierError(id)
    // `core::window` passes on: the check against the manifests reports it as unknown, with hints.
    if (error && hasEmptySegment(id)) return true
    if (error) problem('invalid-permission-identifier', field, `${error}: "${id}"`, 'a permission identifier such as `core:default`, `opener:allow-open-url` or `allow-my-command`')
    return !error
  }
  value.permissions.forEach((raw, i) => {
    const field = `permissions[${i}]`
    // The spec's unique-items rule: deep equality, so "x" and { identifier: "x" } are different items.
    const key = canonicalJson(raw)
    const first = seen.get(key)
    if (first !== undefined) problem('duplicate-permission', field, `duplicate of permissions[${first}] (${describeValue(typeof raw === 'string' ? raw : (raw as { identifier?: unknown })?.identifier)})`, 'unique permission entries')
    else seen.set(key, i)
    if (typeof raw === 'string') {
      if (grammar(field, raw)) entries.push({ identifier: raw, form: 'string' })
      return
    }
    if (!isObject(raw)) return invalidType(field, raw, 'a permission identifier string or an object `{ identifier, allow?, deny? }`')
    for (const key of Object.keys(raw)) if (!ENTRY_FIELDS.includes(key)) warn(`${field}.${key}`, `unknown field \`${key}\` of a permission entry is ignored`)
    let ok = true
    if (!('identifier' in raw)) {
      problem('missing-field', `${field}.identifier`, 'missing field `identifier`', 'the permission identifier this entry scopes')
      ok = false
    } else if (typeof raw.identifier !== 'string') {
      invalidType(`${field}.identifier`, raw.identifier, 'a permission identifier string')
      ok = false
    } else ok = grammar(`${field}.identifier`, raw.identifier)
    for (const list of ['allow', 'deny'] as const) {
      if (raw[list] !== undefined && raw[list] !== null && !Array.isArray(raw[list])) {
        invalidType(`${field}.${list}`, raw[list], 'an array of scope values, or null')
        ok = false
      }
    }
    if (ok) entries.push({ identifier: raw.identifier as string, allow: (raw.allow as unknown[] | null | undefined) ?? null, deny: (raw.deny as unknown[] | null | undefined) ?? null, form: 'object' })
  })
  return entries
}

/** JSON with sorted object keys: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
  return JSON.stringify(value) ?? 'null'
}
