// Whether a directory can be checkpointed: not the home directory or the filesystem root, not the
// agent's home or inside it, not more than `max_files` files (counted with an early stop), and git
// present. Any "no" disables checkpointing for that directory quietly (a debug log line), never
// blocking a tool.

import { opendir } from 'node:fs/promises'
import { join, parse, resolve } from 'node:path'
import { EXCLUDED_DIRS, homeWithin } from './files.ts'

/** Counts files under `dir` (not inside excluded directories), stopping once `limit` is exceeded. */
export async function countFiles(dir: string, limit: number): Promise<number> {
  let count = 0
  const stack = [dir]
  while (stack.length && count <= limit) {
    const current = stack.pop()!
    let handle
    try {
      handle = await opendir(current, { bufferSize: 256 })
    } catch {
      continue
    }
    for await (const entry of handle) {
      if (entry.isDirectory()) {
        if (!EXCLUDED_DIRS.has(entry.name)) stack.push(join(current, entry.name))
      } else if (++count > limit) break
    }
  }
  return count
}

export interface Eligibility {
  ok: boolean
  reason?: string
}

export async function checkDirectory(dir: string, home: string | undefined, maxFiles: number, agentHome?: string): Promise<Eligibility> {
  const abs = resolve(dir)
  if (abs === parse(abs).root) return { ok: false, reason: 'the working directory is the filesystem root' }
  if (home && abs === resolve(home)) return { ok: false, reason: 'the working directory is the home directory' }
  // Everything there would be the agent's own state (state.db, the checkpoints themselves).
  if (agentHome && homeWithin(agentHome, abs) !== undefined) return { ok: false, reason: "the working directory is inside the agent's home" }
  const count = await countFiles(abs, maxFiles)
  if (count > maxFiles) return { ok: false, reason: `the working directory holds more than ${maxFiles} files` }
  return { ok: true }
}
