// The dashboard's switches: whether the gateway serves it (DASHBOARD_ENABLED or
// platforms.dashboard.enabled), where its listener binds (the http extension's `dashboard` listener:
// DASHBOARD_HOST/DASHBOARD_PORT or http.listeners.dashboard.*) and the key an off-loopback bind needs.

import { ConfigError, envSwitchOn, isLoopbackHost, type JsonSchema, type Settings } from 'agent/sdk'

export const LISTENER = 'dashboard'

export interface DashboardConfig {
  enabled: boolean
  extra: { session_hours: number; [key: string]: unknown }
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
        // How long a signed-in browser stays signed in without coming back.
        session_hours: { type: 'number', exclusiveMinimum: 0, maximum: 24 * 30, default: 12 },
      },
      additionalProperties: true,
    },
  },
  additionalProperties: true,
}

export function isEnabled(config: Readonly<DashboardConfig>, settings: Settings): boolean {
  return config.enabled === true || envSwitchOn(settings.env('DASHBOARD_ENABLED'))
}

/** Where the listener will bind and the key it has, read the way the http extension reads them. */
export function binding(settings: Settings): { host: string; key: string | undefined; keyName: string } {
  const override = settings.get<{ host?: string; key_env?: string }>(`http.listeners.${LISTENER}`) ?? {}
  const keyName = override.key_env ?? 'DASHBOARD_KEY'
  const key = settings.env(keyName)?.trim() || undefined
  return { host: override.host ?? settings.env('DASHBOARD_HOST') ?? '127.0.0.1', key, keyName }
}

/** Whether the dashboard may bind where it is configured to (loopback, or a key is set). */
export function bindAllowed(settings: Settings): boolean {
  const { host, key } = binding(settings)
  return Boolean(key) || isLoopbackHost(host)
}

/** Throws the refusal (a configuration error: `gateway run` exits 2) when the dashboard would be reachable off this machine without a key. */
export function assertBindAllowed(settings: Settings): void {
  const { host, keyName } = binding(settings)
  if (!bindAllowed(settings)) {
    throw new ConfigError(`refusing to serve the dashboard on ${host} without ${keyName}: set the key, or bind to 127.0.0.1`)
  }
}
