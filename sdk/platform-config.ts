// The `platforms.<name>` config section every gateway adapter declares: `enabled`, and under `extra`
// the keys the gateway reads for every platform (allowlists and home channel, through
// platformSetting in gateway.ts) next to the adapter's own keys. One schema, so a shared key has the
// same type on every platform and an adapter only lists what is its own.

import type { JsonSchema } from './types.ts'

/** User or chat ids: a YAML list (numeric ids may be numbers) or one comma-separated string. */
export const ID_LIST_SCHEMA: JsonSchema = { anyOf: [{ type: 'array', items: { type: ['string', 'integer'] } }, { type: 'string' }] }

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
