// One version of an extension built whole before a hot swap: every module file of its folder is
// compiled up front (a broken file anywhere fails the build, named file:line:col), and the version's
// modules are then evaluated from that compiled code with a module cache of their own. A lazy
// `await import()` of this version never reads the disk again, so a later save cannot reach it.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules, createRequire, Module } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { runInThisContext } from 'node:vm'
import { AgentError, errorMessage } from '../../sdk/errors.ts'
import { SDK_ALIASES, sharedJiti } from './jiti.ts'

/** What the loader transpiles; anything else (JSON, native addons) is required as usual. */
const MODULE_EXTENSIONS = ['.ts', '.mts', '.cts', '.tsx', '.js', '.mjs', '.cjs']
/** A folder this large is not an extension's source: refuse rather than compile it all. */
const MAX_FILES = 2_000

export interface ExtensionVersion {
  dir: string
  /** Compiled CommonJS of every module file below `dir`, by absolute path. */
  readonly code: ReadonlyMap<string, string>
  /** This version's evaluated modules (its own cache: other versions never see them). */
  readonly modules: Map<string, Module>
}

/** Module files below `dir` (not node_modules or dot folders), sorted for a stable first error. */
function moduleFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const path = join(folder, entry.name)
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isDirectory())
      if (isDir) walk(path)
      else if (MODULE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) out.push(path)
      if (out.length > MAX_FILES) throw new AgentError('E_EXTENSION', `${dir}: more than ${MAX_FILES} module files; not an extension folder`)
    }
  }
  walk(dir)
  return out.sort()
}

/**
 * Compiles every module file of an extension's folder through the shared loader's transform (and
 * its disk cache). Throws one line, `<file>:<line>:<col>: <message>`, for the first broken file.
 */
export function buildVersion(dir: string): ExtensionVersion {
  const code = new Map<string, string>()
  const problems: string[] = []
  const jiti = sharedJiti()
  for (const file of moduleFiles(dir)) {
    try {
      code.set(file, jiti.transform({ source: readFileSync(file, 'utf8'), filename: file, ts: /\.[cm]?tsx?$/.test(file) }))
    } catch (error) {
      const message = errorMessage(error)
      problems.push(message.includes(file) ? message : `${file}: ${message}`)
    }
  }
  if (problems.length > 0) {
    throw new AgentError('E_EXTENSION', problems[0]! + (problems.length > 1 ? ` (and ${problems.length - 1} more broken file${problems.length > 2 ? 's' : ''})` : ''))
  }
  return { dir, code, modules: new Map() }
}

/** The file a relative or absolute specifier names among this version's compiled files, if any. */
function compiledFile(version: ExtensionVersion, from: string, id: string): string | undefined {
  const base = resolve(dirname(from), id)
  const tries = [base, ...MODULE_EXTENSIONS.map((ext) => base + ext), ...MODULE_EXTENSIONS.map((ext) => join(base, 'index' + ext))]
  // TypeScript's convention: `./x.js` in the source names `./x.ts`.
  if (/\.[cm]?js$/.test(base)) tries.push(base.replace(/js$/, 'ts'))
  return tries.find((file) => version.code.has(file))
}

const isPath = (id: string) => id.startsWith('./') || id.startsWith('../') || id === '.' || id === '..' || id.startsWith('/')

/** The `require` a module of this version gets: its own files from the version, the rest as the shared loader does. */
function versionRequire(version: ExtensionVersion, from: string): NodeJS.Require {
  let native: NodeJS.Require | undefined
  const nativeRequire = () => (native ??= createRequire(from))
  const outside = (id: string): string => {
    if (id in SDK_ALIASES || id.startsWith('agent/')) return id
    if (isPath(id)) return resolve(dirname(from), id)
    return nativeRequire().resolve(id)
  }
  const load = (id: string): unknown => {
    if (id.startsWith('node:') || builtinModules.includes(id)) return nativeRequire()(id)
    const own = isPath(id) ? compiledFile(version, from, id) : undefined
    if (own) return evaluate(version, own)
    // Outside the folder (the sdk, packages, JSON): the one shared instance, as for any extension.
    return sharedJiti()(outside(id))
  }
  const resolveId = (id: string) => (isPath(id) ? (compiledFile(version, from, id) ?? resolve(dirname(from), id)) : nativeRequire().resolve(id))
  return Object.assign(load, { resolve: Object.assign(resolveId, { paths: (id: string) => nativeRequire().resolve.paths(id) }), cache: nativeRequire().cache, main: undefined, extensions: nativeRequire().extensions }) as NodeJS.Require
}

function evaluate(version: ExtensionVersion, filename: string): unknown {
  const cached = version.modules.get(filename)
  if (cached) return cached.exports
  const module = new Module(filename)
  module.filename = filename
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(filename))
  const require = versionRequire(version, filename)
  module.require = require as never
  version.modules.set(filename, module)
  try {
    // The same wrapper jiti uses, so compiled code behaves alike under both.
    const wrapper = runInThisContext(`(function (exports, require, module, __filename, __dirname) { ${version.code.get(filename)}\n});`, { filename })
    wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename))
  } catch (error) {
    version.modules.delete(filename)
    throw error
  }
  module.loaded = true
  return module.exports
}

/** Evaluates the version's entry file; resolves with its default export (or the module). */
export function importFromVersion(version: ExtensionVersion, entry: string): unknown {
  if (!version.code.has(entry)) {
    throw new AgentError('E_EXTENSION', `${entry}: ${existsSync(entry) ? 'not below the extension folder' : 'does not exist'}`)
  }
  const exports = evaluate(version, entry) as { default?: unknown } | null
  return exports && typeof exports === 'object' && 'default' in exports ? exports.default : exports
}
