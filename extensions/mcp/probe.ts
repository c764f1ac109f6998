// Connecting to servers and reading what they offer, for `agent mcp test|add`, the ready hook and
// /reload-mcp: the cache is rewritten with it. At most `concurrency` connect at once; a manager
// shut down meanwhile refuses the rest at once.

import { errorMessage } from 'agent/sdk'
import { bridgedName } from './bridge.ts'
import { writeCache, type CachedTool, type ServerSnapshot } from './cache.ts'
import { toolAllowed, type ServerConfig } from './config.ts'
import type { McpManager } from './connection.ts'

export type ProbeResult =
  | {
      name: string
      ok: true
      ms: number
      serverInfo?: { name: string; version: string }
      tools: Array<{ name: string; bridged: string; allowed: boolean; description?: string }>
      raw: CachedTool[]
      snapshot: ServerSnapshot
      /** The cache file changed. */
      changed: boolean
    }
  | { name: string; ok: false; error: string }

export async function probeServers(manager: McpManager, home: string, configs: readonly ServerConfig[], concurrency = 4): Promise<ProbeResult[]> {
  const results: ProbeResult[] = new Array(configs.length)
  let next = 0
  const worker = async () => {
    while (next < configs.length) {
      const index = next++
      const config = configs[index]!
      const started = Date.now()
      try {
        const snapshot = await manager.snapshot(config.name, true)
        const { tools } = snapshot
        const changed = await writeCache(home, config.name, snapshot)
        const info = manager.status().find((s) => s.name === config.name)?.serverInfo
        results[index] = {
          name: config.name,
          ok: true,
          ms: Date.now() - started,
          ...(info ? { serverInfo: info } : {}),
          tools: tools.map((t) => ({ name: t.name, bridged: bridgedName(config.name, t.name), allowed: toolAllowed(config, t.name), ...(t.description ? { description: t.description } : {}) })),
          raw: tools,
          snapshot,
          changed,
        }
      } catch (error) {
        results[index] = { name: config.name, ok: false, error: errorMessage(error) }
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, configs.length) }, worker))
  return results
}
