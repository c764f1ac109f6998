// Paths the agent itself wrote with its file tools (after a person's approval where the place is
// protected). The terminal sandbox's watch (tools-terminal sandbox-sentry.ts) undoes a protected
// place a sandboxed command creates and a git config change it makes; a write the agent made while
// such a command ran is not the command's doing, so the watch takes it as the new state, once.
// Process-wide on purpose: every kernel's file tools and terminals share the disk.

import { createHash } from 'node:crypto'
import { resolve, sep } from 'node:path'

/** Only writes during a running command matter, so a bounded record is enough (oldest dropped). */
const LIMIT = 1000
const written = new Map<string, AgentWrite>()

export interface AgentWrite {
  /** When (ms). */
  at: number
  /** sha256 of what was written, for the file itself (not for a folder on its way). */
  digest?: string
}

export const contentDigest = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex')

/**
 * Called before the file tools create folders for `path` or write `content` to it: a watch then
 * takes the file as the agent's only while it holds exactly that content.
 */
export function noteAgentWrite(path: string, content: string): void {
  const key = resolve(path)
  written.delete(key)
  written.set(key, { at: Date.now(), digest: contentDigest(content) })
  if (written.size > LIMIT) written.delete(written.keys().next().value!)
}

/** Called when that write failed: nothing of the agent's is there. */
export function forgetAgentWrite(path: string): void {
  written.delete(resolve(path))
}

/** The agent's last write of `path`, or of a file inside it (a folder it created on the way: no digest); undefined if never. */
export function agentWriteOf(path: string): AgentWrite | undefined {
  const key = resolve(path)
  let latest: AgentWrite | undefined
  for (const [place, write] of written) {
    if ((place === key || place.startsWith(key + sep)) && (latest === undefined || write.at > latest.at)) latest = place === key ? write : { at: write.at }
  }
  return latest
}
