// The transport of one connection attempt: stdio (a child process), Streamable HTTP, or legacy
// HTTP+SSE — tried after Streamable HTTP answers 400/404/405, the SDK's documented fallback, or
// chosen with `transport: sse`. `${VAR}` references are expanded here, at connect time.

import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { Settings } from 'agent/sdk'
import { expand, type ServerConfig } from './config.ts'

export interface TransportHooks {
  /** Lines a stdio server writes on stderr. */
  onStderr(chunk: string): void
  authProvider?: OAuthClientProvider
}

export async function stdioTransport(config: ServerConfig, settings: Settings, hooks: TransportHooks): Promise<Transport> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js')
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(config.env)) env[key] = expand(value, settings, `mcp_servers.${config.name}.env.${key}`)
  const stdio = new StdioClientTransport({ command: config.command!, args: config.args, env, cwd: config.cwd, stderr: 'pipe' })
  stdio.stderr?.on('data', (chunk: Buffer) => hooks.onStderr(chunk.toString('utf8')))
  return stdio
}

function headersOf(config: ServerConfig, settings: Settings): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const [key, value] of Object.entries(config.headers)) headers[key] = expand(value, settings, `mcp_servers.${config.name}.headers.${key}`)
  return headers
}

export async function streamableTransport(config: ServerConfig, settings: Settings, hooks: TransportHooks): Promise<Transport> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js')
  return new StreamableHTTPClientTransport(new URL(config.url!), {
    requestInit: { headers: headersOf(config, settings) },
    // A dropped stream is treated as a dead server by the manager (the call fails at once and the
    // next one reconnects); resuming it would hold the call through the retries.
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
    ...(hooks.authProvider ? { authProvider: hooks.authProvider } : {}),
  })
}

export async function sseTransport(config: ServerConfig, settings: Settings, hooks: TransportHooks): Promise<Transport> {
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js')
  const headers = headersOf(config, settings)
  return new SSEClientTransport(new URL(config.url!), {
    requestInit: { headers },
    eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
    ...(hooks.authProvider ? { authProvider: hooks.authProvider } : {}),
  })
}

/** Whether a failed Streamable HTTP connect means "try the legacy SSE transport" (SDK pattern). */
export function wantsSseFallback(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return code === 400 || code === 404 || code === 405
}

/** Ends an HTTP session politely (DELETE with its session id), bounded: a dead server must not hold close. */
export async function terminateSession(transport: Transport | undefined, timeoutMs = 2000): Promise<void> {
  const t = transport as { terminateSession?: () => Promise<void>; sessionId?: string } | undefined
  if (!t?.terminateSession || !t.sessionId) return
  let timer: NodeJS.Timeout | undefined
  await Promise.race([t.terminateSession().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))])
  clearTimeout(timer)
}
