// What setup registers for the enabled servers, from their cached snapshots: bridged tools (filtered,
// clashes skipped), the resource tools of servers with resources, prompt slash commands, and the
// servers' instructions (layered onto the system prompt of requests that offer their tools).

import type { ExtensionApi } from 'agent/sdk'
import { bridgedName, bridgeTool } from './bridge.ts'
import { fingerprint, readCache, type ServerSnapshot } from './cache.ts'
import { toolAllowed, type ServerConfig } from './config.ts'
import type { McpManager } from './connection.ts'
import { promptCommand } from './prompts.ts'
import { resourceTools } from './resources.ts'

/** Registers everything cached for these servers; returns each server's registered fingerprint. */
export function registerServers(api: ExtensionApi, configs: readonly ServerConfig[], manager: () => McpManager): Map<string, string> {
  const registered = new Map<string, string>()
  const instructions = new Map<string, string>()
  const taken = new Set<string>()
  const skip = (what: string, server: string) => api.log.warn(`MCP ${what} of "${server}" is skipped: its name clashes with another one`)
  for (const config of configs.filter((c) => c.enabled)) {
    const cached: ServerSnapshot = readCache(api.settings.home, config.name) ?? { tools: [] }
    registered.set(config.name, fingerprint(cached))
    const tools = cached.tools.filter((t) => toolAllowed(config, t.name)).map((tool) => bridgeTool(config.name, tool, manager))
    if (cached.resources) tools.push(...resourceTools(config.name, manager).filter((t) => toolAllowed(config, t.name.slice(bridgedName(config.name, '').length))))
    for (const tool of tools) {
      if (taken.has(tool.name)) skip(`tool "${tool.name}"`, config.name)
      else {
        taken.add(tool.name)
        api.tools.register(tool)
      }
    }
    for (const prompt of cached.prompts ?? []) {
      const command = promptCommand(config.name, prompt, manager)
      const holder = api.commands.entries().find((e) => e.value.name === command.name || e.value.aliases?.includes(command.name))
      if (taken.has(`/${command.name}`) || (holder && holder.owner !== api.name)) skip(`prompt "${prompt.name}"`, config.name)
      else {
        taken.add(`/${command.name}`)
        api.commands.register(command)
      }
    }
    if (cached.instructions) instructions.set(config.name, cached.instructions)
  }
  if (instructions.size) {
    api.hooks.beforeModelRequest.tap((request) => {
      const offered = [...instructions].filter(([server]) => request.tools?.some((t) => t.name.startsWith(bridgedName(server, ''))))
      if (!offered.length) return request
      const text = offered.map(([server, body]) => `Instructions of the MCP server "${server}" (its tools are mcp__${server}__*):\n${body}`).join('\n\n')
      const [first, ...rest] = request.messages
      const messages = first?.role === 'system' && typeof first.content === 'string' ? [{ ...first, content: `${first.content}\n\n${text}` }, ...rest] : [{ role: 'system' as const, content: text }, ...request.messages]
      return { ...request, messages }
    })
  }
  return registered
}
