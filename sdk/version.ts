// The running agent's own version (its package.json), for extensions that report it to peers: an
// editor's initialize answer, a capability file's $APP version. Read once.

import { readFileSync } from 'node:fs'

let cached: string | undefined

export function agentVersion(): string {
  if (cached === undefined) {
    try {
      cached = String((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }).version ?? '0.0.0')
    } catch {
      cached = '0.0.0'
    }
  }
  return cached
}
