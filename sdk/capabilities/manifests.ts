// Permission manifests — the core namespaces, the opener plugin and the app's own command layer —
// and the expansion of a permission identifier (a permission, a named set, or `default`) into the
// single permissions it stands for, recursively and across manifests.

import { CORE_DEFAULT_MEMBERS, CORE_NAMESPACES } from './core-manifests.ts'
import { commandToIdentifier, hasEmptySegment, identifierError, parseIdentifier } from './identifier.ts'
import { openerScopeError } from './opener-scope.ts'
import type { Manifest, PermissionDefinition, PermissionSetDefinition, ScopeValue } from './types.ts'

/** Manifest key of the app's own commands (bare identifiers, bare invoke strings). */
export const APP_MANIFEST_KEY = '__app-acl__'

/** `allow-<cmd>` and `deny-<cmd>` for every command, underscores becoming hyphens. */
export function commandPermissions(commands: readonly string[]): PermissionDefinition[] {
  return commands.flatMap((command) => [
    { identifier: `allow-${commandToIdentifier(command)}`, description: `Enables the ${command} command without any pre-configured scope.`, commands: { allow: [command] } },
    { identifier: `deny-${commandToIdentifier(command)}`, description: `Denies the ${command} command without any pre-configured scope.`, commands: { deny: [command] } },
  ])
}

export interface ManifestInput {
  key: string
  invoke: (command: string) => string
  commands: readonly string[]
  /** Added after the generated allow-/deny- permissions. */
  permissions?: readonly PermissionDefinition[]
  sets?: readonly PermissionSetDefinition[]
  scopeError?: Manifest['scopeError']
  sources?: string[]
}

export function createManifest(input: ManifestInput): Manifest {
  const permissions = new Map<string, PermissionDefinition>()
  for (const p of [...commandPermissions(input.commands), ...(input.permissions ?? [])]) permissions.set(p.identifier, p)
  const sets = new Map<string, PermissionSetDefinition>()
  for (const s of input.sets ?? []) sets.set(s.identifier, s)
  const manifest: Manifest = { key: input.key, invoke: input.invoke, permissions, sets, commands: [...input.commands], sources: input.sources ?? ['built-in'] }
  if (input.scopeError) manifest.scopeError = input.scopeError
  return manifest
}

export function coreManifests(): Manifest[] {
  const manifests = Object.entries(CORE_NAMESPACES).map(([ns, data]) =>
    createManifest({
      key: `core:${ns}`,
      invoke: (command) => `plugin:${ns}|${command}`,
      commands: data.commands,
      sets: [
        {
          identifier: 'default',
          description: `Default permissions of the core ${ns} namespace.`,
          permissions: (data.defaults === 'all' ? data.commands : data.defaults).map((c) => `allow-${commandToIdentifier(c)}`),
        },
      ],
    }),
  )
  manifests.push(
    createManifest({
      key: 'core',
      invoke: (command) => `plugin:core|${command}`,
      commands: [],
      sets: [{ identifier: 'default', description: 'Default core permissions: the default set of every core namespace.', permissions: CORE_DEFAULT_MEMBERS.map((ns) => `core:${ns}:default`) }],
    }),
  )
  return manifests
}

/** The opener's global-scope permission: no commands, only URLs every window may open by default. */
export const DEFAULT_OPENER_URLS: readonly ScopeValue[] = Object.freeze([{ url: 'mailto:*' }, { url: 'tel:*' }, { url: 'http://*' }, { url: 'https://*' }])

export function openerManifest(): Manifest {
  return createManifest({
    key: 'opener',
    invoke: (command) => `plugin:opener|${command}`,
    commands: ['open_url', 'open_path', 'reveal_item_in_dir'],
    scopeError: openerScopeError,
    permissions: [
      {
        identifier: 'allow-default-urls',
        description: 'Allows opening `mailto:`, `tel:`, `https://` and `http://` URLs with the default application.',
        scope: { allow: [...DEFAULT_OPENER_URLS] },
      },
    ],
    sets: [
      {
        identifier: 'default',
        description: 'Allows opening URLs (mailto, tel, http, https) with the default application and revealing files in their folder.',
        permissions: ['allow-open-url', 'allow-reveal-item-in-dir', 'allow-default-urls'],
      },
    ],
  })
}

export interface AppManifestInput {
  /** Commands exposed to frontends (snake_case). */
  commands: readonly string[]
  /** Commands whose allow- permission joins the app's `default` set. */
  defaultCommands?: readonly string[]
  permissions?: readonly PermissionDefinition[]
  sets?: readonly PermissionSetDefinition[]
}

export function appManifest(input: AppManifestInput): Manifest {
  const defaults = (input.defaultCommands ?? []).map((c) => `allow-${commandToIdentifier(c)}`)
  const sets = (input.sets ?? []).map((s) => (s.identifier === 'default' ? { ...s, permissions: [...s.permissions, ...defaults] } : s))
  if (!sets.some((s) => s.identifier === 'default') && defaults.length > 0) sets.push({ identifier: 'default', description: 'Default permissions of the app commands.', permissions: defaults })
  return createManifest({ key: APP_MANIFEST_KEY, invoke: (command) => command, commands: input.commands, permissions: input.permissions, sets })
}

export interface ExpandedPermission {
  /** Manifest key. */
  key: string
  /** The full identifier: `opener:allow-open-url`, `core:window:allow-close`, `allow-greet`. */
  id: string
  definition: PermissionDefinition
}

export type ExpandResult =
  | { ok: true; permissions: ExpandedPermission[] }
  | { ok: false; kind: 'unknown-plugin' | 'unknown-permission' | 'invalid-permission-identifier'; message: string }

const fullId = (key: string, base: string) => (key === APP_MANIFEST_KEY ? base : `${key}:${base}`)

/** The manifests an ACL is resolved against, by key. */
export class ManifestSet {
  private readonly byKey = new Map<string, Manifest>()
  /** Manifests do not change once given, so expansions are computed once per identifier. */
  private readonly expanded = new Map<string, ExpandResult>()

  constructor(manifests: readonly Manifest[]) {
    for (const m of manifests) this.byKey.set(m.key, m)
    if (!this.byKey.has(APP_MANIFEST_KEY)) this.byKey.set(APP_MANIFEST_KEY, appManifest({ commands: [] }))
  }

  get(key: string): Manifest | undefined {
    return this.byKey.get(key)
  }

  keys(): string[] {
    return [...this.byKey.keys()]
  }

  /** Every identifier a capability may name, with its description. */
  identifiers(): Array<{ id: string; description?: string }> {
    const out: Array<{ id: string; description?: string }> = []
    for (const m of this.byKey.values()) {
      if (!m.sets.has('default') && m.key !== APP_MANIFEST_KEY) out.push({ id: fullId(m.key, 'default'), description: `Default permissions of ${m.key} (none).` })
      for (const s of m.sets.values()) out.push({ id: fullId(m.key, s.identifier), description: s.description })
      for (const p of m.permissions.values()) out.push({ id: fullId(m.key, p.identifier), description: p.description })
    }
    return out
  }

  /** The invoke string of a manifest's command. */
  invoke(key: string, command: string): string {
    return this.byKey.get(key)!.invoke(command)
  }

  /** Expands an identifier into single permissions (sets recursively; `default` of a manifest without one is empty). */
  expand(identifier: string): ExpandResult {
    let result = this.expanded.get(identifier)
    if (!result) {
      result = this.expandNow(identifier)
      this.expanded.set(identifier, result)
    }
    return result
  }

  private expandNow(identifier: string): ExpandResult {
    const error = identifierError(identifier)
    if (error && hasEmptySegment(identifier)) return { ok: false, kind: 'unknown-permission', message: `unknown permission ${identifier}` }
    if (error) return { ok: false, kind: 'invalid-permission-identifier', message: error }
    const { prefix, base } = parseIdentifier(identifier)
    const key = prefix ?? APP_MANIFEST_KEY
    const manifest = this.byKey.get(key)
    if (!manifest) {
      return { ok: false, kind: 'unknown-plugin', message: `unknown ACL for ${key}` }
    }
    const out: ExpandedPermission[] = []
    const failure = this.expandInto(manifest, base, out, [], undefined)
    return failure ? { ok: false, ...failure } : { ok: true, permissions: out }
  }

  private expandInto(
    manifest: Manifest,
    base: string,
    out: ExpandedPermission[],
    stack: string[],
    fromSet: string | undefined,
  ): { kind: 'unknown-plugin' | 'unknown-permission'; message: string } | undefined {
    const id = fullId(manifest.key, base)
    const set = manifest.sets.get(base)
    if (set) {
      if (stack.includes(id)) return { kind: 'unknown-permission', message: `permission set ${id} includes itself (${[...stack, id].join(' → ')})` }
      for (const member of set.permissions) {
        let target = manifest
        let memberBase = member
        if (member.includes(':')) {
          if (identifierError(member)) return { kind: 'unknown-permission', message: `permission ${member} not found from set ${id}` }
          const parsed = parseIdentifier(member)
          const other = this.byKey.get(parsed.prefix!)
          if (!other) return { kind: 'unknown-plugin', message: `permission ${member} not found from set ${id}: unknown ACL for ${parsed.prefix}` }
          target = other
          memberBase = parsed.base
        }
        const failure = this.expandInto(target, memberBase, out, [...stack, id], id)
        if (failure) return failure
      }
      return undefined
    }
    if (base === 'default') return undefined
    const definition = manifest.permissions.get(base)
    if (definition) {
      if (!out.some((p) => p.id === id)) out.push({ key: manifest.key, id, definition })
      return undefined
    }
    if (fromSet) return { kind: 'unknown-permission', message: `permission ${base} not found from set ${fromSet}` }
    const where = manifest.key === APP_MANIFEST_KEY ? 'app manifest' : manifest.key
    return { kind: 'unknown-permission', message: `unknown permission ${base} for ${where}` }
  }
}

/** The built-in manifests (core namespaces and opener) plus the app manifest given. */
export function builtinManifests(app?: Manifest): ManifestSet {
  return new ManifestSet([...coreManifests(), openerManifest(), ...(app ? [app] : [])])
}
