// `agent config set` asks this before writing: the value a key would get, validated against the
// config schema of every extension that owns the key (or a section under it), so an invalid safety
// setting is refused at the door instead of making its extension fail at the next start. Also what
// `config set` coerces a typed value to (the schema at a key) and what `config show` fills in (defaults).

import type { JsonSchema } from '../sdk/types.ts'
import { schemaAt, valueAt } from './config/explain.ts'
import { applyDefaults, configProblems } from './config/validate.ts'

export interface ConfigOwner {
  /** Dot path of the section (configKey, default `extensions.<name>`). */
  key: string
  schema: JsonSchema
}

/** Settings the kernel itself reads: a value it cannot use is an error, never silently ignored. */
export const KERNEL_SETTINGS: readonly ConfigOwner[] = [{ key: 'extensions.disabled', schema: { type: 'array', items: { type: 'string', minLength: 1 } } }]

/** What is wrong with the kernel's own settings as they are now (one line each). */
export function kernelSettingProblems(current: (key: string) => unknown): string[] {
  return KERNEL_SETTINGS.flatMap((owner) => settingProblems([owner], current, owner.key, current(owner.key)))
}

/** Problems the new value would cause at or under `path`; [] when it is fine or no schema owns it. */
export function settingProblems(owners: readonly ConfigOwner[], current: (key: string) => unknown, path: string, value: unknown): string[] {
  const problems: string[] = []
  for (const owner of owners) {
    let section: unknown
    if (path === owner.key) section = value
    else if (path.startsWith(`${owner.key}.`)) section = withValue(current(owner.key), path.slice(owner.key.length + 1).split('.'), value)
    else if (owner.key.startsWith(`${path}.`)) section = valueAt(value, owner.key.slice(path.length + 1).split('.'))
    else continue
    // Only object sections have defaults to fill in; an absent list or scalar is simply not set.
    if (section === undefined && owner.schema.type !== 'object') continue
    const under = (line: string) => line.startsWith(`${path}:`) || line.startsWith(`${path}.`) || owner.key.startsWith(`${path}.`)
    problems.push(...configProblems(owner.schema, section, owner.key).problems.filter(under))
  }
  return problems
}

/** A copy of `base` with `value` at `path` (undefined removes it). */
function withValue(base: unknown, path: string[], value: unknown): unknown {
  const [head, ...rest] = path
  if (head === undefined) return value
  const object = typeof base === 'object' && base !== null && !Array.isArray(base) ? { ...(base as Record<string, unknown>) } : {}
  const next = withValue(object[head], rest, value)
  if (next === undefined) delete object[head]
  else object[head] = next
  return object
}

/** The schema of the value at `path`, from the owner with the longest key covering it; undefined when unowned. */
export function settingSchema(owners: readonly ConfigOwner[], path: string): JsonSchema | undefined {
  const covering = owners.filter((o) => path === o.key || path.startsWith(`${o.key}.`)).sort((a, b) => b.key.length - a.key.length)
  for (const owner of covering) {
    const schema = path === owner.key ? owner.schema : schemaAt(owner.schema, path.slice(owner.key.length + 1).split('.'))
    if (schema) return schema
  }
  return undefined
}

/** The defaults of every owned section, nested by dot path: what an absent key means. */
export function settingDefaults(owners: readonly ConfigOwner[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const owner of owners) {
    const filled = applyDefaults(owner.schema, undefined)
    if (filled === undefined || isEmptyObject(filled)) continue
    const parts = owner.key.split('.')
    let at = out
    for (const part of parts.slice(0, -1)) at = (at[part] = typeof at[part] === 'object' && at[part] !== null ? at[part] : {}) as Record<string, unknown>
    const last = parts.at(-1)!
    at[last] = isPlainObject(at[last]) && isPlainObject(filled) ? { ...filled, ...at[last] } : filled
  }
  return out
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isEmptyObject = (v: unknown): boolean => isPlainObject(v) && Object.values(v).every((x) => x === undefined || isEmptyObject(x))
