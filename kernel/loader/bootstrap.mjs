// The process-wide TypeScript loader, in plain JS so the `agent` bin can use it before any
// TypeScript is loaded. jiti evaluates the modules; esbuild replaces jiti's babel transform (a
// second per file when cold, against a few milliseconds) and is only loaded on a cache miss.
// `agent/sdk` resolves to this running agent's sdk, so a plugin never bundles a second copy.

import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createJiti } from 'jiti'

export const AGENT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export const SDK_ALIASES = {
  'agent/sdk/testing': join(AGENT_ROOT, 'sdk', 'testing', 'index.ts'),
  'agent/sdk': join(AGENT_ROOT, 'sdk', 'index.ts'),
  'agent/kernel': join(AGENT_ROOT, 'kernel', 'index.ts'),
}

const requireCjs = createRequire(import.meta.url)
let esbuild

// jiti keys its cache on the source only: bump this whenever esbuildTransform's output changes.
const TRANSFORM_VERSION = 5
const CACHE_DIR = join(AGENT_ROOT, 'node_modules', '.cache', 'agent', `jiti-t${TRANSFORM_VERSION}`)

/** TypeScript/ESM → the CommonJS jiti evaluates. Dynamic import() becomes require() so it stays inside jiti. */
export function esbuildTransform(options) {
  esbuild ??= requireCjs('esbuild')
  const filename = options.filename ?? 'module.ts'
  try {
    const result = esbuild.transformSync(options.source, {
      loader: /\.[cm]?tsx?$/.test(filename) ? (filename.endsWith('x') ? 'tsx' : 'ts') : 'js',
      format: 'cjs',
      target: 'node20',
      platform: 'node',
      sourcefile: filename,
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': '__agent_import_meta_url', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
      // Packages are required natively (see packageAwareRequire). The code gets block scopes of its
      // own: ESM code often declares `const __dirname` or `const require`, which would clash with
      // the parameters of jiti's CommonJS wrapper.
      banner: `"use strict";var __agent_import_meta_url = require("node:url").pathToFileURL(__filename).href, __agent_require = globalThis[Symbol.for("agent.require")](require, __filename);{const require = __agent_require;{`,
      footer: '}}',
      logLevel: 'silent',
    })
    return { code: result.code }
  } catch (error) {
    // jiti ignores a returned error; throw one line with esbuild's location instead.
    const first = error?.errors?.[0]
    if (!first) throw error
    const where = first.location ? `${filename}:${first.location.line}:${first.location.column + 1}: ` : `${filename}: `
    throw new SyntaxError(`${where}${first.text}`)
  }
}

// Codes meaning "Node cannot load this natively", as opposed to "the module itself failed".
const NOT_NATIVE = new Set(['ERR_UNKNOWN_FILE_EXTENSION', 'ERR_PACKAGE_PATH_NOT_EXPORTED', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE'])
const interopCache = new WeakMap()

/**
 * Node ESM semantics for what a transformed module imports from a package: a CommonJS package's
 * default import is its whole `module.exports`, even when it carries an `__esModule` flag; an ES
 * module (required natively, Node ≥ 20.19) keeps its own default export.
 */
function esmInterop(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return value
  if (Object.prototype.toString.call(value) === '[object Module]' || !value.__esModule) return value
  // A non-configurable `default` is how loaders (tsx under tests) shape a real ES module namespace:
  // its default export is the default, as under Node.
  if (Object.getOwnPropertyDescriptor(value, 'default')?.configurable === false) return value
  let wrapped = interopCache.get(value)
  if (!wrapped) {
    wrapped = Object.defineProperties({}, Object.getOwnPropertyDescriptors(value))
    Object.defineProperty(wrapped, '__esModule', { value: true })
    Object.defineProperty(wrapped, 'default', { value, enumerable: true })
    interopCache.set(value, wrapped)
  }
  return wrapped
}

/**
 * The `require` a transformed module sees: packages load natively (no transpiling of node_modules,
 * and one instance shared with the rest of the process); relative paths, TypeScript and the
 * `agent/*` aliases go through jiti.
 */
function packageAwareRequire(jitiRequire, filename) {
  let nativeRequire
  const isPackage = (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('node:') && !(id in SDK_ALIASES) && !id.startsWith('agent/')
  const load = (id) => {
    if (!isPackage(id)) return globalThis[SEALED].redirect?.(id, filename, jitiRequire)?.exports ?? jitiRequire(id)
    nativeRequire ??= createRequire(filename)
    try {
      return esmInterop(nativeRequire(id))
    } catch (error) {
      if (error && NOT_NATIVE.has(error.code)) return jitiRequire(id)
      throw error
    }
  }
  load.resolve = jitiRequire.resolve
  load.cache = jitiRequire.cache
  return load
}
globalThis[Symbol.for('agent.require')] ??= packageAwareRequire
// A running extension's files not loaded yet come from the build sealed when watching began
// (kernel/loader/version.ts sets `redirect`), not from a file saved since.
const SEALED = Symbol.for('agent.sealed')
globalThis[SEALED] ??= { redirect: undefined }

let shared

/** The shared loader; its module cache is Node's require cache, so the sdk is loaded once. */
export function sharedJiti() {
  shared ??= createJiti(import.meta.url, {
    fsCache: process.env.AGENT_JITI_CACHE === 'false' ? false : CACHE_DIR,
    moduleCache: true,
    // Off: with it, every module jiti hands out is a Proxy, so each use of an imported function in
    // transformed code (`(0, import_x.f)(…)`) went through a `get` trap and a Map lookup, and V8
    // could not inline across it. esbuild's output does its own ESM interop, the loader takes an
    // entry's default export itself (version.ts), and packages get Node's (esmInterop above).
    interopDefault: false,
    alias: SDK_ALIASES,
    transform: esbuildTransform,
    sourceMaps: false,
  })
  return shared
}
