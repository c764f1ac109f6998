// The MCP service (`services.get<McpService>('mcp')`, extension `mcp`): MCP servers a surface brings
// for one conversation (an ACP editor's `mcpServers`), connected with the same client as the
// configured ones (stdio, Streamable HTTP), their tools handed back as tool definitions the surface
// offers to its runs (`RunRequest.runTools`). Nothing is registered or cached; `close` ends them.

import type { ToolDefinition } from './types.ts'

export const MCP_SERVICE = 'mcp'

export interface McpServerSpec {
  /** 1-32 letters, digits, `_` or `-`; the tools are `mcp__<name>__<tool>`. */
  name: string
  /** stdio: the program, its arguments, environment and folder. */
  command?: string
  args?: string[]
  env?: Record<string, string>
  cwd?: string
  /** Streamable HTTP: the endpoint and headers. */
  url?: string
  headers?: Record<string, string>
}

export interface McpSessionServers {
  /** The tools of every server that connected. */
  tools: ToolDefinition[]
  /** Servers that did not connect (within their connect timeout), and why. */
  failures: Array<{ name: string; error: string }>
  /** Ends every server (bounded); later calls of the tools fail. */
  close(): Promise<void>
}

export interface McpService {
  /** Connects these servers (in parallel, each within 30 s) and lists their tools. Throws on an invalid spec. */
  connectSession(servers: readonly McpServerSpec[]): Promise<McpSessionServers>
}
