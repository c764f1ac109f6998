// MCP servers (stdio and streamable HTTP, official SDK): their tools bridged into the tool registry as
// `mcp__<server>__<tool>` from the cached tool lists, refreshed on ready (chat, gateway) and by
// /reload-mcp — a changed list reloads this extension so the registry matches. `agent mcp …` manages
// servers; `agent mcp serve` exposes the agent's own tools over stdio.

import { agentVersion, defineExtension, EXTENSIONS_SERVICE, errorMessage, type ExtensionsService } from 'agent/sdk'
import { bridgeTool } from './bridge.ts'
import { fingerprint, readCache, type CachedTool } from './cache.ts'
import { mcpSubcommands } from './cli.ts'
import { readServers, toolAllowed, type ServerConfig } from './config.ts'
import { McpManager } from './connection.ts'
import { probeServers, type ProbeResult } from './probe.ts'

export default defineExtension({
  name: 'mcp',
  version: '1.0.0',
  description: 'MCP servers: bridged tools, agent mcp commands, /reload-mcp, agent mcp serve',
  configKey: 'mcp_servers',
  // Entries are checked one by one (config.ts) so one bad server does not take the others down.
  config: { type: 'object', additionalProperties: { type: 'object' } },
  setup(api) {
    const home = api.settings.home
    const manager = new McpManager({ settings: api.settings, log: api.log, clientVersion: agentVersion() })
    const entries = readServers(api.settings)
    const configs = entries.flatMap((e) => (e.ok ? [e.config] : []))
    for (const e of entries) if (!e.ok) api.log.warn(`mcp_servers.${e.name} is ignored: ${e.reason}`)
    manager.configure(configs)
    api.onDispose(() => manager.closeAll())

    // What this version registered, per server: a refresh that finds anything else reloads.
    const registered = new Map<string, string>()
    const taken = new Set<string>()
    for (const config of configs.filter((c) => c.enabled)) {
      const cached = readCache(home, config.name)?.tools ?? []
      registered.set(config.name, fingerprint(cached))
      for (const tool of cached.filter((t) => toolAllowed(config, t.name))) {
        const bridged = bridgeTool(config.name, tool, () => manager)
        if (taken.has(bridged.name)) {
          api.log.warn(`MCP tool "${tool.name}" of "${config.name}" is skipped: its name clashes with another bridged tool`)
          continue
        }
        taken.add(bridged.name)
        api.tools.register(bridged)
      }
    }

    /** Re-reads config.yaml, (re)connects the enabled servers and refreshes the caches. */
    async function refresh(reconnect: boolean): Promise<{ results: ProbeResult[]; disabled: string[]; invalid: Array<{ name: string; reason: string }>; stale: boolean }> {
      const now = readServers(api.settings)
      const current = now.flatMap((e) => (e.ok ? [e.config] : []))
      if (reconnect) await manager.closeAll()
      manager.configure(current)
      const enabled = current.filter((c) => c.enabled)
      const results = await probeServers(manager, home, enabled)
      const lists = new Map<string, CachedTool[]>()
      for (const r of results) if (r.ok) lists.set(r.name, r.raw)
      const changedServers = enabled.some((c) => (lists.has(c.name) ? fingerprint(lists.get(c.name)!) : registered.get(c.name)) !== registered.get(c.name))
      const setChanged = enabled.length !== registered.size || enabled.some((c) => !registered.has(c.name)) || configChanged(configs, current)
      return {
        results,
        disabled: current.filter((c) => !c.enabled).map((c) => c.name),
        invalid: now.flatMap((e) => (e.ok ? [] : [{ name: e.name, reason: e.reason }])),
        stale: changedServers || setChanged,
      }
    }

    /** Asks the kernel for a fresh version of this extension, after the current call has returned. */
    const reloadSoon = () => {
      if (api.signal.aborted) return
      setImmediate(() => {
        if (api.signal.aborted) return
        api.services
          .require<ExtensionsService>(EXTENSIONS_SERVICE)
          .reload(api.name)
          .then((r) => (r.ok ? api.log.info('MCP tools changed: reloaded') : api.log.error(`reloading MCP tools failed: ${r.reason}`)))
          .catch((error) => api.log.error(`reloading MCP tools failed: ${errorMessage(error)}`))
      })
    }

    api.hooks.ready.tapPromise(async ({ mode }) => {
      if (mode === 'command' || configs.every((c) => !c.enabled)) return
      // Connecting may take seconds: never hold up the start.
      void refresh(false)
        .then((outcome) => {
          for (const r of outcome.results) if (!r.ok) api.log.warn(`MCP server "${r.name}": ${r.error}`)
          if (outcome.stale) reloadSoon()
        })
        .catch((error) => api.log.error(`MCP start-up failed: ${errorMessage(error)}`))
    })

    api.commands.register({
      name: 'mcp',
      category: 'Tools',
      description: 'Manage MCP servers (add, remove, list, test, configure) and serve the agent over MCP',
      cli: {
        subcommands: mcpSubcommands({
          version: agentVersion(),
          async probe(names) {
            const now = readServers(api.settings).flatMap((e) => (e.ok ? [e.config] : []))
            manager.configure(now)
            const chosen = names.map((n) => now.find((c) => c.name === n)).filter((c): c is ServerConfig => c !== undefined)
            try {
              return await probeServers(manager, home, chosen.map((c) => ({ ...c, enabled: true })))
            } finally {
              await Promise.all(chosen.map((c) => manager.close(c.name)))
            }
          },
        }),
      },
    })

    api.commands.register({
      name: 'reload-mcp',
      category: 'Tools',
      description: 'Reconnect the MCP servers and refresh their tools',
      scope: 'both',
      async slash(ctx) {
        const outcome = await refresh(true)
        const lines = outcome.results.map((r) => (r.ok ? `${r.name}: ${r.tools.filter((t) => t.allowed).length} tools` : `${r.name}: failed: ${r.error}`))
        for (const name of outcome.disabled) lines.push(`${name}: disabled`)
        for (const { name, reason } of outcome.invalid) lines.push(`${name}: invalid: ${reason}`)
        if (lines.length === 0) lines.push('no MCP servers configured (agent mcp add)')
        if (outcome.stale) {
          lines.push('the tool list changed: reloading')
          reloadSoon()
        }
        await ctx.reply(lines.join('\n'))
      },
    })
  },
})

/** Whether the servers' settings that shape registration (filters, enabled) differ. */
function configChanged(before: readonly ServerConfig[], after: readonly ServerConfig[]): boolean {
  const key = (list: readonly ServerConfig[]) => JSON.stringify(list.map((c) => [c.name, c.enabled, c.include ?? null, c.exclude]).sort())
  return key(before) !== key(after)
}
