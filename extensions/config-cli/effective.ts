// The effective configuration `config show` and `config get` print: config.yaml (and an applied
// project config) over the defaults of the owning extensions' schemas, and an environment variable
// over both where the key's schema names one (`x-env`, as its reader does). Each value says where
// it comes from ("config", "project", "env" or "default"). Secrets are masked (redact-config.ts).

import { isDeepStrictEqual } from 'node:util'
import type { JsonSchema, Settings } from 'agent/sdk'
import YAML from 'yaml'
import { coerceValue } from './coerce.ts'
import { redactConfig } from './redact-config.ts'

export type Source = 'default' | 'config' | 'project' | 'env'

export interface Entry {
  key: string
  value: unknown
  source: Source
}

/** What the owners of config keys say (the kernel's extensions service). */
export interface SettingOwners {
  settingDefaults(): Record<string, unknown>
  settingSchema(path: string): JsonSchema | undefined
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

/** Dot paths of the leaves (a scalar, a list or an empty mapping) of a tree, in order. */
function leaves(tree: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([name, value]) => {
    const key = prefix ? `${prefix}.${name}` : name
    return isPlainObject(value) && Object.keys(value).length > 0 ? leaves(value, key) : [key]
  })
}

export function valueAt(tree: unknown, key: string): unknown {
  let at = tree
  for (const part of key.split('.')) at = isPlainObject(at) ? at[part] : undefined
  return at
}

function setAt(tree: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.')
  let at = tree
  for (const part of parts.slice(0, -1)) at = (at[part] = isPlainObject(at[part]) ? { ...at[part] } : {}) as Record<string, unknown>
  at[parts.at(-1)!] = value
}

export class EffectiveConfig {
  /** Every setting in effect, secrets masked. */
  readonly tree: Record<string, unknown>
  /** Keys an environment variable decides, with its name. */
  private readonly fromEnv = new Map<string, string>()

  constructor(
    private readonly settings: Settings,
    owners: SettingOwners | undefined,
  ) {
    const tree = withDefaults(settings.all(), owners?.settingDefaults() ?? {})
    for (const key of leaves(tree)) {
      const schema = owners?.settingSchema(key)
      const name = schema?.['x-env']
      const raw = typeof name === 'string' ? settings.env(name) : undefined
      if (raw === undefined) continue
      setAt(tree, key, coerceValue(raw, schema))
      this.fromEnv.set(key, name as string)
    }
    this.tree = redactConfig(tree, settings)
  }

  get(key: string): unknown {
    return valueAt(this.tree, key)
  }

  /** Where the value at `key` comes from. */
  source(key: string): Source {
    if (this.fromEnv.has(key)) return 'env'
    const value = this.settings.get(key)
    if (value === undefined) return 'default'
    return !this.settings.getOwn || isDeepStrictEqual(this.settings.getOwn(key), value) ? 'config' : 'project'
  }

  entries(): Entry[] {
    return leaves(this.tree).map((key) => ({ key, value: this.get(key), source: this.source(key) }))
  }

  /** The tree as YAML, each value not from config.yaml marked with a comment (`# default`, `# env NAME` …). */
  yaml(): string {
    const doc = new YAML.Document(this.tree)
    const mark = (node: unknown, prefix: string) => {
      if (!YAML.isMap(node)) return
      for (const pair of node.items) {
        const name = String(YAML.isScalar(pair.key) ? pair.key.value : pair.key)
        const key = prefix ? `${prefix}.${name}` : name
        if (YAML.isMap(pair.value) && pair.value.items.length > 0) {
          mark(pair.value, key)
          continue
        }
        const source = this.source(key)
        if (source === 'config' || !YAML.isNode(pair.value)) continue
        // A default list or mapping on one line, so the mark sits next to it.
        if (YAML.isCollection(pair.value)) pair.value.flow = true
        pair.value.comment = source === 'env' ? ` env ${this.fromEnv.get(key)}` : ` ${source}`
      }
    }
    mark(doc.contents, '')
    return doc.toString()
  }
}
