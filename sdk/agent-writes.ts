// Paths the agent itself wrote with its file tools (after a person's approval where the place is
// protected). The terminal sandbox's watch (tools-terminal sandbox-sentry.ts) undoes a protected
// place a sandboxed command creates and a git config change it makes; a write the agent made while
// such a command ran is not the command's doing, so the watch takes it as the new state, once.
// Process-wide on purpose: every kernel's file tools and terminals share the disk.

import { resolve, sep } from 'node:path'

/** Only writes during a running command matter, so a bounded record is enough (oldest dropped). */
const LIMIT = 1000
const written = new Map<string, number>()

/** Called before the file tools create folders for `path` or write it. */
export function noteAgentWrite(path: string): void {
  const key = resolve(path)
  written.delete(key)
  written.set(key, Date.now())
  if (written.size > LIMIT) written.delete(written.keys().next().value!)
}

/** Called when that write failed: nothing of the agent's is there. */
export function forgetAgentWrite(path: string): void {
  written.delete(resolve(path))
}

/** When the agent last wrote `path`, or a file inside it (a folder it created on the way); undefined if never. */
export function agentWriteTime(path: string): number | undefined {
  const key = resolve(path)
  let latest: number | undefined
  for (const [place, at] of written) {
    if ((place === key || place.startsWith(key + sep)) && (latest === undefined || at > latest)) latest = at
  }
  return latest
}
