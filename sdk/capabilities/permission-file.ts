// A plugin's permission file (or the same document contributed by an extension): `[[permission]]`
// entries (identifier, description, commands.allow/deny, scope.allow/deny, platforms), `[[set]]`
// entries, a `[default]` table and a `commands` list (allow-/deny- generated for each), in TOML or
// JSON. Every field is checked and every problem reported at once, each with the file, its line,
// the field and what was expected. Items with problems are left out (never half-read), except
// that a scope value the plugin cannot use keeps its permission: the engine then denies it.

import { closestNames } from '../closest.ts'
import { COMMAND_NAME, identifierError } from './identifier.ts'
import { describeValue, formatOf, isObject, readDocument } from './parse.ts'
import { lineLocator, type LineOf } from './source-lines.ts'
import { TARGETS, type CapabilityProblem, type CapabilityWarning, type Manifest, type PermissionDefinition, type PermissionSetDefinition, type ProblemKind, type ScopeValue, type Target } from './types.ts'

/** The document's shape (what extensions contribute through the capabilities service). */
export interface PermissionDocument {
  default?: { description?: string; permissions: string[] }
  set?: Array<{ identifier: string; description: string; permissions: string[] }>
  permission?: Array<{
    identifier: string
    description?: string
    commands?: { allow?: string[]; deny?: string[] }
    scope?: { allow?: ScopeValue[] | null; deny?: ScopeValue[] | null }
    platforms?: Target[] | null
  }>
  /** Commands that get `allow-<cmd>` and `deny-<cmd>`. */
  commands?: string[]
}

export interface PermissionFileResult {
  plugin: string
  file: string
  commands: string[]
  permissions: PermissionDefinition[]
  sets: PermissionSetDefinition[]
  default?: PermissionSetDefinition
  problems: CapabilityProblem[]
  warnings: CapabilityWarning[]
}

export interface PermissionFileOptions {
  /** How the plugin's commands read scope values (the opener's), to refuse unusable ones here. */
  scopeError?: Manifest['scopeError']
}

const TOP_FIELDS = ['default', 'set', 'permission', 'commands', '$schema']
const DEFAULT_FIELDS = ['description', 'permissions', 'version']
const SET_FIELDS = ['identifier', 'description', 'permissions']
const PERMISSION_FIELDS = ['identifier', 'description', 'commands', 'scope', 'platforms', 'version']
const BASE_NAME = 'a name without prefix, e.g. `allow-read-notes` (ASCII letters and digits, single hyphens between)'
const PLATFORM_LIST = TARGETS.map((t) => `\`${t}\``).join(', ')

/** Reads the text of one permission file of `plugin`; its extension picks the format. */
export function parsePermissionFile(plugin: string, file: string, text: string, options: PermissionFileOptions = {}): PermissionFileResult {
  const format = formatOf(file)
  if (!format) return { ...empty(plugin, file), problems: [{ kind: 'parse', file, message: `unknown permission format ${file.slice(file.lastIndexOf('.')) || '(no extension)'}`, expected: 'a .json or .toml file' }] }
  const read = readDocument(format, text)
  if (!read.ok) return { ...empty(plugin, file), problems: [{ kind: 'parse', file, message: read.message }] }
  return readPermissionDocument(plugin, file, read.document, { ...options, lineOf: lineLocator(format, text) })
}

const empty = (plugin: string, file: string): PermissionFileResult => ({ plugin, file, commands: [], permissions: [], sets: [], problems: [], warnings: [] })

type Path = Array<string | number>
const fieldOf = (path: Path) => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out ? `${out}.${part}` : part), '')

/** Checks a parsed document (a file's, or an extension's contribution, named by `file`). */
export function readPermissionDocument(plugin: string, file: string, document: unknown, options: PermissionFileOptions & { lineOf?: LineOf } = {}): PermissionFileResult {
  const result = empty(plugin, file)
  const at = (path: Path) => {
    const line = options.lineOf?.(path)
    return { file, ...(line !== undefined ? { line } : {}), ...(path.length ? { field: fieldOf(path) } : {}) }
  }
  let failed = false
  /** `keep`: the item stays (a scope value the plugin cannot use: the engine denies its commands). */
  const problem = (kind: ProblemKind, path: Path, message: string, expected?: string, permission?: string, keep = false) => {
    if (!keep) failed = true
    result.problems.push({ kind, ...at(path), ...(permission ? { permission } : {}), message, ...(expected ? { expected } : {}) })
  }
  const invalidType = (path: Path, got: unknown, expected: string) => problem('parse', path, `invalid type: ${describeValue(got)}`, expected)
  const unknownFields = (value: Record<string, unknown>, known: string[], path: Path) => {
    for (const key of Object.keys(value)) {
      if (known.includes(key)) continue
      const hint = closestNames(key, known, 3)[0]
      result.warnings.push({ ...at([...path, key]), message: `unknown field \`${key}\` is ignored${hint ? ` (did you mean \`${hint}\`?)` : ''}` })
    }
  }
  const strings = (value: unknown, path: Path, expected: string, each: (item: string, path: Path) => boolean = () => true): string[] | undefined => {
    if (!Array.isArray(value)) return invalidType(path, value, expected), undefined
    let ok = true
    value.forEach((item, i) => {
      if (typeof item !== 'string') ok = (invalidType([...path, i], item, 'a string'), false)
      else if (!each(item, [...path, i])) ok = false
    })
    return ok ? (value as string[]) : undefined
  }
  const command = (name: string, path: Path) => COMMAND_NAME.test(name) || (problem('parse', path, `invalid command name ${JSON.stringify(name)}`, 'a snake_case command name, e.g. `read_note`'), false)
  const baseName = (id: string, path: Path) => {
    const error = id.includes(':') ? 'a permission of a plugin file is named without the plugin prefix' : id === 'default' ? '`default` is the `[default]` table' : identifierError(`${plugin}:${id}`)
    if (error) problem('invalid-permission-identifier', path, `${error}: ${JSON.stringify(id)}`, BASE_NAME)
    return !error
  }
  const member = (id: string, path: Path) => {
    const error = id.includes(':') ? identifierError(id) : identifierError(`${plugin}:${id}`)
    if (error) problem('invalid-permission-identifier', path, `${error}: ${JSON.stringify(id)}`, 'a permission or set of this plugin (`allow-x`), or of another (`opener:allow-open-url`)')
    return !error
  }
  const required = (value: Record<string, unknown>, key: string, path: Path, expected: string) => {
    if (key in value) return true
    problem('missing-field', [...path, key], `missing field \`${key}\``, expected)
    return false
  }
  const optionalString = (value: Record<string, unknown>, key: string, path: Path) => {
    if (value[key] === undefined || typeof value[key] === 'string') return true
    invalidType([...path, key], value[key], 'a string')
    return false
  }
  const version = (value: Record<string, unknown>, path: Path) => {
    const v = value.version
    if (v !== undefined && !(Number.isInteger(v) && (v as number) > 0)) invalidType([...path, 'version'], v, 'a positive integer')
  }
  const seen = new Map<string, string>()
  const unique = (id: string, path: Path, what: string) => {
    const first = seen.get(id)
    if (first) return problem('duplicate-permission', [...path, 'identifier'], `\`${id}\` is already defined at ${first}`, 'identifiers unique within a plugin'), false
    seen.set(id, `${fieldOf(path)}${at(path).line ? ` (line ${at(path).line})` : ''} as a ${what}`)
    return true
  }
  const source = (path: Path) => {
    const line = options.lineOf?.(path)
    return line !== undefined ? { file, line } : { file }
  }

  if (!isObject(document)) {
    invalidType([], document, 'a table (TOML) or an object (JSON) with `permission`, `set`, `default` or `commands`')
    return result
  }
  unknownFields(document, TOP_FIELDS, [])

  if (document.commands !== undefined) result.commands = strings(document.commands, ['commands'], 'an array of command names', command) ?? []

  if (document.default !== undefined) {
    const path = ['default']
    const value = document.default
    if (!isObject(value)) invalidType(path, value, 'a table with `permissions` (and `description`)')
    else {
      failed = false
      unknownFields(value, DEFAULT_FIELDS, path)
      version(value, path)
      optionalString(value, 'description', path)
      const members = required(value, 'permissions', path, 'an array of permission identifiers') ? strings(value.permissions, [...path, 'permissions'], 'an array of permission identifiers', member) : undefined
      if (!failed && members) result.default = { identifier: 'default', description: (value.description as string | undefined) ?? 'Default plugin permissions.', permissions: [...members], source: source(path) }
    }
  }

  const list = (key: 'set' | 'permission') => {
    const value = document[key]
    if (value === undefined) return []
    if (Array.isArray(value)) return value
    invalidType([key], value, `an array of tables ([[${key}]])`)
    return []
  }

  list('permission').forEach((value, i) => {
    const path = ['permission', i]
    if (!isObject(value)) return invalidType(path, value, 'a table with `identifier` and `commands` and/or `scope`')
    failed = false
    unknownFields(value, PERMISSION_FIELDS, path)
    version(value, path)
    const id = required(value, 'identifier', path, BASE_NAME) && (typeof value.identifier === 'string' ? value.identifier : (invalidType([...path, 'identifier'], value.identifier, BASE_NAME), undefined))
    const named = typeof id === 'string' && baseName(id, [...path, 'identifier']) && unique(id, path, 'permission')
    optionalString(value, 'description', path)
    const definition: PermissionDefinition = { identifier: typeof id === 'string' ? id : '', source: source(path) }
    if (typeof value.description === 'string') definition.description = value.description

    if (value.commands !== undefined) {
      const cpath = [...path, 'commands']
      if (!isObject(value.commands)) invalidType(cpath, value.commands, 'a table with `allow` and/or `deny` command lists')
      else {
        unknownFields(value.commands, ['allow', 'deny'], cpath)
        const commands: { allow?: string[]; deny?: string[] } = {}
        for (const which of ['allow', 'deny'] as const) {
          if (value.commands[which] === undefined) continue
          const names = strings(value.commands[which], [...cpath, which], 'an array of command names', command)
          if (names) commands[which] = [...names]
        }
        definition.commands = commands
      }
    }

    if (value.scope !== undefined) {
      const spath = [...path, 'scope']
      if (!isObject(value.scope)) invalidType(spath, value.scope, 'a table with `allow` and/or `deny` lists of scope values')
      else {
        unknownFields(value.scope, ['allow', 'deny'], spath)
        const scope: { allow?: ScopeValue[]; deny?: ScopeValue[] } = {}
        for (const which of ['allow', 'deny'] as const) {
          const values = value.scope[which]
          if (values === undefined || values === null) continue
          if (!Array.isArray(values)) {
            invalidType([...spath, which], values, 'an array of scope values, or null')
            continue
          }
          scope[which] = [...values]
          values.forEach((v, j) => {
            const error = options.scopeError?.(v)
            if (error === undefined) return
            const message = `scope entry ${JSON.stringify(v)} cannot be compiled: ${error}; the permission's commands would be denied at run time`
            problem('parse', [...spath, which, j], message, 'scope entries the command can use (opener: `{ url }` or `{ path }` with a valid glob)', `${plugin}:${id}`, true)
          })
        }
        definition.scope = scope
      }
    }

    if (value.platforms !== undefined && value.platforms !== null) {
      const ppath = [...path, 'platforms']
      if (!Array.isArray(value.platforms)) invalidType(ppath, value.platforms, `an array of ${PLATFORM_LIST}, or null for all`)
      else {
        const platforms: Target[] = []
        value.platforms.forEach((p, j) => {
          if (typeof p === 'string' && (TARGETS as readonly string[]).includes(p)) platforms.push(p as Target)
          else if (typeof p !== 'string') invalidType([...ppath, j], p, `one of ${PLATFORM_LIST}`)
          else problem('invalid-platform', [...ppath, j], `unknown variant \`${p}\``, `one of ${PLATFORM_LIST} (exact spelling)`)
        })
        definition.platforms = platforms
      }
    } else if (value.platforms === null) definition.platforms = null

    if (!failed && named) result.permissions.push(definition)
  })

  list('set').forEach((value, i) => {
    const path = ['set', i]
    if (!isObject(value)) return invalidType(path, value, 'a table with `identifier`, `description` and `permissions`')
    failed = false
    unknownFields(value, SET_FIELDS, path)
    const id = required(value, 'identifier', path, BASE_NAME) && (typeof value.identifier === 'string' ? value.identifier : (invalidType([...path, 'identifier'], value.identifier, BASE_NAME), undefined))
    const named = typeof id === 'string' && baseName(id, [...path, 'identifier']) && unique(id, path, 'set')
    if (required(value, 'description', path, 'a string saying what the set allows')) optionalString(value, 'description', path)
    const members = required(value, 'permissions', path, 'an array of permission identifiers') ? strings(value.permissions, [...path, 'permissions'], 'an array of permission identifiers', member) : undefined
    if (!failed && named && members) result.sets.push({ identifier: id as string, description: value.description as string, permissions: [...members], source: source(path) })
  })
  return result
}
