// `agent mcp login <name>`: the OAuth authorization-code flow for a remote server. A loopback
// callback server (127.0.0.1, a free port) receives the code; the user opens the printed address;
// the SDK exchanges the code (PKCE) and the tokens are stored by oauth.ts. Bounded by a timeout.

import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AgentError, errorMessage, type Settings } from 'agent/sdk'
import type { ServerConfig } from './config.ts'
import { StoredOAuthProvider } from './oauth.ts'
import { sseTransport, streamableTransport } from './transport.ts'

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>agent</title><p>${text}</p>\n`

/** Runs the flow; resolves 'authorized' (tokens stored) or 'already' (the server let us in as we are). */
export async function login(settings: Settings, config: ServerConfig, show: (line: string) => void, timeoutMs: number, clientVersion: string): Promise<'authorized' | 'already'> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | undefined
  const code = new Promise<string>((resolve, reject) => (settle = { resolve, reject }))
  code.catch(() => undefined)
  const callback = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1')
    if (url.pathname !== '/callback') return void res.writeHead(404).end()
    const error = url.searchParams.get('error')
    const value = url.searchParams.get('code')
    res.writeHead(error || !value ? 400 : 200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(PAGE(error || !value ? 'Authorization failed; see the terminal.' : 'Authorized. You can close this window.'))
    if (error || !value) settle!.reject(new AgentError('E_AUTH', `the authorization server answered: ${(error ?? 'no code').slice(0, 200)}`))
    else settle!.resolve(value)
  })
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve))
  const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`
  const provider = new StoredOAuthProvider(settings.home, config.name, config.url!, { redirectUrl, open: (url) => show(`Open this address to authorize agent with "${config.name}":\n${url.href}`) })
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js')
  const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js')
  const transport = () => (config.transport === 'sse' ? sseTransport : streamableTransport)(config, settings, { onStderr: () => undefined, authProvider: provider })
  let timer: NodeJS.Timeout | undefined
  try {
    const client = new Client({ name: 'agent', version: clientVersion })
    try {
      await client.connect(await transport(), { timeout: config.connectTimeoutMs })
      return 'already'
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw new AgentError('E_AUTH', `MCP server "${config.name}": ${errorMessage(error)}`, { cause: error })
    } finally {
      await client.close().catch(() => undefined)
    }
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new AgentError('E_TIMEOUT', `no authorization within ${Math.round(timeoutMs / 1000)} s`)), timeoutMs)))
    const received = await Promise.race([code, timeout])
    // The SDK exchanges the code (with the PKCE verifier) and saves the tokens through the provider.
    await ((await transport()) as unknown as { finishAuth(code: string): Promise<void> }).finishAuth(received)
    return 'authorized'
  } finally {
    clearTimeout(timer)
    callback.closeAllConnections()
    await new Promise((resolve) => callback.close(resolve))
  }
}
