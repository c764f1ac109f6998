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

export function resolveListener(name: string, settings: Settings, overrides: Record<string, ListenerOverride>): ListenerConfig {
  const o = overrides[name] ?? {}
  if (name === 'api') {
    const keyName = o.key_env ?? 'API_SERVER_KEY'
    return {
      name,
      host: o.host ?? settings.env('API_SERVER_HOST') ?? '127.0.0.1',
      port: port(o.port ?? settings.env('API_SERVER_PORT'), 8642, 'API_SERVER_PORT'),
      key: settings.env(keyName),
      keyName,
      portSetting: 'API_SERVER_PORT or http.listeners.api.port',
      corsOrigins: parseOrigins(o.cors_origins ?? settings.env('API_SERVER_CORS_ORIGINS')),
      limits: limits(o, name),
    }
  }
  if (name === 'dashboard') {
    // The browser dashboard (extension dashboard): its key is enforced by the extension itself (a
    // sign-in exchanged for a cookie), so it is named here only for the bind rule and messages.
    const keyName = o.key_env ?? 'DASHBOARD_KEY'
    return {
      name,
      host: o.host ?? settings.env('DASHBOARD_HOST') ?? '127.0.0.1',
      port: port(o.port ?? settings.env('DASHBOARD_PORT'), 8646, 'DASHBOARD_PORT'),
      key: settings.env(keyName),
      keyName,
      portSetting: 'DASHBOARD_PORT or http.listeners.dashboard.port',
      corsOrigins: [],
      limits: limits(o, name),
    }
  }
  if (name === 'webhook') {
    return {
      name,
      host: o.host ?? settings.env('WEBHOOK_HOST') ?? '127.0.0.1',
      port: port(o.port ?? settings.env('WEBHOOK_PORT'), 8644, 'WEBHOOK_PORT'),
      key: o.key_env ? settings.env(o.key_env) : undefined,
      keyName: o.key_env ?? '(none)',
      portSetting: 'WEBHOOK_PORT or http.listeners.webhook.port',
      corsOrigins: parseOrigins(o.cors_origins),
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
