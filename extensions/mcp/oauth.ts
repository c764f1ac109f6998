// OAuth for remote MCP servers through the SDK's auth support: this is the OAuthClientProvider it
// drives (discovery, dynamic client registration, PKCE, token refresh are the SDK's). Client
// registration and tokens are kept per server in <agent_home>/mcp/auth/<server>.json (mode 0600),
// bound to the server's URL: a server of that name elsewhere (an editor's, a changed url) gets none.
// Only `agent mcp login` can send the user to the authorization page; a connect that would need it
// fails saying to run that command.

import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js'
import writeFileAtomic from 'write-file-atomic'
import { AgentError } from 'agent/sdk'

interface Stored {
  /** The server these credentials are for: another URL under the same name gets none of them. */
  server_url?: string
  redirect_uri?: string
  client?: OAuthClientInformationMixed
  tokens?: OAuthTokens
  code_verifier?: string
}

const authFile = (home: string, server: string) => join(home, 'mcp', 'auth', `${server}.json`)

export function readAuth(home: string, server: string): Stored {
  try {
    return JSON.parse(readFileSync(authFile(home, server), 'utf8')) as Stored
  } catch {
    return {}
  }
}

export function removeAuth(home: string, server: string): void {
  rmSync(authFile(home, server), { force: true })
}

export class StoredOAuthProvider implements OAuthClientProvider {
  private stored: Stored

  /** `login`: the redirect URL of `agent mcp login`'s loopback callback and what to do with the authorization URL. */
  constructor(
    private readonly home: string,
    private readonly server: string,
    private readonly serverUrl: string,
    private readonly login?: { redirectUrl: string; open(url: URL): void },
  ) {
    const stored = readAuth(home, server)
    this.stored = stored.server_url === serverUrl ? stored : {}
    if (login && this.stored.redirect_uri !== login.redirectUrl) {
      // A new callback address: the client registered for the old one cannot use it.
      this.stored = { redirect_uri: login.redirectUrl }
    }
  }

  get redirectUrl(): string {
    // Without one the SDK would try a non-interactive grant; the placeholder only ever reaches
    // redirectToAuthorization, which refuses outside `agent mcp login`.
    return this.login?.redirectUrl ?? this.stored.redirect_uri ?? 'http://127.0.0.1/callback'
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'agent',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.stored.client
  }

  async saveClientInformation(client: OAuthClientInformationMixed): Promise<void> {
    await this.save({ client })
  }

  tokens(): OAuthTokens | undefined {
    return this.stored.tokens
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    await this.save({ tokens })
  }

  redirectToAuthorization(url: URL): void {
    if (!this.login) throw new AgentError('E_AUTH', `MCP server "${this.server}" needs authorization: run agent mcp login ${this.server}`)
    this.login.open(url)
  }

  async saveCodeVerifier(verifier: string): Promise<void> {
    await this.save({ code_verifier: verifier })
  }

  codeVerifier(): string {
    if (!this.stored.code_verifier) throw new AgentError('E_AUTH', 'no login in progress (agent mcp login)')
    return this.stored.code_verifier
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const next = { ...this.stored }
    if (scope === 'all' || scope === 'client') delete next.client
    if (scope === 'all' || scope === 'tokens') delete next.tokens
    if (scope === 'all' || scope === 'verifier') delete next.code_verifier
    this.stored = next
    await this.save({})
  }

  private async save(patch: Partial<Stored>): Promise<void> {
    this.stored = { ...this.stored, ...patch, redirect_uri: this.redirectUrl, server_url: this.serverUrl }
    mkdirSync(join(this.home, 'mcp', 'auth'), { recursive: true, mode: 0o700 })
    await writeFileAtomic(authFile(this.home, this.server), JSON.stringify(this.stored, null, 2) + '\n', { mode: 0o600 })
  }
}
