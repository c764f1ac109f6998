// Paths the agent itself wrote with its file tools (after a person's approval where the place is
// protected). The terminal sandbox's watch (tools-terminal sandbox-sentry.ts) undoes a protected
// place a sandboxed command creates; one the agent wrote while such a command ran is not the
// command's doing, so the watch leaves it. Process-wide on purpose: every kernel's file tools and
// terminals share the disk.

import { resolve, sep } from 'node:path'

/** Most recent first out: only writes during a running command matter, so a bounded record is enough. */
const LIMIT = 1000
const written = new Map<string, number>()

/** Called before the file tools write `path`. */
export function noteAgentWrite(path: string): void {
  const key = resolve(path)
  written.delete(key)
  written.set(key, Date.now())
  if (written.size > LIMIT) written.delete(written.keys().next().value!)
}

/** Whether the agent wrote `path`, or a file inside it (a folder it created on the way), at or after `since` (ms). */
export function agentWroteSince(path: string, since: number): boolean {
  const key = resolve(path)
  for (const [place, at] of written) {
    if (at >= since && (place === key || place.startsWith(key + sep))) return true
  }
  return false
}
