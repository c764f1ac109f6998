// MCP servers (stdio, Streamable HTTP, legacy SSE; official SDK): their tools, resources and prompts
// registered from cached snapshots (register.ts), servers connected on first use (the gateway: on
// ready), a snapshot that changed reloads this extension so the registries match. `agent mcp …`
// manages servers; `agent mcp serve` exposes the agent's own tools over stdio.

import { agentVersion, defineExtension, EXTENSIONS_SERVICE, errorMessage, MCP_SERVICE, type ExtensionsService, type McpService, type RunMode } from 'agent/sdk'
import { fingerprint, readCache, writeCache } from './cache.ts'
import { ChatQuestions } from './chat-questions.ts'
import { mcpSubcommands } from './cli.ts'
import { readServers, type ServerConfig } from './config.ts'
import { probeServers, type ProbeResult } from './probe.ts'
import { registerServers } from './register.ts'
import { mcpService } from './session-servers.ts'
import { sharedManager } from './shared-manager.ts'
import { redactOfferedTools } from './tool-redaction.ts'

export default defineExtension({
  name: 'mcp',
  version: '1.0.0',
  description: 'MCP servers: bridged tools, resources and prompts, agent mcp commands, /reload-mcp, agent mcp serve',
  configKey: 'mcp_servers',
  // Entries are checked one by one (config.ts) so one bad server does not take the others down.
  config: { type: 'object', additionalProperties: { type: 'object' } },
  setup(api) {
    const home = api.settings.home
    let mode: RunMode | undefined
    // What this version registered, per server: a connect that finds anything else reloads.
    let registered = new Map<string, string>()
    const latest = new Map<string, string>()
    let settle: NodeJS.Timeout | undefined
    // Elicitation forms asked in messaging chats; the answers are the chat's next messages.
    const chat = new ChatQuestions({ services: api.services, log: api.log, timeoutMs: 300_000 })
    api.hooks.inboundMessage.tapPromise(async (message) => ((await chat.take(message)) ? { handled: true, reason: 'answer to an MCP question' } : undefined))
    const manager = sharedManager(api, {
      settings: api.settings,
      log: api.log,
      services: api.services,
      chat,
      clientVersion: agentVersion(),
      onSnapshot(server, snapshot) {
        latest.set(server, fingerprint(snapshot))
        void writeCache(home, server, snapshot).catch((error) => api.log.warn(`MCP server "${server}": caching its lists failed: ${errorMessage(error)}`))
        if (!mode || mode === 'command') return
        // A server often announces a change right after connecting (list-changed): the last word counts.
        clearTimeout(settle)
        settle = setTimeout(() => {
          if ([...latest].some(([name, print]) => registered.has(name) && registered.get(name) !== print)) reloadSoon()
        }, 500)
        settle.unref()
      },
    })
    const entries = readServers(api.settings)
    const configs = entries.flatMap((e) => (e.ok ? [e.config] : []))
    for (const e of entries) if (!e.ok) api.log.warn(`mcp_servers.${e.name} is ignored: ${e.reason}`)
    manager.configure(configs)
    // The last version let go shuts the manager down (shared-manager.ts): connects in progress are
    // cancelled and new ones refused, so nothing outlives the process's work.
    api.onDispose(() => {
      clearTimeout(settle)
      chat.cancelAll()
    })
    registered = registerServers(api, configs, () => manager)
    // Tool descriptions and schemas are the servers' text: known secrets in them never reach the model.
    redactOfferedTools(api)
    api.services.provide<McpService>(MCP_SERVICE, mcpService({ settings: api.settings, log: api.log, services: api.services, clientVersion: agentVersion() }))

    /** Re-reads config.yaml, (re)connects the enabled servers and refreshes the caches. */
    async function refresh(reconnect: boolean, only?: (c: ServerConfig) => boolean): Promise<{ results: ProbeResult[]; disabled: string[]; invalid: Array<{ name: string; reason: string }>; stale: boolean }> {
      const now = readServers(api.settings)
      const current = now.flatMap((e) => (e.ok ? [e.config] : []))
      if (reconnect) await manager.closeAll()
      manager.configure(current)
      const enabled = current.filter((c) => c.enabled)
      const results = await probeServers(manager, home, only ? enabled.filter(only) : enabled)
      const changedServers = results.some((r) => r.ok && fingerprint(r.snapshot) !== registered.get(r.name))
      const setChanged = enabled.length !== registered.size || enabled.some((c) => !registered.has(c.name)) || configChanged(configs, current)
      return {
        results,
        disabled: current.filter((c) => !c.enabled).map((c) => c.name),
        invalid: now.flatMap((e) => (e.ok ? [] : [{ name: e.name, reason: e.reason }])),
        stale: changedServers || setChanged,
      }
    }

    /** Asks the kernel for a fresh version of this extension, after the current call has returned (once). */
    let reloading = false
    const reloadSoon = () => {
      if (api.signal.aborted || reloading) return
      reloading = true
      setImmediate(() => {
        if (api.signal.aborted) return
        api.services
          .require<ExtensionsService>(EXTENSIONS_SERVICE)
          .reload(api.name)
          .then((r) => (r.ok ? api.log.info('MCP tools changed: reloaded') : api.log.error(`reloading MCP tools failed: ${r.reason}`)))
          .catch((error) => api.log.error(`reloading MCP tools failed: ${errorMessage(error)}`))
          .finally(() => (reloading = false))
      })
    }

    api.hooks.ready.tapPromise(async (ctx) => {
      mode = ctx.mode
      if (mode === 'command' || configs.every((c) => !c.enabled)) return
      // The gateway connects every server up front (failures show in its log at start). A chat
      // connects a server on its first use — only a server never seen is connected now, to learn
      // its tools. Never awaited: connecting must not hold up the start, and shutdown cancels it.
      const unseen = (c: ServerConfig) => mode === 'gateway' || !readCache(home, c.name)
      if (!configs.some((c) => c.enabled && unseen(c))) return
      void refresh(false, unseen)
        .then((outcome) => {
          for (const r of outcome.results) if (!r.ok && !api.signal.aborted) api.log.warn(`MCP server "${r.name}": ${r.error}`)
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
