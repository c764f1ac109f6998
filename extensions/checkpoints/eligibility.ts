// Whether a directory can be checkpointed: not the home directory or the filesystem root, not more
// than `max_files` files (counted with an early stop), and git present. Any "no" disables
// checkpointing for that directory quietly (a debug log line), never blocking a tool.

import { opendir } from 'node:fs/promises'
import { join, parse, resolve } from 'node:path'

/** Directories never descended into when counting or snapshotting. */
export const EXCLUDED_DIRS = new Set(['.git', 'node_modules', '.venv', 'venv', '__pycache__', '.cache', '.tox', '.mypy_cache', '.pytest_cache'])

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

export async function checkDirectory(dir: string, home: string | undefined, maxFiles: number): Promise<Eligibility> {
  const abs = resolve(dir)
  if (abs === parse(abs).root) return { ok: false, reason: 'the working directory is the filesystem root' }
  if (home && abs === resolve(home)) return { ok: false, reason: 'the working directory is the home directory' }
  const count = await countFiles(abs, maxFiles)
  if (count > maxFiles) return { ok: false, reason: `the working directory holds more than ${maxFiles} files` }
  return { ok: true }
}
