// Plugin manifests from permission files and extensions' contributions, merged with the built-in
// ones: a plugin folder named like a built-in plugin (`opener`) adds to it, any other name is a new
// manifest whose commands are invoked as `plugin:<name>|<command>`. Across a plugin's files an
// identifier is defined once and there is one `[default]` (the reference lets the last file win,
// silently); every set, the default included, must expand. Problems name the file and line.

import { CORE_NAMESPACES } from './core-manifests.ts'
import { identifierError } from './identifier.ts'
import { commandPermissions, ManifestSet } from './manifests.ts'
import { parsePermissionFile, readPermissionDocument, type PermissionFileResult } from './permission-file.ts'
import type { CapabilityProblem, CapabilityWarning, DefinitionSource, Manifest, PermissionDefinition, PermissionSetDefinition } from './types.ts'

/** One permission file's text, or a document an extension contributed (`file` then names the extension). */
export type PermissionSource = { plugin: string; file: string; text: string } | { plugin: string; file: string; document: unknown }

export interface PluginManifestsResult {
  manifests: ManifestSet
  problems: CapabilityProblem[]
  warnings: CapabilityWarning[]
}

const PLUGIN_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/

/** Why a folder name cannot name a plugin, or undefined. Core namespaces are reserved: `plugin:window|…` is core's. */
export function pluginNameError(name: string): string | undefined {
  if (name === 'core' || name in CORE_NAMESPACES) return `"${name}" is a core namespace (its permissions are core:${name === 'core' ? 'default' : `${name}:…`})`
  if (!PLUGIN_NAME.test(name)) return `"${name}" is not a plugin name (lowercase ASCII letters and digits, single hyphens between)`
  return identifierError(`${name}:default`)
}

const where = (source: DefinitionSource | undefined) => (source ? `${source.file}${source.line ? `:${source.line}` : ''}` : 'the built-in manifest')

/** The built-in manifests given, extended and joined by the plugins' permission sources. */
export function buildManifests(builtin: readonly Manifest[], sources: readonly PermissionSource[]): PluginManifestsResult {
  const problems: CapabilityProblem[] = []
  const warnings: CapabilityWarning[] = []
  const byPlugin = new Map<string, PermissionFileResult[]>()
  for (const source of sources) {
    const nameError = pluginNameError(source.plugin)
    if (nameError) {
      problems.push({ kind: 'invalid-permission-identifier', file: source.file, message: `plugin ${nameError}`, expected: 'a plugin folder named like `notes` or `my-plugin`, not a core namespace' })
      continue
    }
    const scopeError = builtin.find((m) => m.key === source.plugin)?.scopeError
    const result = 'text' in source ? parsePermissionFile(source.plugin, source.file, source.text, { scopeError }) : readPermissionDocument(source.plugin, source.file, source.document, { scopeError })
    problems.push(...result.problems)
    warnings.push(...result.warnings)
    byPlugin.set(source.plugin, [...(byPlugin.get(source.plugin) ?? []), result])
  }

  const merged: Manifest[] = []
  const fromFiles: Array<{ key: string; sets: PermissionSetDefinition[] }> = []
  for (const [plugin, results] of byPlugin) {
    const base = builtin.find((m) => m.key === plugin)
    const permissions = new Map<string, PermissionDefinition>(base?.permissions)
    const sets = new Map<string, PermissionSetDefinition>(base?.sets)
    const commands = new Set(base?.commands)
    const added: PermissionSetDefinition[] = []
    const taken = (id: string, source: DefinitionSource | undefined) => {
      const earlier = permissions.get(id) ?? sets.get(id)
      if (!earlier) return false
      problems.push({ kind: 'duplicate-permission', file: source?.file ?? '?', ...(source?.line ? { line: source.line } : {}), permission: `${plugin}:${id}`, message: `${plugin}:${id} is already defined in ${where(earlier.source)}`, expected: 'each identifier defined once per plugin, across its files and the built-in manifest' })
      return true
    }
    for (const result of results) {
      for (const p of result.permissions) if (!taken(p.identifier, p.source)) permissions.set(p.identifier, p)
      for (const s of result.sets) if (!taken(s.identifier, s.source)) (sets.set(s.identifier, s), added.push(s))
      if (result.default) {
        if (taken('default', result.default.source)) continue
        sets.set('default', result.default)
        added.push(result.default)
      }
      // Generated allow-/deny- permissions give way to ones written out.
      for (const p of commandPermissions(result.commands)) if (!permissions.has(p.identifier)) permissions.set(p.identifier, p)
      for (const c of result.commands) commands.add(c)
    }
    for (const p of permissions.values()) for (const c of [...(p.commands?.allow ?? []), ...(p.commands?.deny ?? [])]) commands.add(c)
    const manifest: Manifest = {
      key: plugin,
      invoke: base?.invoke ?? ((command) => `plugin:${plugin}|${command}`),
      permissions,
      sets,
      commands: [...commands],
      sources: [...(base?.sources ?? []), ...results.map((r) => r.file)],
    }
    if (base?.scopeError) manifest.scopeError = base.scopeError
    merged.push(manifest)
    fromFiles.push({ key: plugin, sets: added })
  }

  const manifests = new ManifestSet([...builtin.filter((m) => !byPlugin.has(m.key)), ...merged])
  // Sets (and defaults) must expand: a member that does not exist is found here, not when a capability runs.
  const failures: Array<{ key: string; set: PermissionSetDefinition; kind: 'unknown-plugin' | 'unknown-permission' | 'invalid-permission-identifier'; message: string }> = []
  for (const { key, sets } of fromFiles) {
    for (const set of sets) {
      const expanded = manifests.expand(`${key}:${set.identifier}`)
      if (!expanded.ok) failures.push({ key, set, kind: expanded.kind, message: expanded.message })
    }
  }
  // A set failing only because a set it includes fails is not reported again.
  const failing = new Set(failures.map((f) => `${f.key}:${f.set.identifier}`))
  for (const { key, set, kind, message } of failures) {
    const own = `${key}:${set.identifier}`
    const because = /from set (\S+)/.exec(message)?.[1]
    if (because !== undefined && because !== own && failing.has(because)) continue
    problems.push({ kind, file: set.source?.file ?? '?', ...(set.source?.line ? { line: set.source.line } : {}), permission: own, field: set.identifier === 'default' ? 'default.permissions' : 'permissions', message, expected: 'members that are permissions or sets of this plugin, or prefixed ids of another' })
  }
  return { manifests, problems, warnings }
}
