// Hot reload: chokidar watches the extension folders (explicit paths, no globs). Changes are debounced
// per extension and reloads are serialized by the kernel. A folder that appears in the user's
// extensions directory is loaded; one that disappears is unloaded.

import { existsSync, mkdirSync } from 'node:fs'
import { relative, sep } from 'node:path'
import type { Logger } from '../sdk/types.ts'
import type { Kernel } from './kernel.ts'

export interface WatchOptions {
  userRoot: string
  log: Logger
  debounceMs?: number
}

export async function watchExtensions(kernel: Kernel, options: WatchOptions): Promise<() => Promise<void>> {
  const { watch } = await import('chokidar')
  const debounceMs = options.debounceMs ?? 80
  mkdirSync(options.userRoot, { recursive: true })
  const timers = new Map<string, NodeJS.Timeout>()

  /** Which extension a changed path belongs to. */
  const ownerOf = (path: string): string | undefined => {
    const rel = relative(options.userRoot, path)
    if (rel && !rel.startsWith('..')) return rel.split(sep)[0]
    for (const info of kernel.extensions()) {
      if (info.source !== 'user' && (path === info.path || path.startsWith(info.path + sep))) return info.name
    }
    return undefined
  }

  const schedule = (path: string) => {
    const name = ownerOf(path)
    if (!name || name.startsWith('.')) return
    clearTimeout(timers.get(name))
    timers.set(
      name,
      setTimeout(() => {
        timers.delete(name)
        const known = kernel.extensions().find((e) => e.name === name)
        const folderGone = known?.source === 'user' && !existsSync(known.path)
        const action = folderGone ? kernel.unload(name).then(() => options.log.info(`unloaded "${name}"`)) : kernel.reload(name).then(() => undefined)
        action.catch((error: unknown) => options.log.error(`reload of "${name}" failed: ${(error as Error).message}`))
      }, debounceMs),
    )
  }

  const roots = kernel.watchRoots()
  // Ignore dependencies and VCS folders *below* a watched root: plugin roots themselves sit in node_modules.
  const ignored = (path: string) => {
    const root = roots.find((r) => path === r || path.startsWith(r + sep))
    const below = root ? path.slice(root.length) : path
    return /(^|[/\\])(node_modules|\.git)([/\\]|$)/.test(below)
  }
  const watcher = watch(roots, { ignoreInitial: true, ignored, awaitWriteFinish: false })
  watcher.on('all', (_event: string, path: string) => schedule(path))
  await new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return async () => {
    for (const timer of timers.values()) clearTimeout(timer)
    timers.clear()
    await watcher.close()
  }
}
