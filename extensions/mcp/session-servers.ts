// The MCP service (sdk/mcp.ts): servers a surface brings for one conversation (an ACP editor's
// `mcpServers`), each session on its own manager, so they never mix with the configured servers,
// their caches or /reload-mcp. Specs are checked like config entries, except that `${VAR}`
// references are refused: values come from the editor, and must not pull the agent's secrets out
// of .env.

import { errorMessage, UsageError, type Logger, type McpServerSpec, type McpService, type McpSessionServers, type Services, type Settings } from 'agent/sdk'
import { bridgeTool } from './bridge.ts'
import { parseServer, type ServerConfig } from './config.ts'
import { McpManager } from './connection.ts'

const REFERENCE = /\$\{/

function configOf(spec: McpServerSpec): ServerConfig {
  const values = [...Object.values(spec.env ?? {}), ...Object.values(spec.headers ?? {})]
  if (values.some((v) => REFERENCE.test(v))) throw new UsageError(`MCP server "${spec.name}": \${…} references are not accepted from an editor`)
  try {
    return parseServer(spec.name, { command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd, url: spec.url, headers: spec.headers })
  } catch (error) {
    throw new UsageError(`MCP server "${spec.name}": ${errorMessage(error)}`)
  }
}

export function mcpService(deps: { settings: Settings; log: Logger; services: Pick<Services, 'get'>; clientVersion: string }): McpService {
  return {
    async connectSession(servers) {
      const configs = servers.map(configOf)
      const names = new Set<string>()
      for (const config of configs) {
        if (names.has(config.name)) throw new UsageError(`MCP server "${config.name}" is given twice`)
        names.add(config.name)
      }
      const manager = new McpManager({ settings: deps.settings, log: deps.log, services: deps.services, clientVersion: deps.clientVersion })
      manager.configure(configs)
      const found = await Promise.all(
        configs.map(async (config) => {
          try {
            const snapshot = await manager.snapshot(config.name)
            return { tools: snapshot.tools.map((tool) => bridgeTool(config.name, tool, () => manager)) }
          } catch (error) {
            return { failure: { name: config.name, error: errorMessage(error) } }
          }
        }),
      )
      const session: McpSessionServers = {
        tools: found.flatMap((f) => f.tools ?? []),
        failures: found.flatMap((f) => (f.failure ? [f.failure] : [])),
        close: () => manager.shutdown(),
      }
      return session
    },
  }
}
