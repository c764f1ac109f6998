// Hot plugins in a running agent (chat, gateway): watches <agent_home>/plugins/agent-plugins.json,
// which `agent plugins install|update|remove` (another process) writes last, and loads a new plugin,
// swaps an updated one or drops a removed one through the kernel's `extensions` service.

import { existsSync, mkdirSync, watch, type FSWatcher } from 'node:fs'
import { sep } from 'node:path'
import { errorMessage, type ExtensionsService, type Logger } from 'agent/sdk'
import { candidateNames, folderManifest } from './manifest.ts'
import { readRecords, RECORDS_FILE, type PluginRecord } from './records.ts'

export interface WatchContext {
  pluginsDir: string
  installedDir(name: string): string
  extensions: ExtensionsService
  log: Logger
}

const stamp = (r: PluginRecord) => `${r.version}|${r.integrity ?? ''}|${r.updated_at}`

export function watchPlugins(ctx: WatchContext, debounceMs = 150): () => void {
  mkdirSync(ctx.pluginsDir, { recursive: true })
  let known = new Map(Object.values(readRecords(ctx.pluginsDir).plugins).map((r) => [r.name, r]))
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> = Promise.resolve()

  const apply = async () => {
    const now = new Map(Object.values(readRecords(ctx.pluginsDir).plugins).map((r) => [r.name, r]))
    const previous = known
    known = now
    for (const [name, record] of previous) {
      if (now.has(name)) continue
      for (const extension of record.extensions) {
        await ctx.extensions.unload(extension)
        ctx.log.info(`plugin ${name} removed: unloaded "${extension}"`)
      }
    }
    for (const [name, record] of now) {
      const before = previous.get(name)
      if (before && stamp(before) === stamp(record)) continue
      const dir = ctx.installedDir(name)
      if (!existsSync(dir)) continue
      // A loaded plugin reloads under its extension names; a new one is found by the names the
      // kernel's discovery gives it (from the package name) until it is loaded.
      let names = ctx.extensions.list().filter((info) => info.path === dir && info.state === 'loaded').map((info) => info.name)
      if (!names.length) {
        try {
          names = candidateNames(folderManifest(dir))
        } catch (error) {
          ctx.log.error(`plugin ${name}: ${errorMessage(error)}`)
          continue
        }
      }
      for (const extension of names) {
        const result = await ctx.extensions.reload(extension)
        if (result.ok) ctx.log.info(`plugin ${name} ${before ? 'updated' : 'installed'}: ${before ? 'swapped in' : 'loaded'} "${extension}"`)
        else ctx.log.error(`plugin ${name}: "${extension}" did not load: ${result.reason}`)
      }
    }
  }

  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      running = running.then(apply).catch((error) => ctx.log.error(`plugin refresh failed: ${errorMessage(error)}`))
    }, debounceMs)
  }

  let watcher: FSWatcher | undefined
  try {
    watcher = watch(ctx.pluginsDir, { persistent: false }, (_event, file) => {
      if (!file || String(file) === RECORDS_FILE) schedule()
    })
    watcher.on('error', (error) => ctx.log.warn(`watching ${ctx.pluginsDir + sep}${RECORDS_FILE} stopped: ${errorMessage(error)}`))
  } catch (error) {
    ctx.log.warn(`cannot watch ${ctx.pluginsDir}: ${errorMessage(error)}; installed plugins load on restart`)
  }
  return () => {
    clearTimeout(timer)
    watcher?.close()
  }
}
