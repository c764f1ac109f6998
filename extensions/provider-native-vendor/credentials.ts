// Credentials for the native vendor, in order: an explicit key (config), ANTHROPIC_API_KEY, a
// long-lived setup token (ANTHROPIC_TOKEN, CLAUDE_CODE_OAUTH_TOKEN), then local OAuth credentials
// detected on disk. A refreshable local credential wins over a static environment token, and an
// expired one is refreshed (and written back, mode 0600) rather than falling back to a stale token.

import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AgentError, AnswerTooLargeError, errorMessage, limitResponse, type Settings } from 'agent/sdk'

export const OAUTH_CLIENT_ID = '9d1c250a-e61b-44d9-88ed-5944d1962f5e'
export const DEFAULT_TOKEN_URL = 'https://console.anthropic.com/v1/oauth/token'
const SKEW_MS = 60_000
/** A token answer is a few hundred bytes: more than this is not one (and is not read further). */
const TOKEN_ANSWER_BYTES = 1024 * 1024

export interface Auth {
  headers: Record<string, string>
  kind: 'api-key' | 'setup-token' | 'local-oauth'
  secret: string
}

interface LocalOauth {
  accessToken: string
  refreshToken?: string
  expiresAt?: number
}

export interface CredentialOptions {
  settings: Settings
  explicitKey?: string
  credentialsPath?: string
  tokenUrl: string
  timeoutMs: number
}

const isOauthToken = (token: string) => token.startsWith('sk-ant-oat')

function bearer(token: string, kind: Auth['kind']): Auth {
  return { kind, secret: token, headers: { authorization: `Bearer ${token}`, 'anthropic-beta': 'oauth-2025-04-20' } }
}

function apiKey(key: string): Auth {
  return isOauthToken(key) ? bearer(key, 'setup-token') : { kind: 'api-key', secret: key, headers: { 'x-api-key': key } }
}

export function credentialsPath(settings: Settings, configured?: string): string | undefined {
  if (configured) return configured
  const dir = settings.env('CLAUDE_CONFIG_DIR') ?? (settings.env('HOME') ? join(settings.env('HOME')!, '.claude') : undefined)
  return dir ? join(dir, '.credentials.json') : undefined
}

function readLocal(path: string | undefined): { file: Record<string, any>; oauth: LocalOauth } | undefined {
  if (!path || !existsSync(path)) return undefined
  try {
    const file = JSON.parse(readFileSync(path, 'utf8'))
    const oauth = file?.claudeAiOauth
    if (oauth && typeof oauth.accessToken === 'string' && oauth.accessToken) return { file, oauth }
  } catch {
    // An unreadable file is treated as absent; the other sources still apply.
  }
  return undefined
}

/** The credential source of one client; re-checked before each call so refreshes are picked up. */
export class Credentials {
  private refreshing: Promise<Auth> | undefined

  constructor(private readonly options: CredentialOptions) {}

  /** Whether any source is present (for `configured`), without network. */
  static present(settings: Settings, path: string | undefined): true | string {
    for (const name of ['ANTHROPIC_API_KEY', 'ANTHROPIC_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN']) if (settings.env(name)) return true
    if (readLocal(credentialsPath(settings, path))) return true
    return 'no credentials: set ANTHROPIC_API_KEY or a setup token (ANTHROPIC_TOKEN), or log in with the vendor CLI'
  }

  async get(forceRefresh = false): Promise<Auth> {
    const { settings, explicitKey } = this.options
    if (explicitKey) return apiKey(explicitKey)
    const key = settings.env('ANTHROPIC_API_KEY')
    if (key) return apiKey(key)
    const path = credentialsPath(settings, this.options.credentialsPath)
    const local = readLocal(path)
    const envToken = settings.env('ANTHROPIC_TOKEN') ?? settings.env('CLAUDE_CODE_OAUTH_TOKEN')
    if (local && (local.oauth.refreshToken || !envToken)) {
      const fresh = !forceRefresh && (!local.oauth.expiresAt || local.oauth.expiresAt - SKEW_MS > Date.now())
      if (fresh) return bearer(local.oauth.accessToken, 'local-oauth')
      if (local.oauth.refreshToken) return this.refresh(path!, local)
      if (!envToken) throw new AgentError('E_PROVIDER', `anthropic: the local OAuth credentials in ${path} have expired and cannot be refreshed: log in again with the vendor CLI, or set ANTHROPIC_API_KEY`)
    }
    if (envToken) return bearer(envToken, 'setup-token')
    throw new AgentError('E_PROVIDER', 'anthropic: no credentials: run `agent model`, or `agent config set ANTHROPIC_API_KEY <key>` (or a setup token in ANTHROPIC_TOKEN)')
  }

  /** Whether a 401 may be cured by refreshing (the credential came from a refreshable file). */
  canRefresh(auth: Auth): boolean {
    if (auth.kind !== 'local-oauth') return false
    return !!readLocal(credentialsPath(this.options.settings, this.options.credentialsPath))?.oauth.refreshToken
  }

  private refresh(path: string, local: { file: Record<string, any>; oauth: LocalOauth }): Promise<Auth> {
    this.refreshing ??= this.doRefresh(path, local).finally(() => (this.refreshing = undefined))
    return this.refreshing
  }

  private async doRefresh(path: string, local: { file: Record<string, any>; oauth: LocalOauth }): Promise<Auth> {
    let answer: any
    try {
      const res = limitResponse(
        await fetch(this.options.tokenUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: local.oauth.refreshToken, client_id: OAUTH_CLIENT_ID }),
          signal: AbortSignal.timeout(Math.min(this.options.timeoutMs, 30_000)),
        }),
        TOKEN_ANSWER_BYTES,
      )
      // Not JSON: no token (said below); too large: said as such.
      answer = await res.json().catch((error: unknown) => {
        if (error instanceof AnswerTooLargeError) throw error
        return {}
      })
      if (!res.ok || typeof answer?.access_token !== 'string') {
        throw new Error(`HTTP ${res.status}${answer?.error ? ` ${answer.error}` : ''}`)
      }
    } catch (error) {
      throw new AgentError('E_PROVIDER', `anthropic: refreshing the expired OAuth credentials failed (${errorMessage(error)}): log in again with the vendor CLI, or set ANTHROPIC_API_KEY`, { cause: error })
    }
    const oauth = { ...local.oauth, accessToken: answer.access_token, refreshToken: answer.refresh_token ?? local.oauth.refreshToken, expiresAt: Date.now() + (Number(answer.expires_in) || 3600) * 1000 }
    // Written back because refresh tokens rotate: the vendor CLI must see the new one too.
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, JSON.stringify({ ...local.file, claudeAiOauth: oauth }, null, 2), { mode: 0o600 })
    renameSync(tmp, path)
    return bearer(oauth.accessToken, 'local-oauth')
  }
}
