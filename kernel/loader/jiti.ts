// The kernel's view of the loader: the shared jiti instance (kernel/loader/bootstrap.mjs) and
// forgetting an extension's modules so a hot reload reads its files afresh.

import { createRequire } from 'node:module'
import { sep } from 'node:path'

export { AGENT_ROOT, SDK_ALIASES, sharedJiti } from './bootstrap.mjs'

const requireCjs = createRequire(import.meta.url)

/** Forgets every module loaded from below `dir` (not its node_modules), so the next import is fresh. */
export function forgetModulesUnder(dir: string): number {
  const prefix = dir.endsWith(sep) ? dir : dir + sep
  let count = 0
  for (const key of Object.keys(requireCjs.cache)) {
    // Plugins live under <home>/plugins/node_modules/: only dependencies *below* the folder are kept.
    if (key.startsWith(prefix) && !key.slice(prefix.length).includes(`node_modules${sep}`)) {
      delete requireCjs.cache[key]
      count++
    }
  }
  return count
}
