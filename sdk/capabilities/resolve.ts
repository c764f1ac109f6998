// Resolution: capabilities active on the platform expand into allow and deny entries per command,
// one per execution context (local, and each remote URL pattern), carrying the capability's label
// globs and scope; scope-only permissions feed a per-manifest global scope. A call is denied if any
// deny entry exists for its command (deny wins across capabilities, labels and origins, as in the
// released reference); otherwise allowed iff some allow entry matches its origin and its webview or
// window label — and denied after all when a scope it would receive holds a value the command cannot
// use. Scope lists keep their order and hold each value once.

import { CORE_NAMESPACES } from './core-manifests.ts'
import { Glob } from './glob.ts'
import { APP_MANIFEST_KEY, type ManifestSet } from './manifests.ts'
import { RemoteUrlPattern } from './remote-url.ts'
import { mergeScopes } from './scope-lists.ts'
import type { AccessDecision, AccessRequest, Capability, Grant, ScopeLists, Target } from './types.ts'

interface Entry {
  grant: Grant
  context: { local: true } | { local: false; pattern: RemoteUrlPattern }
  windows: Glob[]
  webviews: Glob[]
  scope?: ScopeLists
  /** Why the scope cannot be used by the command (a pattern that does not compile): the call is denied. */
  broken?: string
}

export interface ResolveOptions {
  platform: Target
  manifests: ManifestSet
}

/** The manifest key a command belongs to: `plugin:window|close` → `core:window`, `greet` → the app. */
export function manifestKeyOf(command: string): string {
  const plugin = /^plugin:([^|]+)\|(.+)$/.exec(command)
  if (!plugin) return APP_MANIFEST_KEY
  return plugin[1]! in CORE_NAMESPACES ? `core:${plugin[1]}` : plugin[1]!
}

const emptyScope = (): ScopeLists => ({ allow: [], deny: [] })

const describeContexts = (g: Grant) => [g.local ? 'URL: local' : '', ...g.remote.map((u) => `URL: ${u}`)].filter(Boolean).join(', ')
const describeLabels = (g: Grant) => `windows: ${JSON.stringify(g.windows)}, webviews: ${JSON.stringify(g.webviews)}`

export class ResolvedAcl {
  readonly platform: Target
  /** Capabilities skipped because `platforms` excludes this platform. */
  readonly inactive: Capability[] = []
  readonly active: Capability[] = []
  private readonly allowed = new Map<string, Entry[]>()
  private readonly denied = new Map<string, Entry[]>()
  private readonly global = new Map<string, ScopeLists>()
  /** Manifests whose global scope holds a value their commands cannot use: all their calls are denied. */
  private readonly globalBroken = new Map<string, string>()
  private readonly manifests: ManifestSet

  /** Capabilities must have been checked: entries that do not expand are skipped. */
  constructor(capabilities: readonly Capability[], options: ResolveOptions) {
    this.platform = options.platform
    this.manifests = options.manifests
    const sorted = [...capabilities].sort((a, b) => (a.identifier < b.identifier ? -1 : a.identifier > b.identifier ? 1 : 0))
    for (const capability of sorted) {
      if (capability.platforms !== null && !capability.platforms.includes(options.platform)) {
        this.inactive.push(capability)
        continue
      }
      this.active.push(capability)
      this.addCapability(capability)
    }
    for (const [key, scope] of this.global) this.global.set(key, mergeScopes(scope))
  }

  private addCapability(capability: Capability): void {
    // local:false without remote URLs produces no entries at all, not even its denies.
    const contexts: Entry['context'][] = [
      ...(capability.local ? [{ local: true as const }] : []),
      ...(capability.remote?.urls ?? []).map((url) => ({ local: false as const, pattern: new RemoteUrlPattern(url) })),
    ]
    const windows = capability.windows.map((w) => new Glob(w))
    const webviews = capability.webviews.map((w) => new Glob(w))
    for (const entry of capability.permissions) {
      const expanded = this.manifests.expand(entry.identifier)
      if (!expanded.ok) continue
      for (const permission of expanded.permissions) {
        const def = permission.definition
        if (def.platforms && !def.platforms.includes(this.platform)) continue
        // The entry's scope first, then the permission's own; an entry on a set scopes every member.
        const scope = mergeScopes({ allow: entry.allow ?? [], deny: entry.deny ?? [] }, { allow: def.scope?.allow ?? [], deny: def.scope?.deny ?? [] })
        const scopeError = this.manifests.get(permission.key)?.scopeError
        const broken = scopeError && unusable(scope, scopeError, `${permission.id} in capability "${capability.identifier}"`)
        const allowCommands = def.commands?.allow ?? []
        const denyCommands = def.commands?.deny ?? []
        if (allowCommands.length === 0 && denyCommands.length === 0) {
          const global = this.global.get(permission.key) ?? emptyScope()
          global.allow.push(...scope.allow)
          global.deny.push(...scope.deny)
          this.global.set(permission.key, global)
          if (broken && !this.globalBroken.has(permission.key)) this.globalBroken.set(permission.key, `${broken} (a global scope of ${permission.key})`)
          continue
        }
        const grant: Grant = {
          capability: capability.identifier,
          entry: entry.identifier,
          permission: permission.id,
          local: capability.local,
          remote: capability.remote?.urls ?? [],
          windows: capability.windows,
          webviews: capability.webviews,
        }
        const hasScope = scope.allow.length > 0 || scope.deny.length > 0
        // One entry per context, shared by every command of the permission (entries are read-only).
        const entries: Entry[] = contexts.map((context) => ({ grant, context, windows, webviews, ...(hasScope ? { scope } : {}), ...(broken ? { broken } : {}) }))
        for (const [commands, table] of [[allowCommands, this.allowed], [denyCommands, this.denied]] as const) {
          for (const command of commands) {
            const invoke = this.manifests.invoke(permission.key, command)
            const list = table.get(invoke)
            if (list) list.push(...entries)
            else table.set(invoke, [...entries])
          }
        }
      }
    }
  }

  /** The global scope of a manifest (scope-only permissions of every active capability). */
  globalScope(key: string): ScopeLists {
    const g = this.global.get(key)
    return g ? { allow: [...g.allow], deny: [...g.deny] } : emptyScope()
  }

  /** Every invoke string some capability allows or denies. */
  commands(): string[] {
    return [...new Set([...this.allowed.keys(), ...this.denied.keys()])].sort()
  }

  check(request: AccessRequest): AccessDecision {
    const command = request.command
    const window = request.window
    const webview = request.webview ?? request.window
    const key = manifestKeyOf(command)
    const known = this.manifests.get(key) !== undefined
    const origin = request.origin
    const where = `window "${window}", webview "${webview}", URL: ${origin.kind === 'local' ? 'local' : origin.url}`
    const base = { command, manifest: known ? key : undefined, grants: [] as Grant[], denials: [] as Grant[], overridden: [] as Grant[], nearMisses: [] as Grant[] }
    const refused = (reason: string, extra: Partial<AccessDecision> = {}): AccessDecision => ({
      ...base,
      ...extra,
      allowed: false,
      reason,
      scopes: emptyScope(),
      commandScope: emptyScope(),
      globalScope: emptyScope(),
    })

    const candidates = this.allowed.get(command) ?? []
    // Entries of one capability share their context object: a URL pattern is tested once per call.
    const href = origin.kind === 'remote' ? parseHref(origin.url) : undefined
    const contextSeen = new Map<Entry['context'], boolean>()
    const contextMatches = (e: Entry) => {
      if (e.context.local) return origin.kind === 'local'
      if (href === undefined) return false
      let hit = contextSeen.get(e.context)
      if (hit === undefined) contextSeen.set(e.context, (hit = e.context.pattern.testHref(href)))
      return hit
    }
    const labelMatches = (e: Entry) => e.webviews.some((g) => g.matches(webview)) || e.windows.some((g) => g.matches(window))
    // Labels are cheap to test, URL patterns are not: for remote content, labels first.
    const matched = candidates.filter((e) => (origin.kind === 'local' ? contextMatches(e) && labelMatches(e) : labelMatches(e) && contextMatches(e)))
    const denials = this.denied.get(command) ?? []
    if (denials.length > 0) {
      const by = denials.map((d) => `capability "${d.grant.capability}" (permission ${d.grant.entry === d.grant.permission ? d.grant.permission : `${d.grant.permission} via ${d.grant.entry}`})`)
      return refused(`${command} explicitly denied by ${[...new Set(by)].join(', ')}; a deny wins over every allow`, { denials: uniqueGrants(denials), overridden: uniqueGrants(matched) })
    }
    if (matched.length === 0) {
      const nearMisses = uniqueGrants(candidates)
      if (!known) return refused(`${command} not allowed: no permission manifest knows "${key === APP_MANIFEST_KEY ? command : key}"`)
      if (candidates.length === 0) {
        const ids = permissionsFor(this.manifests, key, command)
        return refused(`${command} not allowed: no active capability grants it${ids.length ? ` (permissions that would: ${ids.join(', ')})` : ' (no permission of the manifest enables this command)'}`)
      }
      const allowedOn = nearMisses.map((g) => `[capability "${g.capability}": ${describeLabels(g)}, ${describeContexts(g) || 'no context'}]`)
      const originOk = candidates.some(contextMatches)
      const why = originOk ? `not allowed on ${where}` : `not allowed on origin ${origin.kind === 'local' ? 'local' : `remote: ${origin.url}`}`
      return refused(`${command} ${why}; allowed on: ${[...new Set(allowedOn)].join(', ')}`, { nearMisses })
    }
    // Fail closed: a scope value the command cannot use is never skipped (that could widen access).
    const broken = matched.find((e) => e.broken)?.broken ?? this.globalBroken.get(key)
    if (broken) return refused(`${command} denied: ${broken}`, { overridden: uniqueGrants(matched) })
    const commandScope = mergeScopes(...matched.flatMap((e) => (e.scope ? [e.scope] : [])))
    const globalScope = this.globalScope(key)
    const grants = uniqueGrants(matched)
    return {
      ...base,
      allowed: true,
      grants,
      // Built on demand: most allowed calls never show their reason.
      get reason() {
        const by = new Set(grants.map((g) => `capability "${g.capability}" (permission ${g.entry === g.permission ? g.permission : `${g.permission} via ${g.entry}`})`))
        return `${command} allowed on ${where} by ${[...by].join(', ')}`
      },
      scopes: mergeScopes(commandScope, globalScope),
      commandScope,
      globalScope,
    }
  }
}

/** Why a scope cannot be used (its first unusable value), or undefined. */
function unusable(scope: ScopeLists, scopeError: (value: unknown) => string | undefined, where: string): string | undefined {
  for (const list of ['deny', 'allow'] as const) {
    for (const value of scope[list]) {
      const error = scopeError(value)
      if (error !== undefined) return `the scope entry ${JSON.stringify(value)} of ${where} cannot be used (${error})`
    }
  }
  return undefined
}

/** The normalised page URL, or undefined when it does not parse (it then matches no pattern). */
function parseHref(url: string): string | undefined {
  try {
    return new URL(url).href
  } catch {
    return undefined
  }
}

function uniqueGrants(entries: readonly Entry[]): Grant[] {
  const seen = new Set<Grant>()
  return entries.map((e) => e.grant).filter((g) => (seen.has(g) ? false : (seen.add(g), true)))
}

/** Identifiers of the single permissions that allow a command (for "what would grant this"). */
function permissionsFor(manifests: ManifestSet, key: string, command: string): string[] {
  const manifest = manifests.get(key)
  if (!manifest) return []
  const name = /\|(.+)$/.exec(command)?.[1] ?? command
  const out: string[] = []
  for (const p of manifest.permissions.values()) if (p.commands?.allow?.includes(name)) out.push(key === APP_MANIFEST_KEY ? p.identifier : `${key}:${p.identifier}`)
  return out
}

/** `darwin` → macOS, `win32` → windows, `android` → android; any other Node platform counts as linux. */
export function currentTarget(platform: NodeJS.Platform = process.platform): Target {
  return platform === 'darwin' ? 'macOS' : platform === 'win32' ? 'windows' : platform === 'android' ? 'android' : 'linux'
}
