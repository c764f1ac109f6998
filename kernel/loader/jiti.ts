// One jiti instance loads TypeScript extensions (and, from the bin, the kernel itself) without a
// build step. jiti's own transform is babel, about a second per file when its cache is cold; esbuild
// does the same job in a few milliseconds, so it is plugged in as jiti's transform and only loaded on a
// cache miss. `agent/sdk` resolves to this running agent's sdk, so a plugin never bundles a second copy.

import { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createJiti, type Jiti } from 'jiti'

export const AGENT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')

export const SDK_ALIASES: Record<string, string> = {
  'agent/sdk/testing': join(AGENT_ROOT, 'sdk', 'testing', 'index.ts'),
  'agent/sdk': join(AGENT_ROOT, 'sdk', 'index.ts'),
}

const requireCjs = createRequire(import.meta.url)
let esbuild: typeof import('esbuild') | undefined

interface TransformOptions {
  source: string
  filename?: string
  ts?: boolean
}

/** TypeScript/ESM → the CommonJS jiti evaluates. Dynamic import() becomes require() so it stays inside jiti. */
export function esbuildTransform(options: TransformOptions): { code: string; error?: unknown } {
  esbuild ??= requireCjs('esbuild') as typeof import('esbuild')
  const filename = options.filename ?? 'module.ts'
  try {
    const result = esbuild.transformSync(options.source, {
      loader: /\.[cm]?tsx?$/.test(filename) ? (filename.endsWith('x') ? 'tsx' : 'ts') : 'js',
      format: 'cjs',
      target: 'node20',
      platform: 'node',
      sourcefile: filename,
      sourcemap: 'inline',
      supported: { 'dynamic-import': false },
      define: { 'import.meta.url': '__agent_import_meta_url', 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
      banner: 'var __agent_import_meta_url = require("node:url").pathToFileURL(__filename).href;',
      logLevel: 'silent',
    })
    return { code: result.code }
  } catch (error) {
    return { code: '', error }
  }
}

let shared: Jiti | undefined

/** The process-wide loader; its module cache is Node's require cache. */
export function sharedJiti(): Jiti {
  shared ??= createJiti(import.meta.url, {
    fsCache: process.env.AGENT_JITI_CACHE === 'false' ? false : true,
    moduleCache: true,
    interopDefault: true,
    alias: SDK_ALIASES,
    transform: esbuildTransform as never,
    sourceMaps: false,
  })
  return shared
}

/** Forgets every module loaded from below `dir`, so the next import reads fresh files (hot reload). */
export function forgetModulesUnder(dir: string): number {
  const prefix = dir.endsWith(sep) ? dir : dir + sep
  let count = 0
  for (const key of Object.keys(requireCjs.cache)) {
    if (key.startsWith(prefix) && !key.includes(`${sep}node_modules${sep}`)) {
      delete requireCjs.cache[key]
      count++
    }
  }
  return count
}
