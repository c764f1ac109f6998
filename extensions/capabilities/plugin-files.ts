// Plugin permission files on disk: `<folder>/plugins/<plugin>/permissions/**/*.toml|json` (dotfiles
// and `schemas` folders skipped, as in the reference), for the home's capabilities folder and a
// project's. An unreadable file is a problem, never silently left out.

import { readdirSync, readFileSync, type Dirent } from 'node:fs'
import { join } from 'node:path'
import { formatOf, type CapabilityProblem, type PermissionSource } from 'agent/sdk'

/** Folders below `permissions/` followed; deeper ones are not read (bounded walk). */
const MAX_DEPTH = 4

function entries(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return []
    throw error
  }
}

/** Every permission file under each folder's `plugins/`, plugin by plugin, files sorted. */
export function listPermissionFiles(folders: readonly string[]): Array<{ plugin: string; file: string }> {
  const out: Array<{ plugin: string; file: string }> = []
  const walk = (plugin: string, dir: string, depth: number) => {
    for (const entry of entries(dir).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.')) continue
      const path = join(dir, entry.name)
      if (entry.isDirectory() && entry.name !== 'schemas' && depth < MAX_DEPTH) walk(plugin, path, depth + 1)
      else if (entry.isFile() && formatOf(entry.name) !== undefined) out.push({ plugin, file: path })
    }
  }
  for (const folder of folders) {
    const plugins = join(folder, 'plugins')
    for (const entry of entries(plugins).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.isDirectory() && !entry.name.startsWith('.')) walk(entry.name, join(plugins, entry.name, 'permissions'), 0)
    }
  }
  return out
}

/** The files' texts as permission sources; unreadable files as problems. */
export function readPermissionFiles(folders: readonly string[]): { sources: PermissionSource[]; problems: CapabilityProblem[] } {
  const sources: PermissionSource[] = []
  const problems: CapabilityProblem[] = []
  for (const { plugin, file } of listPermissionFiles(folders)) {
    try {
      sources.push({ plugin, file, text: readFileSync(file, 'utf8') })
    } catch (error) {
      problems.push({ kind: 'parse', file, message: `cannot read the file: ${(error as Error).message}` })
    }
  }
  return { sources, problems }
}
