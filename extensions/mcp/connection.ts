// Connections to MCP servers through the official SDK (imported on first use: it is heavy). One
// connection per server, opened on demand, every step bounded (connect_timeout, timeout) and
// cancelled by close/shutdown. A server that exits or an HTTP stream that drops is reported (log,
// status) and the next call reconnects (a new HTTP session; stdio restarts at most every 2 s).

import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { AgentError, errorMessage, type Logger, type Services, type Settings, type ToolSession } from 'agent/sdk'
import type { ChatQuestions } from './chat-questions.ts'
import type { CachedPrompt, CachedTool, ServerSnapshot } from './cache.ts'
import { CLIENT_CAPABILITIES, installHandlers } from './client-handlers.ts'
import type { ServerConfig } from './config.ts'
import { StoredOAuthProvider } from './oauth.ts'
import { sseTransport, stdioTransport, streamableTransport, terminateSession, wantsSseFallback, type TransportHooks } from './transport.ts'

export type ServerState = 'idle' | 'connecting' | 'connected' | 'failed' | 'exited'

export interface ServerStatus {
  name: string
  state: ServerState
  error?: string
  tools?: number
  /** Times the connection was re-established after the server exited or failed. */
  restarts: number
  serverInfo?: { name: string; version: string }
  /** The transport in use: `sse` when the server only spoke legacy HTTP+SSE. */
  transport?: 'stdio' | 'http' | 'sse'
}

interface Slot {
  config: ServerConfig
  state: ServerState
  client?: Client
  transport?: Transport
  transportKind?: 'stdio' | 'http' | 'sse'
  connecting?: Promise<Client>
  /** Aborts the connect in progress (close, shutdown). */
  abort?: AbortController
  error?: string
  snapshot?: ServerSnapshot
  restarts: number
  everConnected: boolean
  lastFailureAt?: number
  stderr: string
  closing: boolean
  /** Sessions of the calls running now: a server's requests (roots, sampling …) are answered for them. */
  active: ToolSession[]
  samplingGranted: Set<string>
}

/** Calls to an exited stdio server restart it at most this often. */
const RESTART_BACKOFF_MS = 2000
const STDERR_TAIL = 2000
/** Transport errors that mean the HTTP server is gone (the stream broke; no resumption is tried). */
const STREAM_LOST = /SSE stream disconnected|Failed to reconnect|Maximum reconnection attempts|fetch failed|ECONNREFUSED|ECONNRESET|socket hang up|terminated/i

export interface McpManagerOptions {
  settings: Settings
  log: Logger
  services: Pick<Services, 'get'>
  clientVersion: string
  /** Asks elicitation forms in messaging chats. */
  chat?: ChatQuestions
  /** Called with what each connect (or a list-changed notification) found. */
  onSnapshot?(server: string, snapshot: ServerSnapshot): void
}

export interface CallOptions {
  signal?: AbortSignal
  session?: ToolSession
}

export class McpManager {
  private readonly slots = new Map<string, Slot>()
  private readonly options: McpManagerOptions
  /** Set by shutdown: nothing connects any more. */
  private stopped = false
  /** Bumped when the manager's shape changes: a reloaded extension adopts only a manager of its own version. */
  static readonly VERSION = 1

  constructor(options: McpManagerOptions) {
    this.options = options
  }

  /** Points the callbacks at another version of the extension (a reload that keeps the connections). */
  bind(callbacks: Pick<McpManagerOptions, 'onSnapshot' | 'chat'>): void {
    this.options.onSnapshot = callbacks.onSnapshot
    this.options.chat = callbacks.chat
  }

  /**
   * Sets (or replaces) the server configurations this manager knows. A server whose connection
   * settings changed, or that is gone or disabled, is closed: its next use connects anew.
   */
  configure(configs: readonly ServerConfig[]): void {
    const connection = (c: ServerConfig) => JSON.stringify([c.transport, c.command, c.args, c.env, c.cwd, c.url, c.headers, c.enabled])
    for (const config of configs) {
      const slot = this.slots.get(config.name)
      if (!slot) this.slots.set(config.name, { config, state: 'idle', restarts: 0, everConnected: false, stderr: '', closing: false, active: [], samplingGranted: new Set() })
      else {
        const changed = connection(slot.config) !== connection(config)
        slot.config = config
        if (changed && slot.state !== 'idle') void this.close(config.name)
      }
    }
    for (const name of this.slots.keys()) if (!configs.some((c) => c.name === name)) void this.close(name)
  }

  has(name: string): boolean {
    return this.slots.has(name)
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map((s) => {
      const info = s.client?.getServerVersion()
      return {
        name: s.config.name,
        state: s.state,
        ...(s.error ? { error: s.error } : {}),
        ...(s.snapshot ? { tools: s.snapshot.tools.length } : {}),
        restarts: s.restarts,
        ...(info ? { serverInfo: { name: info.name, version: info.version } } : {}),
        ...(s.transportKind ? { transport: s.transportKind } : {}),
      }
    })
  }

  private slot(name: string): Slot {
    const slot = this.slots.get(name)
    if (!slot) throw new AgentError('E_NOT_FOUND', `no MCP server named "${name}"`)
    return slot
  }

  /** The live client of a server, connecting (or restarting) it when needed. */
  async connect(name: string): Promise<Client> {
    const slot = this.slot(name)
    if (this.stopped) throw new AgentError('E_STATE', `MCP server "${name}" is not started: the agent is shutting down`)
    if (slot.state === 'connected' && slot.client) return slot.client
    if (slot.connecting) return slot.connecting
    if (!slot.config.enabled) throw new AgentError('E_STATE', `MCP server "${name}" is disabled (agent mcp configure ${name} --enable)`)
    const backoff = slot.config.transport === 'stdio' && (slot.state === 'exited' || slot.state === 'failed') && slot.lastFailureAt && Date.now() - slot.lastFailureAt < RESTART_BACKOFF_MS
    if (backoff) throw new AgentError('E_STATE', `MCP server "${name}" is not running (${slot.error ?? slot.state}); /reload-mcp restarts it`)
    const restarting = slot.everConnected
    slot.state = 'connecting'
    const abort = new AbortController()
    slot.abort = abort
    slot.connecting = this.open(slot, abort.signal)
      .then((client) => {
        slot.client = client
        slot.state = 'connected'
        delete slot.error
        if (restarting) {
          slot.restarts++
          this.options.log.warn(`MCP server "${name}" ${slot.config.transport === 'stdio' ? 'restarted' : 'reconnected (new session)'}`)
        }
        slot.everConnected = true
        return client
      })
      .catch((error: unknown) => {
        slot.state = 'failed'
        slot.error = abort.signal.aborted ? 'connecting was cancelled' : errorMessage(error)
        slot.lastFailureAt = Date.now()
        throw new AgentError('E_MCP', `MCP server "${name}" could not be started: ${slot.error}`, { cause: error })
      })
      .finally(() => {
        slot.connecting = undefined
        if (slot.abort === abort) slot.abort = undefined
      })
    return slot.connecting
  }

  /** Connects, answers the server's requests, and reads what it offers; bounded and abortable. */
  private async open(slot: Slot, signal: AbortSignal): Promise<Client> {
    const { config } = slot
    const hooks: TransportHooks = {
      onStderr: (chunk) => void (slot.stderr = (slot.stderr + chunk).slice(-STDERR_TAIL)),
      // A remote server without an Authorization header of ours may ask for OAuth (agent mcp login).
      ...(config.transport !== 'stdio' && !Object.keys(config.headers).some((h) => h.toLowerCase() === 'authorization') ? { authProvider: new StoredOAuthProvider(this.options.settings.home, config.name, config.url!) } : {}),
    }
    slot.stderr = ''
    const kinds: Array<'stdio' | 'http' | 'sse'> = config.transport === 'stdio' ? ['stdio'] : config.transport === 'sse' ? ['sse'] : ['http', 'sse']
    for (const [index, kind] of kinds.entries()) {
      signal.throwIfAborted()
      const client = await this.newClient(slot)
      const transport = await (kind === 'stdio' ? stdioTransport : kind === 'sse' ? sseTransport : streamableTransport)(config, this.options.settings, hooks)
      try {
        signal.throwIfAborted()
        await client.connect(transport, { timeout: config.connectTimeoutMs, signal })
        client.onclose = () => this.closed(slot, client)
        client.onerror = (error) => this.transportError(slot, client, error)
        slot.transport = transport
        slot.transportKind = kind
        slot.snapshot = await this.read(client, config, signal)
        this.options.onSnapshot?.(config.name, slot.snapshot)
        return client
      } catch (error) {
        await client.close().catch(() => undefined)
        if (!signal.aborted && kind === 'http' && index < kinds.length - 1 && wantsSseFallback(error)) continue
        const tail = lastLine(slot.stderr)
        const reason = /timed out|timeout/i.test(errorMessage(error)) ? `no answer within ${config.connectTimeoutMs / 1000} s` : errorMessage(error)
        throw new Error(tail ? `${reason} (stderr: ${tail})` : reason, { cause: error })
      }
    }
    throw new Error('no transport to try')
  }

  private async newClient(slot: Slot): Promise<Client> {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
    const refresh = { autoRefresh: false, debounceMs: 100, onChanged: () => void this.refresh(slot.config.name) }
    const client = new Client({ name: 'agent', version: this.options.clientVersion }, { capabilities: CLIENT_CAPABILITIES, listChanged: { tools: refresh, prompts: refresh, resources: refresh } })
    await installHandlers(client, {
      server: slot.config.name,
      settings: this.options.settings,
      services: this.options.services,
      log: this.options.log,
      activeSession: () => slot.active.at(-1),
      samplingGranted: slot.samplingGranted,
      chat: () => this.options.chat,
    })
    return client
  }

  /** Tools (all pages), prompts, whether there are resources, and the server's instructions. */
  private async read(client: Client, config: ServerConfig, signal?: AbortSignal): Promise<ServerSnapshot> {
    const options = { timeout: config.connectTimeoutMs, signal }
    const caps = client.getServerCapabilities() ?? {}
    const tools: CachedTool[] = []
    if (caps.tools) {
      let cursor: string | undefined
      for (let page = 0; page < 50; page++) {
        const result = await client.listTools(cursor ? { cursor } : undefined, options)
        for (const t of result.tools) {
          const taskSupport = t.execution?.taskSupport
          tools.push({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: t.inputSchema as Record<string, unknown>, ...(taskSupport === 'required' ? { taskSupport } : {}) })
        }
        cursor = result.nextCursor
        if (!cursor) break
      }
    }
    const prompts: CachedPrompt[] = []
    if (caps.prompts) {
      const result = await client.listPrompts(undefined, options)
      for (const p of result.prompts) prompts.push({ name: p.name, ...(p.description ? { description: p.description } : {}), ...(p.arguments?.length ? { arguments: p.arguments.map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), ...(a.required ? { required: true } : {}) })) } : {}) })
    }
    const instructions = client.getInstructions()
    return { tools, ...(prompts.length ? { prompts } : {}), ...(caps.resources ? { resources: true } : {}), ...(instructions ? { instructions: instructions.slice(0, 8000) } : {}) }
  }

  /** A list-changed notification: read the lists again and report them. */
  private async refresh(name: string): Promise<void> {
    const slot = this.slots.get(name)
    if (!slot?.client || this.stopped) return
    try {
      slot.snapshot = await this.read(slot.client, slot.config)
      this.options.onSnapshot?.(name, slot.snapshot)
    } catch (error) {
      this.options.log.warn(`MCP server "${name}": refreshing its lists failed: ${errorMessage(error)}`)
    }
  }

  /** A transport error: a broken HTTP stream means the server is gone, so the connection is dropped. */
  private transportError(slot: Slot, client: Client, error: Error): void {
    this.options.log.debug(`MCP server "${slot.config.name}": ${errorMessage(error)}`)
    if (slot.config.transport !== 'stdio' && slot.client === client && STREAM_LOST.test(errorMessage(error))) void client.close().catch(() => undefined)
  }

  /** The connection ended: if we did not close it, the server died or dropped us. */
  private closed(slot: Slot, client: Client): void {
    if (slot.client !== client) return
    slot.client = undefined
    slot.transport = undefined
    if (slot.closing) return
    slot.state = 'exited'
    slot.lastFailureAt = Date.now()
    const tail = lastLine(slot.stderr)
    slot.error = `the server ${slot.config.transport === 'stdio' ? 'exited' : 'closed the connection'}${tail ? ` (stderr: ${tail})` : ''}`
    this.options.log.warn(`MCP server "${slot.config.name}" stopped: ${slot.error}; it ${slot.config.transport === 'stdio' ? 'restarts' : 'reconnects'} on the next call or /reload-mcp`)
  }

  /** Connects when needed and returns what the server offers (fresh: read the lists again). */
  async snapshot(name: string, fresh = false): Promise<ServerSnapshot> {
    const wasConnected = this.slot(name).state === 'connected'
    const client = await this.connect(name)
    const slot = this.slot(name)
    if (fresh && wasConnected) slot.snapshot = await this.read(client, slot.config)
    return slot.snapshot!
  }

  /** The client for a call: a live one, running `use` with the call's session registered. */
  async use<T>(name: string, session: ToolSession | undefined, use: (client: Client, slot: { config: ServerConfig; snapshot?: ServerSnapshot }) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const client = await this.connect(name)
      const slot = this.slot(name)
      if (session) slot.active.push(session)
      try {
        return await use(client, slot)
      } catch (error) {
        // A restarted HTTP server does not know our session: the request was not run, so a new
        // session and one retry are safe.
        if (attempt === 0 && slot.config.transport !== 'stdio' && sessionLost(error) && slot.client === client) {
          await client.close().catch(() => undefined)
          continue
        }
        // A broken connection (not a JSON-RPC error the server answered with) is dropped: the next call reconnects.
        if (slot.config.transport !== 'stdio' && slot.client === client && !answeredError(error) && STREAM_LOST.test(errorMessage(error))) await client.close().catch(() => undefined)
        throw error
      } finally {
        if (session) slot.active.splice(slot.active.lastIndexOf(session), 1)
      }
    }
  }

  async call(name: string, tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<unknown> {
    const { signal, session } = options
    const timeoutMs = this.slot(name).config.timeoutMs
    try {
      return await this.use(name, session, async (client, slot) => {
        const onprogress = (p: { progress: number; total?: number; message?: string }) => session?.progress?.(`${p.message ? `${p.message} ` : ''}(${p.progress}${p.total ? `/${p.total}` : ''})`)
        const requestOptions = { timeout: timeoutMs, signal, onprogress }
        if (slot.snapshot?.tools.find((t) => t.name === tool)?.taskSupport !== 'required') return client.callTool({ name: tool, arguments: args }, undefined, requestOptions)
        // A tool that must run as a task: the SDK creates it, polls it and hands back its result.
        for await (const message of client.experimental.tasks.callToolStream({ name: tool, arguments: args }, undefined, requestOptions)) {
          if (message.type === 'taskStatus' && message.task.statusMessage) session?.progress?.(`${message.task.status}: ${message.task.statusMessage}`)
          if (message.type === 'result') return message.result
          if (message.type === 'error') throw message.error
        }
        throw new Error('the task ended without a result')
      })
    } catch (error) {
      // Not connected (disabled, restarting, shutting down, could not start): said as it is.
      if (AgentError.isInstance(error)) throw error
      const message = errorMessage(error)
      if (/timed out|timeout/i.test(message) && !signal?.aborted) throw new AgentError('E_TIMEOUT', `MCP tool "${tool}" on server "${name}" timed out after ${timeoutMs / 1000} s`, { cause: error })
      const slot = this.slot(name)
      if (slot.state === 'exited') throw new AgentError('E_MCP', `MCP server "${name}" stopped during the call: ${slot.error}`, { cause: error })
      throw new AgentError('E_MCP', `MCP tool "${tool}" on server "${name}" failed: ${message}`, { cause: error })
    }
  }

  async close(name: string): Promise<void> {
    const slot = this.slots.get(name)
    if (!slot) return
    slot.closing = true
    slot.abort?.abort()
    await slot.connecting?.catch(() => undefined)
    const client = slot.client
    try {
      await terminateSession(slot.transport)
      await client?.close()
    } catch (error) {
      this.options.log.debug(`closing MCP server "${name}": ${errorMessage(error)}`)
    } finally {
      slot.client = undefined
      slot.transport = undefined
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

  /** Closes everything and refuses to connect again (the extension is going away). */
  async shutdown(): Promise<void> {
    this.stopped = true
    await this.closeAll()
  }
}

/** An error the server sent as a JSON-RPC error (negative code), as opposed to a transport failure. */
function answeredError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'number' && code < 0
}

/** The server no longer knows our HTTP session (it restarted): 404, or 400 about the session id. */
function sessionLost(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === 404 || (code === 400 && /session/i.test(errorMessage(error)))
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n').filter(Boolean)
  return (lines[lines.length - 1] ?? '').slice(0, 300)
}
