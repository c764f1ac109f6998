// Settings read on every run (the loop's own keys, compression's) are worked out again only when
// they may have changed: the settings' revision moves with config.yaml, the project overlay and
// .env. This process's environment is not in the revision, so a value is also kept no longer than
// REUSE_MS. Validation failures are not kept: a bad value fails every run until it is fixed.

import type { Settings } from 'agent/sdk'

export const REUSE_MS = 100

export function perRevision<T extends object>(compute: (settings: Settings) => T): (settings: Settings) => T {
  const kept = new WeakMap<Settings, { revision: number; at: number; value: T }>()
  return (settings) => {
    const revision = settings.revision?.()
    const now = Date.now()
    const hit = kept.get(settings)
    if (hit && revision !== undefined && hit.revision === revision && now - hit.at < REUSE_MS) return hit.value
    const value = Object.freeze(compute(settings))
    if (revision !== undefined) kept.set(settings, { revision, at: now, value })
    return value
  }
}
