// The official Slack SDK packages, loaded when first needed (an agent without Slack never imports
// them), the Web API client as this adapter configures it, and what a failed call means: a refused
// token or a missing scope is configuration (no retry helps), anything else is the network or Slack.

import { AgentError, ConfigError, errorMessage, type Logger } from 'agent/sdk'
import type { Logger as SlackLogger, WebClient } from '@slack/web-api'

export type WebApiModule = typeof import('@slack/web-api')
export type SocketModeModule = typeof import('@slack/socket-mode')

/** A Web API call gives up after this long (the SDK waits forever by default). */
const REQUEST_TIMEOUT_MS = 15_000
/** Retries of a failed call (network, 5xx) and of a 429, which waits Slack's Retry-After first. */
const RETRY = { retries: 3, factor: 2, minTimeout: 500, maxTimeout: 5000 }

/** Errors that mean the token (or the app's configuration) is wrong, not the network. */
const REFUSED = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired', 'team_disabled', 'user_removed_from_team', 'missing_scope', 'not_allowed_token_type', 'no_permission', 'ekm_access_denied'])

export async function loadWebApi(): Promise<WebApiModule> {
  const mod = (await import('@slack/web-api')) as WebApiModule & { default?: WebApiModule }
  // CommonJS: depending on the loader its exports are the namespace or its default.
  return mod.WebClient ? mod : mod.default!
}

export async function loadSocketMode(): Promise<SocketModeModule> {
  const mod = (await import('@slack/socket-mode')) as SocketModeModule & { default?: SocketModeModule }
  await patchCloseHandshake()
  return mod.SocketModeClient ? mod : mod.default!
}

interface SlackWebSocketInternals {
  closeHandshakeTimeout?: NodeJS.Timeout
  disconnect(): void
}

let patched = false

/**
 * @slack/socket-mode 3.1: when the websocket fails while our close frame waits for its answer (Slack
 * or the network drops the connection as we stop), disconnect() runs a second time and starts a
 * second 30 s close timer over the first; the first is never cleared and holds the process open. The
 * pending timer is cleared before each disconnect(), and none of them holds the process open.
 */
async function patchCloseHandshake(): Promise<void> {
  if (patched) return
  patched = true
  const mod = (await import('@slack/socket-mode/dist/src/SlackWebSocket.js')) as unknown as { SlackWebSocket?: { prototype: SlackWebSocketInternals }; default?: { SlackWebSocket?: { prototype: SlackWebSocketInternals } } }
  const prototype = (mod.SlackWebSocket ?? mod.default?.SlackWebSocket)?.prototype
  if (!prototype) return
  const disconnect = prototype.disconnect
  prototype.disconnect = function (this: SlackWebSocketInternals) {
    clearTimeout(this.closeHandshakeTimeout)
    disconnect.call(this)
    this.closeHandshakeTimeout?.unref?.()
  }
}

/**
 * The SDKs' own log lines are detail (they include message payloads at debug level): they go to our
 * debug level, cleaned by `clean`, and their debug lines are dropped.
 */
export function sdkLogger(log: () => Logger, clean: (text: string) => string): SlackLogger {
  const write = (...parts: unknown[]) => log().debug(`slack sdk: ${clean(parts.map((p) => (typeof p === 'string' ? p : errorMessage(p))).join(' '))}`)
  return {
    debug: () => undefined,
    info: write,
    warn: write,
    error: write,
    setLevel: () => undefined,
    // Not DEBUG: the SDK then skips building its debug-only strings.
    getLevel: () => 'info' as ReturnType<SlackLogger['getLevel']>,
    setName: () => undefined,
  }
}

export function webClient(api: WebApiModule, token: string, base: string, logger: SlackLogger): WebClient {
  return new api.WebClient(token, { slackApiUrl: base, logger, timeout: REQUEST_TIMEOUT_MS, retryConfig: RETRY })
}

/** The Slack error code of a failed Web API call (`channel_not_found` …), if Slack answered one. */
export function slackErrorCode(error: unknown): string | undefined {
  const e = error as { code?: string; data?: { error?: unknown } } | undefined
  return e?.code === 'slack_webapi_platform_error' && typeof e.data?.error === 'string' ? e.data.error : undefined
}

/** A short reason for a failed call: Slack's error code, the HTTP status, or the network error. */
export function reasonOf(error: unknown): string {
  const e = error as { code?: string; statusCode?: number; original?: { code?: string; cause?: { code?: string }; message?: string }; data?: { needed?: string } } | undefined
  const code = slackErrorCode(error)
  if (code) return e?.data?.needed ? `${code}, needs ${e.data.needed}` : code
  if (e?.code === 'slack_webapi_http_error') return `HTTP ${e.statusCode}`
  if (e?.code === 'slack_webapi_request_error') {
    const cause = e.original?.cause?.code ?? e.original?.code
    const message = e.original?.message ?? errorMessage(error)
    return cause && !message.includes(cause) ? `${cause}: ${message}` : message
  }
  return errorMessage(error)
}

/**
 * A failed call made with the token in `variable`: a ConfigError when Slack refused the token or the
 * app lacks a scope, otherwise a retryable network error naming the host.
 */
export function classify(error: unknown, variable: 'SLACK_BOT_TOKEN' | 'SLACK_APP_TOKEN', host: string, clean: (text: string) => string): AgentError {
  if (AgentError.isInstance(error)) return error
  const code = slackErrorCode(error)
  const status = (error as { statusCode?: number })?.statusCode
  if ((code && REFUSED.has(code)) || status === 401 || status === 403) {
    const fix = variable === 'SLACK_APP_TOKEN'
      ? 'create an app-level token with the connections:write scope (Basic Information → App-Level Tokens) and check that Socket Mode is on'
      : 'reinstall the app to the workspace (OAuth & Permissions) and copy the Bot User OAuth Token'
    return new ConfigError(`Slack refused ${variable} (${clean(reasonOf(error))}): ${fix}`, { cause: error })
  }
  return new AgentError('E_NETWORK', `cannot connect to Slack (${host}): ${clean(reasonOf(error))}`, { cause: error })
}
