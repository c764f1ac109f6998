// What `agent plugins list` and `/plugins` show: every plugin package in <agent_home>/plugins (the
// recorded ones and any installed by hand), with the state of each extension it provides.

import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ExtensionInfo } from 'agent/sdk'
import { readRecords } from './records.ts'

export interface PluginRow {
  name: string
  version: string
  kind: string
  source: string | null
  extensions: Array<{ name: string; state: string; reason?: string }>
}

function packageDirs(nodeModules: string): string[] {
  if (!existsSync(nodeModules)) return []
  const out: string[] = []
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (entry.name.startsWith('.')) continue
    const path = join(nodeModules, entry.name)
    if (entry.name.startsWith('@')) out.push(...readdirSync(path).map((n) => join(path, n)))
    else out.push(path)
  }
  return out
}

export function pluginRows(pluginsDir: string, extensions: readonly ExtensionInfo[]): PluginRow[] {
  const records = readRecords(pluginsDir).plugins
  const rows = new Map<string, PluginRow>()
  for (const dir of packageDirs(join(pluginsDir, 'node_modules'))) {
    let pkg: { name?: string; version?: string; agent?: unknown }
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    if (!pkg.agent || typeof pkg.name !== 'string') continue
    const record = records[pkg.name]
    const mine = extensions.filter((info) => info.source === 'plugin' && (info.path === dir || info.path.startsWith(dir + '/')))
    rows.set(pkg.name, {
      name: pkg.name,
      version: pkg.version ?? '0.0.0',
      kind: record?.kind ?? 'manual',
      source: record?.source ?? null,
      extensions: mine.map((info) => ({ name: info.name, state: info.state, ...(info.reason ? { reason: info.reason } : {}) })),
    })
  }
  for (const record of Object.values(records)) {
    if (!rows.has(record.name)) rows.set(record.name, { name: record.name, version: record.version, kind: record.kind, source: record.source, extensions: [{ name: record.name, state: 'failed', reason: 'recorded but not installed (agent plugins update or remove)' }] })
  }
  return [...rows.values()].sort((a, b) => a.name.localeCompare(b.name))
}

export function formatRows(rows: PluginRow[]): string {
  if (rows.length === 0) return 'no plugins installed (agent plugins install <npm package | path | git url>)'
  return rows
    .map((r) => {
      const states = r.extensions.length ? r.extensions.map((e) => `${e.name}: ${e.state}${e.reason ? ` (${e.reason})` : ''}`).join(', ') : 'not loaded'
      return `${r.name}@${r.version}  [${r.kind}${r.source ? ` ${r.source}` : ''}]  ${states}`
    })
    .join('\n')
}
