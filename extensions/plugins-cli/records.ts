// <agent_home>/plugins/agent-plugins.json: how each plugin was installed (spec, kind, version,
// integrity) and which extensions it provides. Written last by install/update/remove, so running
// agents watching it know when to load, swap or drop a plugin.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { SpecKind } from './npm.ts'

export const RECORDS_FILE = 'agent-plugins.json'

export interface PluginRecord {
  /** npm package name. */
  name: string
  version: string
  kind: SpecKind | 'link'
  /** What to fetch again on update: a registry spec, an absolute folder, a git URL. */
  source: string
  integrity?: string
  /** Extension names it provides (as loaded). */
  extensions: string[]
  installed_at: string
  updated_at: string
}

export interface Records {
  plugins: Record<string, PluginRecord>
}

export function readRecords(pluginsDir: string): Records {
  try {
    const parsed = JSON.parse(readFileSync(join(pluginsDir, RECORDS_FILE), 'utf8')) as Records
    if (parsed && typeof parsed.plugins === 'object' && parsed.plugins !== null) return { plugins: parsed.plugins }
  } catch {
    // None yet.
  }
  return { plugins: {} }
}

export async function writeRecords(pluginsDir: string, records: Records): Promise<void> {
  await writeFileAtomic(join(pluginsDir, RECORDS_FILE), JSON.stringify(records, null, 2) + '\n')
}

/** A record by package name, or by one of the extension names it provides. */
export function findRecord(records: Records, name: string): PluginRecord | undefined {
  return records.plugins[name] ?? Object.values(records.plugins).find((r) => r.extensions.includes(name) || r.name.replace(/^@[^/]+\//, '') === name)
}
