// The effective configuration `config show` and `config get` print: config.yaml (and an applied
// project config) over the defaults of the owning extensions' schemas, each value with where it
// comes from ("config", "project" or "default"). Secrets are masked.

import { isDeepStrictEqual } from 'node:util'
import type { Settings } from 'agent/sdk'
import YAML from 'yaml'
import { redactConfig } from './redact-config.ts'

export type Source = 'default' | 'config' | 'project'

export interface Entry {
  key: string
  value: unknown
  source: Source
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `config` with what it leaves out taken from `defaults` (the file's own keys first, in its order). */
function withDefaults(config: Record<string, unknown>, defaults: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...config }
  for (const [key, value] of Object.entries(defaults)) {
    if (!(key in out)) out[key] = value
    else if (isPlainObject(out[key]) && isPlainObject(value)) out[key] = withDefaults(out[key] as Record<string, unknown>, value)
  }
  return out
}

/** Every setting in effect (defaults filled in), secrets masked. */
export function effectiveTree(settings: Settings, defaults: Record<string, unknown>): Record<string, unknown> {
  return redactConfig(withDefaults(settings.all(), defaults))
}

/** Where the value at `key` comes from. */
export function sourceOf(settings: Settings, key: string): Source {
  const value = settings.get(key)
  if (value === undefined) return 'default'
  return !settings.getOwn || isDeepStrictEqual(settings.getOwn(key), value) ? 'config' : 'project'
}

export function valueAt(tree: unknown, key: string): unknown {
  let at = tree
  for (const part of key.split('.')) at = isPlainObject(at) ? at[part] : undefined
  return at
}

/** One entry per leaf (a scalar, a list or an empty mapping) of the effective tree, in file order. */
export function entries(settings: Settings, tree: Record<string, unknown>, prefix = ''): Entry[] {
  return Object.entries(tree).flatMap(([name, value]) => {
    const key = prefix ? `${prefix}.${name}` : name
    if (isPlainObject(value) && Object.keys(value).length > 0) return entries(settings, value, key)
    return [{ key, value, source: sourceOf(settings, key) }]
  })
}

/** The tree as YAML, each value that is not from config.yaml marked with a `# default` / `# project` comment. */
export function renderYaml(settings: Settings, tree: Record<string, unknown>): string {
  const doc = new YAML.Document(tree)
  const mark = (node: unknown, prefix: string) => {
    if (!YAML.isMap(node)) return
    for (const pair of node.items) {
      const key = prefix ? `${prefix}.${String(YAML.isScalar(pair.key) ? pair.key.value : pair.key)}` : String(YAML.isScalar(pair.key) ? pair.key.value : pair.key)
      if (YAML.isMap(pair.value) && pair.value.items.length > 0) mark(pair.value, key)
      else {
        const source = sourceOf(settings, key)
        if (source === 'config' || !YAML.isNode(pair.value)) continue
        // A default list or mapping on one line, so the mark sits next to it.
        if (YAML.isCollection(pair.value)) pair.value.flow = true
        pair.value.comment = ` ${source}`
      }
    }
  }
  mark(doc.contents, '')
  return doc.toString()
}
