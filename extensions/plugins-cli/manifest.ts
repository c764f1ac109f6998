// The plugin manifest: package.json `"agent": { "extensions": ["./index.ts", …] }`. Checked from the
// packed tarball before installing and from the installed folder after, by reading files only —
// nothing of the plugin runs. The same rules as the kernel's discovery, so what passes here loads.

import { existsSync, readFileSync } from 'node:fs'
import { join, posix, resolve, sep } from 'node:path'
import { UsageError } from 'agent/sdk'

export interface PluginManifest {
  name: string
  version: string
  extensions: string[]
  description?: string
}

const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/

/** Validates a package.json object against a list of the package's files; throws a UsageError (exit 2). */
export function checkManifest(pkg: Record<string, unknown>, hasFile: (relative: string) => boolean, where: string): PluginManifest {
  const problems: string[] = []
  const name = pkg.name
  if (typeof name !== 'string' || !PACKAGE_NAME.test(name)) problems.push('"name" must be a valid npm package name')
  const agent = pkg.agent as { extensions?: unknown } | undefined
  const entries = agent && typeof agent === 'object' ? agent.extensions : undefined
  if (!Array.isArray(entries) || entries.length === 0 || !entries.every((e) => typeof e === 'string' && e.trim() !== '')) {
    problems.push('"agent.extensions" must list the package\'s extension entry files, e.g. ["./index.ts"]')
  } else {
    for (const entry of entries as string[]) {
      const normal = posix.normalize(entry.replace(/\\/g, '/'))
      if (posix.isAbsolute(normal) || normal === '..' || normal.startsWith('../')) problems.push(`extension entry "${entry}" points outside the package`)
      else if (!/\.(ts|mts|js|mjs|cjs)$/.test(normal)) problems.push(`extension entry "${entry}" must be a .ts or .js file`)
      else if (!hasFile(normal.replace(/^\.\//, ''))) problems.push(`extension entry "${entry}" is not in the package`)
    }
  }
  if (problems.length > 0) throw new UsageError(`${where}: not an agent plugin: ${problems.join('; ')}`)
  return {
    name: name as string,
    version: typeof pkg.version === 'string' ? pkg.version : '0.0.0',
    extensions: entries as string[],
    ...(typeof pkg.description === 'string' ? { description: pkg.description } : {}),
  }
}

/** The manifest of an installed (or local) package folder. */
export function folderManifest(dir: string): PluginManifest {
  const file = join(dir, 'package.json')
  let pkg: unknown
  try {
    pkg = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new UsageError(`${file}: not a readable package.json (${(error as Error).message.split('\n')[0]})`)
  }
  if (!pkg || typeof pkg !== 'object' || Array.isArray(pkg)) throw new UsageError(`${file}: package.json is not an object`)
  const root = resolve(dir)
  return checkManifest(pkg as Record<string, unknown>, (rel) => {
    const full = resolve(root, rel)
    return full.startsWith(root + sep) && existsSync(full)
  }, dir)
}

/** The extension name the kernel's discovery gives a plugin's entry before it is loaded. */
export function candidateNames(manifest: PluginManifest): string[] {
  const base = manifest.name.replace(/^@[^/]+\//, '')
  if (manifest.extensions.length === 1) return [base]
  return manifest.extensions.map((e) => {
    const folder = posix.dirname(posix.normalize(e.replace(/\\/g, '/')))
    return folder === '.' ? base : posix.basename(folder)
  })
}
