// One version of an extension built whole before a hot swap: every module file of its folder is
// compiled up front (a broken file anywhere fails the build, named file:line:col), and the version's
// modules are then evaluated from that compiled code with a module cache of their own. A lazy
// `await import()` of this version never reads the disk again, so a later save cannot reach it.
// The version loaded at start (through jiti) is sealed the same way when watching begins: its files
// not loaded yet then come from that build too, into the shared module cache it already uses.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules, createRequire, Module } from 'node:module'
import { dirname, join, resolve, sep } from 'node:path'
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
  /** A sealed start-up version: its modules live in the process-wide cache, beside those jiti loaded. */
  shared?: boolean
}

type ModuleCache = Record<string, Module | undefined>
const processCache = (): ModuleCache => createRequire(import.meta.url).cache as ModuleCache

/**
 * Module files below `dir` (not node_modules or dot folders), sorted for a stable first error. A
 * folder with a package.json of its own is a program or package apart (WhatsApp's bridge runs as a
 * process of its own, with top-level await CommonJS cannot hold): it is not compiled with the
 * extension, and what the extension imports from it loads as any package file does.
 */
function moduleFiles(dir: string): string[] {
  const out: string[] = []
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const path = join(folder, entry.name)
      const isDir = entry.isDirectory() || (entry.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isDirectory())
      if (isDir && existsSync(join(path, 'package.json'))) continue
      if (isDir) walk(path)
      else if (MODULE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) out.push(path)
      if (out.length > MAX_FILES) throw new AgentError('E_EXTENSION', `${dir}: more than ${MAX_FILES} module files; not an extension folder`)
    }
  }
  walk(dir)
  return out.sort()
}

/** Compiles every module file of a folder through the shared loader's transform (and its disk cache). */
function compileFolder(dir: string): { code: Map<string, string>; problems: string[] } {
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
  return { code, problems }
}

/** Builds a version of an extension's folder; throws one line, `<file>:<line>:<col>: <message>`, for the first broken file. */
export function buildVersion(dir: string): ExtensionVersion {
  const { code, problems } = compileFolder(dir)
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
  return Object.assign(load, { [VERSIONED]: true, resolve: Object.assign(resolveId, { paths: (id: string) => nativeRequire().resolve.paths(id) }), cache: nativeRequire().cache, main: undefined, extensions: nativeRequire().extensions }) as NodeJS.Require
}

/** Marks a version's own `require`, which the start-up redirect must leave alone. */
const VERSIONED = Symbol('agent.versioned-require')

function evaluate(version: ExtensionVersion, filename: string): unknown {
  const cached = version.shared ? processCache()[filename] : version.modules.get(filename)
  if (cached) return cached.exports
  const module = new Module(filename)
  module.filename = filename
  module.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(dirname(filename))
  const require = versionRequire(version, filename)
  module.require = require as never
  const remember = (value: Module | undefined) => {
    if (version.shared) processCache()[filename] = value
    else if (value) version.modules.set(filename, value)
    else version.modules.delete(filename)
  }
  remember(module)
  try {
    // The same wrapper jiti uses, so compiled code behaves alike under both.
    const wrapper = runInThisContext(`(function (exports, require, module, __filename, __dirname) { ${version.code.get(filename)}\n});`, { filename })
    wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename))
  } catch (error) {
    remember(undefined)
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

// Sealed start-up versions by folder; the loader's redirect (bootstrap.mjs) consults them.
const sealed = new Map<string, ExtensionVersion>()
const SEALED = Symbol.for('agent.sealed')
type Redirect = (id: string, from: string, req: unknown) => { exports: unknown } | undefined
const hooks = globalThis as unknown as Record<symbol, { redirect?: Redirect } | undefined>
;(hooks[SEALED] ??= {}).redirect = (id, from, req) => {
  if (sealed.size === 0 || !isPath(id) || (req as Record<symbol, unknown>)[VERSIONED]) return undefined
  for (const version of sealed.values()) {
    if (!from.startsWith(version.dir + sep)) continue
    const file = compiledFile(version, from, id)
    if (!file) return undefined
    const present = processCache()[file]
    // Loaded already: jiti answers from its cache, as before. Still loading (an import cycle): the
    // partial exports, as Node gives them, never a second copy.
    if (present) return present.loaded ? undefined : { exports: present.exports }
    return { exports: evaluate(version, file) }
  }
  return undefined
}

let sealing: Promise<void> = Promise.resolve()

/**
 * Seals the start-up version of each folder in the background: compiles its files, so those it
 * imports later come from this build. A file already broken now is left out (it fails as it would
 * have). Unref'd timers between folders: a run that ends first (a one-shot chat) never waits for it,
 * and the agent keeps serving meanwhile. Stops once `active` is false.
 */
export function sealLoaded(dirs: readonly string[], active: () => boolean): void {
  const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0).unref())
  sealing = sealing.then(async () => {
    for (const dir of dirs) {
      await pause()
      if (!active()) return
      if (sealed.has(dir)) continue
      try {
        sealed.set(dir, { dir, code: compileFolder(dir).code, modules: new Map(), shared: true })
      } catch {
        // An unreadable folder (removed meanwhile, too large) stays unsealed.
      }
    }
  })
}

/** Resolves once the sealing started so far is done (tests). */
export function sealingSettled(): Promise<void> {
  return sealing
}

/** Drops a folder's sealed start-up version once a newer version replaced it. */
export function unseal(dir: string): void {
  sealed.delete(dir)
}
