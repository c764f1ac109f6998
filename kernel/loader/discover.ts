// Finds extension entry files: built-ins (extensions/), the user's (<agent_home>/extensions/<name>/),
// installed plugin packages (<agent_home>/plugins/node_modules, package.json "agent.extensions"), and
// project-local ones (<cwd>/.agent/extensions/) only when explicitly opted in.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import type { ExtensionSource } from '../../sdk/types.ts'

export interface Candidate {
  /** Expected extension name (folder name); plugins take theirs from the definition. */
  name: string
  source: ExtensionSource
  entry: string
  /** Folder watched for hot reload and forgotten from the module cache on reload. */
  dir: string
}

const ENTRY_NAMES = ['index.ts', 'index.mts', 'index.js', 'index.mjs']

function entryOf(dir: string): string | undefined {
  for (const name of ENTRY_NAMES) {
    const path = join(dir, name)
    if (existsSync(path)) return path
  }
  return undefined
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => (d.isDirectory() || d.isSymbolicLink()) && !d.name.startsWith('.') && d.name !== 'node_modules')
    .map((d) => join(dir, d.name))
    .sort()
}

/** Every folder of `root` holding an index file is one extension. */
export function discoverFolder(root: string, source: ExtensionSource): Candidate[] {
  const out: Candidate[] = []
  for (const dir of subdirs(root)) {
    const entry = entryOf(dir)
    if (entry) out.push({ name: basename(dir), source, entry, dir })
  }
  return out
}

export interface PluginManifest {
  name: string
  version: string
  extensions: string[]
}

/** Reads a plugin package's manifest without running any of its code; throws a one-line reason. */
export function readPluginManifest(packageDir: string): PluginManifest {
  const file = join(packageDir, 'package.json')
  let pkg: Record<string, unknown>
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`${file}: not a readable package.json (${(error as Error).message})`)
  }
  const agent = pkg.agent as { extensions?: unknown } | undefined
  if (typeof pkg.name !== 'string' || !pkg.name) throw new Error(`${file}: "name" is missing`)
  if (!agent || !Array.isArray(agent.extensions) || agent.extensions.length === 0 || !agent.extensions.every((e) => typeof e === 'string')) {
    throw new Error(`${file}: "agent.extensions" must list the package's extension entry files`)
  }
  for (const rel of agent.extensions as string[]) {
    const full = resolve(packageDir, rel)
    if (!full.startsWith(resolve(packageDir))) throw new Error(`${file}: extension entry "${rel}" points outside the package`)
    if (!existsSync(full)) throw new Error(`${file}: extension entry "${rel}" does not exist`)
  }
  return { name: pkg.name, version: typeof pkg.version === 'string' ? pkg.version : '0.0.0', extensions: agent.extensions as string[] }
}

function packageDirs(nodeModules: string): string[] {
  const out: string[] = []
  for (const dir of subdirs(nodeModules)) {
    if (basename(dir).startsWith('@')) out.push(...subdirs(dir))
    else out.push(dir)
  }
  return out
}

/** Installed plugin packages that declare `agent.extensions`. Packages without the field are skipped. */
export function discoverPlugins(pluginsDir: string): { candidates: Candidate[]; problems: Array<{ name: string; path: string; reason: string }> } {
  const candidates: Candidate[] = []
  const problems: Array<{ name: string; path: string; reason: string }> = []
  for (const dir of packageDirs(join(pluginsDir, 'node_modules'))) {
    let raw: Record<string, unknown>
    try {
      raw = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    if (!raw.agent) continue
    try {
      const manifest = readPluginManifest(dir)
      for (const rel of manifest.extensions) {
        const entry = resolve(dir, rel)
        const name = manifest.extensions.length === 1 ? manifest.name.replace(/^@[^/]+\//, '') : basename(dirname(entry))
        candidates.push({ name, source: 'plugin', entry, dir: realDir(dir) })
      }
    } catch (error) {
      problems.push({ name: String(raw.name ?? basename(dir)), path: dir, reason: (error as Error).message })
    }
  }
  return { candidates, problems }
}

function realDir(dir: string): string {
  try {
    return statSync(dir).isDirectory() ? dir : dirname(dir)
  } catch {
    return dir
  }
}
