// The API server's settings: whether it is enabled (API_SERVER_ENABLED or platforms.api_server.enabled),
// the advertised model name, and the limits under platforms.api_server.extra, resolved once.

import type { JsonBounds, JsonSchema, Settings } from 'agent/sdk'

export interface ApiServerConfig {
  enabled: boolean
  extra: {
    response_store_capacity: number
    max_concurrent_runs: number
    max_background_runs?: number
    keepalive_seconds: number
    max_request_bytes: number
    [key: string]: unknown
  }
  [key: string]: unknown
}

export const CONFIG_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', default: false },
    extra: {
      type: 'object',
      default: {},
      properties: {
        // Stored responses kept in state.db; the least recently used are evicted past it.
        response_store_capacity: { type: 'integer', minimum: 1, maximum: 1_000_000, default: 1000 },
        // Agent runs in flight at once; more get 429. 0 means no cap.
        max_concurrent_runs: { type: 'integer', minimum: 0, maximum: 10_000, default: 10 },
        // Background responses (`background: true`) in flight at once, within max_concurrent_runs;
        // more get 429. Unset: half of max_concurrent_runs (at least 1; no bound when that is 0), so
        // requests waiting on their answer keep room. 0 means no bound of their own.
        max_background_runs: { type: 'integer', minimum: 0, maximum: 10_000 },
        // SSE comment sent after this many seconds without output, so proxies keep the stream open.
        keepalive_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 30 },
        // Request bodies above this are refused with 413 before they are read. Every number here is
        // bounded above, so a YAML .inf is a config error rather than "no limit".
        max_request_bytes: { type: 'integer', minimum: 1024, maximum: 256 * 1024 * 1024, default: 10 * 1024 * 1024 },
      },
      // The gateway keeps other per-platform keys here (reply prefix, home channel …).
      additionalProperties: true,
    },
  },
  additionalProperties: true,
}

export interface ServerOptions {
  modelName: string
  capacity: number
  maxConcurrentRuns: number
  /** 0: no bound of their own. */
  maxBackgroundRuns: number
  keepaliveMs: number
  maxRequestBytes: number
}

/**
 * Shape bounds for request bodies: a frontend resending a long conversation sends a few entries per
 * message, so the member/element cap is higher than the sdk default (10,000); depth stays 64.
 */
export const JSON_BOUNDS: JsonBounds = { maxDepth: 64, maxKeys: 200_000 }

const TRUTHY = /^(1|true|yes|on)$/i

export function isEnabled(config: Readonly<ApiServerConfig>, settings: Settings): boolean {
  return config.enabled === true || TRUTHY.test(settings.env('API_SERVER_ENABLED')?.trim() ?? '')
}

export function resolveOptions(config: Readonly<ApiServerConfig>, settings: Settings): ServerOptions {
  const extra = config.extra
  return {
    modelName: settings.env('API_SERVER_MODEL_NAME')?.trim() || 'agent',
    capacity: extra.response_store_capacity,
    maxConcurrentRuns: extra.max_concurrent_runs,
    maxBackgroundRuns: extra.max_background_runs ?? (extra.max_concurrent_runs > 0 ? Math.max(1, Math.floor(extra.max_concurrent_runs / 2)) : 0),
    keepaliveMs: Math.max(1, Math.round(extra.keepalive_seconds * 1000)),
    maxRequestBytes: extra.max_request_bytes,
  }
}
