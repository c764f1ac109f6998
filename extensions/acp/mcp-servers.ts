// The editor's `mcpServers` (session/new, load, resume): connected for that session through the MCP
// service (sdk/mcp.ts, extension `mcp`) and offered to its runs as run tools. stdio and Streamable
// HTTP are accepted (initialize declares `http: true`); SSE entries are refused with -32602, as the
// capabilities say. A server that does not connect is logged and left out; the others still serve.
// A tool whose name a configured server's tool already has is left out too.

import { MCP_SERVICE, type Logger, type McpServerSpec, type McpService, type Services, type ToolDefinition } from 'agent/sdk'
import type { McpServer } from '@agentclientprotocol/sdk/unstable'
import { badParams } from './errors.ts'
import type { LiveSession } from './live-sessions.ts'

/** MCP server names are 1-32 of [A-Za-z0-9_-]; an editor's may be any text. */
const nameOf = (name: string) => name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^[_-]+/, '').slice(0, 32) || 'server'

const pairs = (list: Array<{ name: string; value: string }> | undefined) => Object.fromEntries((list ?? []).map((p) => [p.name, p.value]))

export function specsOf(servers: readonly McpServer[] | undefined): McpServerSpec[] {
  return (servers ?? []).map((server) => {
    if ('type' in server && server.type === 'sse') throw badParams(`MCP server "${server.name}": SSE is not supported (mcpCapabilities.sse is false); use Streamable HTTP`)
    if ('type' in server && server.type === 'http') return { name: nameOf(server.name), url: server.url, headers: pairs(server.headers) }
    const stdio = server as Extract<McpServer, { command: string }>
    return { name: nameOf(stdio.name), command: stdio.command, args: stdio.args ?? [], env: pairs(stdio.env) }
  })
}

/** Connects the session's servers (replacing any it had); their tools become `session.mcp`. */
export async function attachMcpServers(session: LiveSession, servers: readonly McpServer[] | undefined, deps: { services: Services; registered: (name: string) => boolean; log: Logger }): Promise<void> {
  const specs = specsOf(servers)
  await detachMcpServers(session)
  if (specs.length === 0) return
  const service = deps.services.get<McpService>(MCP_SERVICE)
  if (!service) throw badParams('MCP servers cannot be used: the mcp extension is not loaded')
  let connected
  try {
    connected = await service.connectSession(specs)
  } catch (error) {
    throw badParams(error instanceof Error ? error.message : String(error))
  }
  for (const failure of connected.failures) deps.log.warn(`MCP server "${failure.name}" of the editor did not connect: ${failure.error}`)
  const tools: ToolDefinition[] = []
  for (const tool of connected.tools) {
    if (deps.registered(tool.name)) deps.log.warn(`the editor's MCP tool "${tool.name}" is left out: a configured server has a tool of that name`)
    else tools.push(tool)
  }
  session.mcp = { tools, close: connected.close }
}

export async function detachMcpServers(session: LiveSession): Promise<void> {
  const mcp = session.mcp
  session.mcp = undefined
  await mcp?.close().catch(() => undefined)
}
