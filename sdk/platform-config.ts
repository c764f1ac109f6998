// The `platforms.<name>` config section every gateway adapter declares: `enabled`, and under `extra`
// the keys the gateway reads for every platform (allowlists and home channel, through
// platformSetting in gateway.ts) next to the adapter's own keys. One schema, so a shared key has the
// same type on every platform and an adapter only lists what is its own.

import { ConfigError } from './errors.ts'
import { envSwitchOn } from './gateway.ts'
import type { JsonSchema, Settings } from './types.ts'

/** User or chat ids: a YAML list (numeric ids may be numbers) or one comma-separated string. */
// A lone id may be a YAML number (`allowed_users: 12345`), as the gateway reads it.
export const ID_LIST_SCHEMA: JsonSchema = { anyOf: [{ type: 'array', items: { type: ['string', 'integer'] } }, { type: ['string', 'integer'] }] }

const CHAT_ID: JsonSchema = { type: ['string', 'integer'] }

/** Read by the gateway for every platform when `<PLATFORM>_ALLOWED_USERS` … are unset (the variables win). */
export const COMMON_PLATFORM_EXTRA: Readonly<Record<string, JsonSchema>> = {
  allowed_users: ID_LIST_SCHEMA,
  group_allowed_users: ID_LIST_SCHEMA,
  allow_all_users: { type: 'boolean' },
  home_channel: CHAT_ID,
  home_channel_thread_id: CHAT_ID,
  home_channel_name: { type: 'string' },
}

/**
 * The schema of `platforms.<name>`: `enabled`, and `extra` with the common keys plus `ownExtra` (an
 * adapter's key of the same name wins). Other keys stay allowed: the gateway keeps more per-platform
 * settings there (backlog, reply prefix …).
 */
export function platformConfigSchema(ownExtra: Record<string, JsonSchema>): JsonSchema {
  return {
    type: 'object',
    properties: {
      enabled: { type: 'boolean' },
      extra: { type: 'object', default: {}, properties: { ...COMMON_PLATFORM_EXTRA, ...ownExtra }, additionalProperties: true },
    },
    additionalProperties: true,
  }
}

/** An id list as config (a list) or a variable (a comma string) gives it: trimmed, blanks dropped. */
export function parseIdList(value: ReadonlyArray<string | number> | string | number | undefined): Set<string> {
  const items = Array.isArray(value) ? value.map(String) : String(value ?? '').split(',')
  return new Set(items.map((s) => s.trim()).filter(Boolean))
}

/** A platform's http(s) address from `variable` (API base, daemon, homeserver), or a ConfigError naming it. */
export function parseHttpUrl(variable: string, value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${variable} is not a URL: ${value}`)
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`${variable} must be an http(s) URL`)
  return url
}

const OFF = /^(0|false|no|off)$/i

/** A true/false variable (1/yes/on, 0/no/off too) that wins over `fallback` when set; anything else is a ConfigError. */
export function envBoolean(settings: Settings, variable: string, fallback: boolean): boolean {
  const raw = settings.env(variable)?.trim()
  if (!raw) return fallback
  if (envSwitchOn(raw)) return true
  if (OFF.test(raw)) return false
  throw new ConfigError(`${variable} must be true or false, not "${raw}"`)
}
