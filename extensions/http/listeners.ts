// Named listeners and where they bind. `api` and `webhook` have defaults from the environment of the
// spec and DECISIONS.md; `http.listeners.<name>` in config.yaml adds or overrides any listener.

import type { Settings } from 'agent/sdk'

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
}

export interface ListenerOverride {
  host?: string
  port?: number
  key_env?: string
  cors_origins?: string[] | string
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
      corsOrigins: parseOrigins(o.cors_origins ?? settings.env('API_SERVER_CORS_ORIGINS')),
    }
  }
  if (name === 'webhook') {
    return {
      name,
      host: o.host ?? settings.env('WEBHOOK_HOST') ?? '127.0.0.1',
      port: port(o.port ?? settings.env('WEBHOOK_PORT'), 8644, 'WEBHOOK_PORT'),
      key: o.key_env ? settings.env(o.key_env) : undefined,
      keyName: o.key_env ?? '(none)',
      corsOrigins: parseOrigins(o.cors_origins),
    }
  }
  return {
    name,
    host: o.host ?? '127.0.0.1',
    port: port(o.port, 0, `http.listeners.${name}.port`),
    key: o.key_env ? settings.env(o.key_env) : undefined,
    keyName: o.key_env ?? '(none)',
    corsOrigins: parseOrigins(o.cors_origins),
  }
}
