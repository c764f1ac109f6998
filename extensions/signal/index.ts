// The private messenger: Signal through a signal-cli daemon started with `daemon --http`
// (adapter `signal`). setup() only registers: the daemon is checked and its event stream opened when
// the gateway starts the adapter. Group chats follow SIGNAL_GROUP_ALLOWED_USERS (gateway-auth).

import { defineExtension, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createSignalAdapter } from './adapter.ts'
import type { SignalConfig } from './settings.ts'

export default defineExtension<SignalConfig>({
  name: 'signal',
  version: '1.0.0',
  description: 'Signal through the signal-cli HTTP daemon (adapter "signal")',
  dependsOn: ['gateway'],
  configKey: 'platforms.signal',
  config: platformConfigSchema({
    // SIGNAL_HTTP_URL and SIGNAL_ACCOUNT win over these two.
    http_url: { type: 'string' },
    account: { type: 'string' },
    stale_after_seconds: { type: 'number', minimum: 0.1, maximum: 3600, default: 120 },
    reconnect_initial_ms: { type: 'integer', minimum: 10, maximum: 60_000, default: 2000 },
    reconnect_max_ms: { type: 'integer', minimum: 10, maximum: 600_000, default: 60_000 },
    max_attachment_bytes: { type: 'integer', minimum: 0, maximum: 104_857_600, default: 26_214_400 },
    typing_renew_ms: { type: 'integer', minimum: 50, maximum: 14_000, default: 10_000 },
  }),
  setup(api) {
    const adapter = createSignalAdapter(api.config, api.settings, api.log)
    registerPlatformAdapter(api, adapter)
  },
})
