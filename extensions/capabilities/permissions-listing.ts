// `agent capabilities permissions [<plugin>] [--json]`: every manifest a capability can name from —
// built-in namespaces, plugins' permission files, extensions' contributions — or one of them in
// detail: its default set, sets and permissions (commands, scope, platforms, where each is written).
// Problems of the permission files are listed too, and make the exit code 2.

import { APP_MANIFEST_KEY, closestNames, formatProblem, type CliContext, type CliOption, type CliSubcommand, type Manifest, type PermissionDefinition, type PermissionSetDefinition } from 'agent/sdk'
import type { LoadedManifests } from './acl-state.ts'

const fullId = (key: string, base: string) => (key === APP_MANIFEST_KEY ? base : `${key}:${base}`)
const sourceOf = (s: PermissionDefinition['source']) => (s ? { file: s.file, line: s.line ?? null } : null)
const at = (s: PermissionDefinition['source']) => (s ? ` (${s.file}${s.line ? `:${s.line}` : ''})` : '')
const isGlobal = (p: PermissionDefinition) => !p.commands?.allow?.length && !p.commands?.deny?.length

function setJson(key: string, s: PermissionSetDefinition) {
  return { identifier: fullId(key, s.identifier), description: s.description ?? null, permissions: [...s.permissions], source: sourceOf(s.source) }
}

/** One manifest as the `--json` listing shows it (snake_case keys). */
export function manifestJson(m: Manifest) {
  const defaultSet = m.sets.get('default')
  return {
    plugin: m.key,
    sources: m.sources ?? [],
    commands: [...m.commands],
    default: defaultSet ? setJson(m.key, defaultSet) : null,
    sets: [...m.sets.values()].filter((s) => s.identifier !== 'default').map((s) => setJson(m.key, s)),
    permissions: [...m.permissions.values()].map((p) => ({
      identifier: fullId(m.key, p.identifier),
      description: p.description ?? null,
      commands: { allow: p.commands?.allow ?? [], deny: p.commands?.deny ?? [] },
      scope: { allow: p.scope?.allow ?? [], deny: p.scope?.deny ?? [] },
      global_scope: isGlobal(p),
      platforms: p.platforms ?? null,
      source: sourceOf(p.source),
    })),
  }
}

function describeManifest(m: Manifest): string[] {
  const lines = [`${m.key === APP_MANIFEST_KEY ? 'app commands (no prefix)' : m.key} — from ${(m.sources ?? []).join(', ') || 'nowhere'}`]
  const defaultSet = m.sets.get('default')
  lines.push(defaultSet ? `  default: ${defaultSet.permissions.join(', ') || '(empty)'}${at(defaultSet.source)}` : '  default: none (naming it grants nothing)')
  for (const s of m.sets.values()) {
    if (s.identifier !== 'default') lines.push(`  set ${fullId(m.key, s.identifier)}: ${s.permissions.join(', ')}${s.description ? ` — ${s.description}` : ''}${at(s.source)}`)
  }
  for (const p of m.permissions.values()) {
    const parts = [
      p.commands?.allow?.length ? `allows ${p.commands.allow.join(', ')}` : '',
      p.commands?.deny?.length ? `denies ${p.commands.deny.join(', ')}` : '',
      isGlobal(p) ? 'no commands: a global scope for every command of the plugin' : '',
      p.scope?.allow?.length ? `scope allow ${JSON.stringify(p.scope.allow)}` : '',
      p.scope?.deny?.length ? `scope deny ${JSON.stringify(p.scope.deny)}` : '',
      p.platforms ? `only on ${p.platforms.join(', ') || 'no platform'}` : '',
    ].filter(Boolean)
    lines.push(`  ${fullId(m.key, p.identifier)}: ${parts.join('; ')}${p.description ? ` — ${p.description}` : ''}${at(p.source)}`)
  }
  return lines
}

export function permissionsCommand(load: (ctx: CliContext) => LoadedManifests, options: Record<string, CliOption>): CliSubcommand {
  return {
    description: 'List the permissions capabilities can name: built-in namespaces, plugin permission files, extensions\' contributions',
    args: '[plugin]',
    positionals: { plugin: { type: 'string', describe: 'Show one plugin in detail (e.g. opener, core:window, or a plugin folder name)' } },
    options: { ...options, json: { type: 'boolean', describe: 'Print {plugins: [{plugin, sources, commands, default, sets, permissions}], problems, warnings}' } },
    examples: [['agent capabilities permissions opener', 'the opener\'s default set, sets and permissions']],
    run(ctx) {
      const loaded = load(ctx)
      const all = loaded.manifests.keys().map((k) => loaded.manifests.get(k)!).filter((m) => m.key !== APP_MANIFEST_KEY || m.permissions.size > 0)
      const wanted = ctx.argv.plugin === undefined ? undefined : String(ctx.argv.plugin)
      const manifest = wanted === undefined ? undefined : loaded.manifests.get(wanted === 'app' ? APP_MANIFEST_KEY : wanted)
      if (wanted !== undefined && !manifest) {
        const keys = all.map((m) => m.key)
        const hint = closestNames(wanted, keys)[0]
        const message = `no plugin "${wanted}"${hint ? ` (did you mean ${hint}?)` : ''}; known: ${keys.filter((k) => k !== APP_MANIFEST_KEY).sort().join(', ')}`
        if (ctx.argv.json) ctx.json({ error: { kind: 'unknown-plugin', message } })
        else ctx.err(`agent: ${message}`)
        return 2
      }
      const shown = manifest ? [manifest] : all
      if (ctx.argv.json) {
        ctx.json({ plugins: shown.map(manifestJson), problems: loaded.problems, warnings: loaded.warnings })
      } else {
        if (manifest) ctx.out(describeManifest(manifest).join('\n'))
        else for (const m of shown) ctx.out(`${m.key === APP_MANIFEST_KEY ? 'app (no prefix)' : m.key}: ${m.permissions.size} permission${m.permissions.size === 1 ? '' : 's'}, ${m.sets.size} set${m.sets.size === 1 ? '' : 's'}${m.sets.has('default') ? ' (with default)' : ''} — ${(m.sources ?? []).join(', ')}`)
        for (const w of loaded.warnings) ctx.out(`warning: ${formatProblem(w)}`)
        for (const p of loaded.problems) ctx.out(`${formatProblem(p)} [${p.kind}]`)
      }
      return loaded.problems.length > 0 ? 2 : 0
    },
  }
}
