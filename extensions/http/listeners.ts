// Named listeners and where they bind. `api` and `webhook` have defaults from the environment of the
// spec and DECISIONS.md; `http.listeners.<name>` in config.yaml adds or overrides any listener.

import { ConfigError, type Settings } from 'agent/sdk'

export interface ListenerConfig {
  name: string
  host: string
  port: number
  /** Bearer key for endpoints with auth 'api-key'; undefined means open (loopback only). */
  key?: string
  /** Browser origins allowed by CORS: a list, or '*' for any. Empty: no cross-origin browser access. */
  corsOrigins: string[] | '*'
  /** Variable the key comes from, for error messages. */
  keyName: string
  /** What changes the port (a variable and/or the config key), for error messages. */
  portSetting: string
  limits: ListenerLimits
}

/** Slow and numerous clients: how long a request may take to arrive, how many sockets at once. */
export interface ListenerLimits {
  headersTimeoutMs: number
  requestTimeoutMs: number
  maxConnections: number
}

export const DEFAULT_LIMITS = { headers_timeout_seconds: 20, request_timeout_seconds: 60, max_connections: 512 } as const

export interface ListenerOverride {
  host?: string
  port?: number
  key_env?: string
  cors_origins?: string[] | string
  headers_timeout_seconds?: number
  request_timeout_seconds?: number
  max_connections?: number
}

function limits(o: ListenerOverride, name: string): ListenerLimits {
  const headers = o.headers_timeout_seconds ?? DEFAULT_LIMITS.headers_timeout_seconds
  const request = o.request_timeout_seconds ?? DEFAULT_LIMITS.request_timeout_seconds
  const max = o.max_connections ?? DEFAULT_LIMITS.max_connections
  // The schema bounds each number; Node refuses a headers timeout longer than the request timeout.
  if (![headers, request, max].every(Number.isFinite)) throw new ConfigError(`http.listeners.${name}: timeouts and max_connections must be finite numbers`)
  if (headers > request) throw new ConfigError(`http.listeners.${name}.headers_timeout_seconds (${headers}) must not exceed request_timeout_seconds (${request})`)
  return { headersTimeoutMs: Math.round(headers * 1000), requestTimeoutMs: Math.round(request * 1000), maxConnections: max }
}

function parseOrigins(value: string[] | string | undefined): string[] | '*' {
  if (value === undefined) return []
  const list = Array.isArray(value) ? value : value.split(',')
  const trimmed = list.map((o) => o.trim()).filter(Boolean)
  return trimmed.includes('*') ? '*' : trimmed.map((o) => o.replace(/\/$/, ''))
}

function port(value: string | number | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a port number from 0 to 65535, got "${value}"`)
  return n
}

/**
 * The listeners with their own variables (`<PREFIX>_HOST`, `<PREFIX>_PORT`, a default key variable):
 * one reading for all of them. `cors` says where allowed origins come from: config or the
 * `<PREFIX>_CORS_ORIGINS` variable, config only, or nowhere (the dashboard is same-origin only).
 */
const NAMED_LISTENERS: Record<string, { prefix: string; port: number; keyEnv?: string; cors: 'env' | 'config' | 'none' }> = {
  api: { prefix: 'API_SERVER', port: 8642, keyEnv: 'API_SERVER_KEY', cors: 'env' },
  // The browser dashboard enforces its key itself (a sign-in exchanged for a cookie); it is named
  // here only for the bind rule and messages.
  dashboard: { prefix: 'DASHBOARD', port: 8646, keyEnv: 'DASHBOARD_KEY', cors: 'none' },
  webhook: { prefix: 'WEBHOOK', port: 8644, cors: 'config' },
}

export function resolveListener(name: string, settings: Settings, overrides: Record<string, ListenerOverride>): ListenerConfig {
  const o = overrides[name] ?? {}
  const named = Object.hasOwn(NAMED_LISTENERS, name) ? NAMED_LISTENERS[name] : undefined
  if (named) {
    const { prefix } = named
    const keyName = o.key_env ?? named.keyEnv
    const origins = named.cors === 'none' ? undefined : (o.cors_origins ?? (named.cors === 'env' ? settings.env(`${prefix}_CORS_ORIGINS`) : undefined))
    return {
      name,
      host: o.host ?? settings.env(`${prefix}_HOST`) ?? '127.0.0.1',
      port: port(o.port ?? settings.env(`${prefix}_PORT`), named.port, `${prefix}_PORT`),
      key: keyName ? settings.env(keyName) : undefined,
      keyName: keyName ?? '(none)',
      portSetting: `${prefix}_PORT or http.listeners.${name}.port`,
      corsOrigins: parseOrigins(origins),
      limits: limits(o, name),
    }
  }
  return {
    name,
    host: o.host ?? '127.0.0.1',
    port: port(o.port, 0, `http.listeners.${name}.port`),
    key: o.key_env ? settings.env(o.key_env) : undefined,
    keyName: o.key_env ?? '(none)',
    portSetting: `http.listeners.${name}.port`,
    corsOrigins: parseOrigins(o.cors_origins),
    limits: limits(o, name),
  }
}
