// Connections to MCP servers through the official SDK (imported on first use: it is heavy). One
// connection per server, opened on demand (or on ready), with connect and call timeouts. A server
// that exits is reported (log, status) and restarted on the next call or by /reload-mcp.

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { AgentError, errorMessage, type Logger, type Settings } from 'agent/sdk'
import type { CachedTool } from './cache.ts'
import { expand, type ServerConfig } from './config.ts'

export type ServerState = 'idle' | 'connecting' | 'connected' | 'failed' | 'exited'

export interface ServerStatus {
  name: string
  state: ServerState
  error?: string
  tools?: number
  /** Times the connection was re-established after the server exited or failed. */
  restarts: number
  serverInfo?: { name: string; version: string }
}

interface Slot {
  config: ServerConfig
  state: ServerState
  client?: Client
  connecting?: Promise<Client>
  error?: string
  tools?: CachedTool[]
  restarts: number
  everConnected: boolean
  lastFailureAt?: number
  stderr: string
  closing: boolean
}

/** Calls to an exited server restart it at most this often. */
const RESTART_BACKOFF_MS = 2000
const STDERR_TAIL = 2000

export interface McpManagerOptions {
  settings: Settings
  log: Logger
  clientVersion: string
}

export class McpManager {
  private readonly slots = new Map<string, Slot>()
  private readonly options: McpManagerOptions

  constructor(options: McpManagerOptions) {
    this.options = options
  }

  /** Sets (or replaces) the server configurations this manager knows. */
  configure(configs: readonly ServerConfig[]): void {
    for (const config of configs) {
      const slot = this.slots.get(config.name)
      if (slot) slot.config = config
      else this.slots.set(config.name, { config, state: 'idle', restarts: 0, everConnected: false, stderr: '', closing: false })
    }
  }

  has(name: string): boolean {
    return this.slots.has(name)
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map((s) => ({
      name: s.config.name,
      state: s.state,
      ...(s.error ? { error: s.error } : {}),
      ...(s.tools ? { tools: s.tools.length } : {}),
      restarts: s.restarts,
      ...(s.client?.getServerVersion() ? { serverInfo: { name: s.client.getServerVersion()!.name, version: s.client.getServerVersion()!.version } } : {}),
    }))
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name)
    if (!slot) throw new AgentError('E_NOT_FOUND', `no MCP server named "${name}"`)
    return slot
  }

  /** The live client of a server, connecting (or restarting) it when needed. */
  async connect(name: string): Promise<Client> {
    const slot = this.slot(name)
    if (slot.state === 'connected' && slot.client) return slot.client
    if (slot.connecting) return slot.connecting
    if (!slot.config.enabled) throw new AgentError('E_STATE', `MCP server "${name}" is disabled (agent mcp configure ${name} --enable)`)
    if ((slot.state === 'exited' || slot.state === 'failed') && slot.lastFailureAt && Date.now() - slot.lastFailureAt < RESTART_BACKOFF_MS) {
      throw new AgentError('E_STATE', `MCP server "${name}" is not running (${slot.error ?? slot.state}); /reload-mcp restarts it`)
    }
    const restarting = slot.everConnected
    slot.state = 'connecting'
    slot.connecting = this.open(slot)
      .then((client) => {
        slot.client = client
        slot.state = 'connected'
        delete slot.error
        if (restarting) {
          slot.restarts++
          this.options.log.warn(`MCP server "${name}" restarted`)
        }
        slot.everConnected = true
        return client
      })
      .catch((error: unknown) => {
        slot.state = 'failed'
        slot.error = errorMessage(error)
        slot.lastFailureAt = Date.now()
        throw new AgentError('E_MCP', `MCP server "${name}" could not be started: ${slot.error}`, { cause: error })
      })
      .finally(() => {
        slot.connecting = undefined
      })
    return slot.connecting
  }

  private async open(slot: Slot): Promise<Client> {
    const { config } = slot
    const { settings } = this.options
    const [{ Client }] = await Promise.all([import('@modelcontextprotocol/sdk/client/index.js')])
    const client = new Client({ name: 'agent', version: this.options.clientVersion }, { capabilities: {} })
    let transport
    if (config.transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
      const env: Record<string, string> = {}
      for (const [key, value] of Object.entries(config.env)) env[key] = expand(value, settings, `mcp_servers.${config.name}.env.${key}`)
      const stdio = new StdioClientTransport({ command: config.command!, args: config.args, env, cwd: config.cwd, stderr: 'pipe' })
      slot.stderr = ''
      stdio.stderr?.on('data', (chunk: Buffer) => {
        slot.stderr = (slot.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL)
      })
      transport = stdio
    } else {
      const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
      const headers: Record<string, string> = {}
      for (const [key, value] of Object.entries(config.headers)) headers[key] = expand(value, settings, `mcp_servers.${config.name}.headers.${key}`)
      transport = new StreamableHTTPClientTransport(new URL(config.url!), { requestInit: { headers } })
    }
    client.onclose = () => this.closed(slot, client)
    client.onerror = (error) => this.options.log.debug(`MCP server "${config.name}": ${errorMessage(error)}`)
    try {
      await client.connect(transport, { timeout: config.connectTimeoutMs })
    } catch (error) {
      await client.close().catch(() => undefined)
      const tail = lastLine(slot.stderr)
      const reason = /timed out|timeout/i.test(errorMessage(error)) ? `no answer within ${config.connectTimeoutMs / 1000} s` : errorMessage(error)
      throw new Error(tail ? `${reason} (stderr: ${tail})` : reason, { cause: error })
    }
    return client
  }

  /** The connection ended: if we did not close it, the server died or dropped us. */
  private closed(slot: Slot, client: Client): void {
    if (slot.client !== client) return
    slot.client = undefined
    if (slot.closing) return
    slot.state = 'exited'
    slot.lastFailureAt = Date.now()
    const tail = lastLine(slot.stderr)
    slot.error = `the server ${slot.config.transport === 'stdio' ? 'exited' : 'closed the connection'}${tail ? ` (stderr: ${tail})` : ''}`
    this.options.log.warn(`MCP server "${slot.config.name}" stopped: ${slot.error}; it restarts on the next call or /reload-mcp`)
  }

  async listTools(name: string): Promise<CachedTool[]> {
    const client = await this.connect(name)
    const slot = this.slot(name)
    const tools: CachedTool[] = []
    let cursor: string | undefined
    for (let page = 0; page < 50; page++) {
      const result = await client.listTools(cursor ? { cursor } : undefined, { timeout: slot.config.connectTimeoutMs })
      for (const t of result.tools) tools.push({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown> })
      cursor = result.nextCursor
      if (!cursor) break
    }
    slot.tools = tools
    return tools
  }

  async call(name: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<unknown> {
    const client = await this.connect(name)
    const { config } = this.slot(name)
    try {
      return await client.callTool({ name: tool, arguments: args }, undefined, { timeout: config.timeoutMs, signal })
    } catch (error) {
      const message = errorMessage(error)
      if (/timed out|timeout/i.test(message) && !signal?.aborted) throw new AgentError('E_TIMEOUT', `MCP tool "${tool}" on server "${name}" timed out after ${config.timeoutMs / 1000} s`, { cause: error })
      const slot = this.slot(name)
      if (slot.state === 'exited') throw new AgentError('E_MCP', `MCP server "${name}" stopped during the call: ${slot.error}`, { cause: error })
      throw new AgentError('E_MCP', `MCP tool "${tool}" on server "${name}" failed: ${message}`, { cause: error })
    }
  }

  async close(name: string): Promise<void> {
    const slot = this.slots.get(name)
    if (!slot) return
    await slot.connecting?.catch(() => undefined)
    const client = slot.client
    slot.closing = true
    try {
      await client?.close()
    } catch (error) {
      this.options.log.debug(`closing MCP server "${name}": ${errorMessage(error)}`)
    } finally {
      slot.client = undefined
      slot.closing = false
      slot.everConnected = false
      slot.state = 'idle'
      delete slot.error
      delete slot.lastFailureAt
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.slots.keys()].map((name) => this.close(name)))
  }
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean)
  return (lines[lines.length - 1] ?? '').slice(0, 300)
}
