// The process-wide safety net of the long-running modes: an unhandled rejection or uncaught
// exception is logged with the extension that owns it (the deepest extension folder named by its
// stack), that extension is isolated (marked failed, its registrations removed), and the process
// keeps serving. Without this, Node ends the process on either.

import { sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { errorMessage } from '../sdk/errors.ts'
import type { ExtensionInfo, Logger } from '../sdk/types.ts'

export interface ProcessGuardDeps {
  log: Logger
  extensions(): ExtensionInfo[]
  /** Marks an extension failed and removes what it registered; false if it was not loaded. */
  isolate(name: string, reason: string): Promise<boolean>
}

/** Repeats from one owner (a throwing interval) are logged at most this often. */
const REPEAT_LOG_MS = 10_000

// `at fn (/abs/file.ts:3:9)`, `at /abs/file.ts:3:9`, `at file:///abs/file.mjs:3:9`
const FRAME = /^\s*at (?:.*?\()?((?:file:\/\/)?\/[^()]*?):\d+:\d+\)?\s*$/

/** The files named by a stack, innermost first. */
export function stackFiles(stack: string): string[] {
  const files: string[] = []
  for (const line of stack.split('\n')) {
    const match = FRAME.exec(line)
    if (!match) continue
    const location = match[1]!
    try {
      files.push(location.startsWith('file://') ? fileURLToPath(location) : location)
    } catch {
      // not a path we can map
    }
  }
  return files
}

/** The extension whose folder holds the innermost frame that lies in any extension's folder. */
export function ownerOfStack(stack: string | undefined, extensions: readonly ExtensionInfo[]): string | undefined {
  if (!stack) return undefined
  const folders = extensions
    .filter((e) => e.path.startsWith(sep))
    .map((e) => ({ name: e.name, prefix: e.path.endsWith(sep) ? e.path : e.path + sep }))
    .sort((a, b) => b.prefix.length - a.prefix.length)
  for (const file of stackFiles(stack)) {
    const owner = folders.find((f) => file.startsWith(f.prefix) && !file.slice(f.prefix.length).includes(`node_modules${sep}`))
    if (owner) return owner.name
  }
  return undefined
}

/** Installs the handlers; returns their removal. */
export function installProcessGuard(deps: ProcessGuardDeps): () => void {
  const lastLogged = new Map<string, { at: number; suppressed: number }>()

  const handle = (kind: 'unhandled rejection' | 'uncaught exception', reason: unknown) => {
    try {
      const stack = reason instanceof Error ? reason.stack : undefined
      const owner = ownerOfStack(stack, deps.extensions())
      const key = owner ?? '(unknown)'
      const seen = lastLogged.get(key)
      const now = Date.now()
      if (seen && now - seen.at < REPEAT_LOG_MS) {
        seen.suppressed++
        return
      }
      const repeats = seen?.suppressed ? ` (${seen.suppressed} more since the last report)` : ''
      lastLogged.set(key, { at: now, suppressed: 0 })
      const message = errorMessage(reason)
      if (stack) deps.log.debug(stack)
      if (!owner) {
        deps.log.error(`${kind} (no extension named in its stack), still serving: ${message}${repeats}`)
        return
      }
      deps.log.error(`${kind} in extension "${owner}": ${message}${repeats}`)
      deps
        .isolate(owner, `${kind}: ${message}`)
        .then((isolated) => isolated && deps.log.error(`extension "${owner}" isolated (marked failed, its registrations removed); still serving`))
        .catch((error) => deps.log.error(`could not isolate extension "${owner}": ${errorMessage(error)}`))
    } catch {
      // The net itself must never throw: that would end the process it exists to keep up.
    }
  }
  const onRejection = (reason: unknown) => handle('unhandled rejection', reason)
  const onException = (error: unknown) => handle('uncaught exception', error)
  process.on('unhandledRejection', onRejection)
  process.on('uncaughtException', onException)
  return () => {
    process.off('unhandledRejection', onRejection)
    process.off('uncaughtException', onException)
  }
}
