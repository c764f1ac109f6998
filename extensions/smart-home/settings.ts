// The Home Assistant platform's settings: whether the adapter is enabled (platforms.homeassistant.enabled,
// HASS_ENABLED, or HASS_URL and HASS_TOKEN both set), the websocket address derived from HASS_URL, the
// token (a secret: never logged), and the event filters and limits under platforms.homeassistant.extra.

import { ConfigError, platformConfigSchema, platformEnabled, type JsonSchema, type Settings } from 'agent/sdk'

export const PLATFORM = 'homeassistant'
export const DEFAULT_URL = 'http://homeassistant.local:8123'

export interface HomeAssistantExtra {
  url?: string
  watch_domains: string[]
  watch_entities: string[]
  watch_all: boolean
  ignore_entities: string[]
  cooldown_seconds: number
  max_queued_events: number
  ping_interval_seconds: number
  notification_title: string
  [key: string]: unknown
}

export interface HomeAssistantConfig {
  enabled?: boolean
  extra: HomeAssistantExtra
  [key: string]: unknown
}

const names = { type: 'array', items: { type: 'string', minLength: 1 }, default: [] }

export const CONFIG_SCHEMA: JsonSchema = platformConfigSchema({
  // Used when HASS_URL is not set.
  url: { type: 'string', minLength: 1 },
  // State events are dropped unless one of these lets them through.
  watch_domains: names,
  watch_entities: names,
  watch_all: { type: 'boolean', default: false },
  // Never passed, even with watch_all.
  ignore_entities: names,
  // One agent run per entity per window; changes inside it are coalesced. 0 turns it off.
  cooldown_seconds: { type: 'number', minimum: 0, default: 30 },
  // Events waiting for their agent run; past it new events are dropped (with a warning).
  max_queued_events: { type: 'integer', minimum: 1, default: 20 },
  // A ping this often; no pong within 10 s (or the interval if shorter) drops the connection. 0: no pings.
  ping_interval_seconds: { type: 'number', minimum: 0, default: 30 },
  notification_title: { type: 'string', default: 'Agent' },
})


/** Mirrors the SMS adapter: an explicit `enabled: false` wins; otherwise config, HASS_ENABLED, or both variables. */
export function homeAssistantEnabled(settings: Settings): boolean {
  return platformEnabled(settings, PLATFORM, 'HASS_ENABLED', () => Boolean(settings.env('HASS_URL')?.trim() && settings.env('HASS_TOKEN')?.trim()))
}

export interface Endpoint {
  /** The base URL as configured (for messages). */
  baseUrl: string
  /** ws:// or wss:// …/api/websocket */
  wsUrl: string
}

/** `http://host:8123` → `ws://host:8123/api/websocket`; ws(s) URLs and a path ending in /api/websocket are kept. */
export function websocketUrl(raw: string): string {
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch (error) {
    throw new ConfigError(`HASS_URL is not a valid URL: "${raw}"`, { cause: error })
  }
  const protocols: Record<string, string> = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }
  const protocol = protocols[url.protocol]
  if (!protocol) throw new ConfigError(`HASS_URL must be an http(s) or ws(s) URL, got "${url.protocol}"`)
  if (url.username || url.password) throw new ConfigError('HASS_URL must not carry credentials; put the token in HASS_TOKEN')
  const path = url.pathname.replace(/\/+$/, '')
  const wsPath = path.endsWith('/api/websocket') ? path : `${path}/api/websocket`
  return `${protocol}//${url.host}${wsPath}${url.search}`
}

export function endpointOf(settings: Settings, extra: Partial<HomeAssistantExtra>): Endpoint {
  const baseUrl = settings.env('HASS_URL')?.trim() || extra.url?.trim() || DEFAULT_URL
  return { baseUrl, wsUrl: websocketUrl(baseUrl) }
}

export function tokenOf(settings: Settings): string {
  const token = settings.env('HASS_TOKEN')?.trim()
  if (!token) throw new ConfigError('the Home Assistant platform needs HASS_TOKEN (a long-lived access token from your Home Assistant profile page)')
  return token
}

/** Whether the tools can reach Home Assistant: a token is set (the URL has a default). */
export function homeAssistantConfigured(settings: Settings): true | string {
  if (settings.get<boolean>(`platforms.${PLATFORM}.enabled`) === false) return 'the Home Assistant platform is disabled (platforms.homeassistant.enabled: false)'
  return settings.env('HASS_TOKEN')?.trim() ? true : 'set HASS_TOKEN (and HASS_URL) to use Home Assistant'
}
