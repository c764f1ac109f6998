// The bridged messenger: WhatsApp through a bridge process on WhatsApp Web (adapter `whatsapp`).
// The bridge is a small Node program with its own package (bridge/), installed on first use by
// `agent gateway whatsapp setup`; setup() here only registers the adapter and that command.

import { defineExtension, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createWhatsAppAdapter } from './adapter.ts'
import type { WhatsAppConfig } from './settings.ts'
import { whatsappSubcommands } from './setup.ts'

export default defineExtension<WhatsAppConfig>({
  name: 'whatsapp',
  version: '1.0.0',
  description: 'WhatsApp through a bridge process (adapter "whatsapp")',
  dependsOn: ['gateway'],
  configKey: 'platforms.whatsapp',
  config: platformConfigSchema({
    mode: { enum: ['self-chat', 'bot'], default: 'self-chat' },
    // WHATSAPP_REPLY_PREFIX wins; unset: the default header, '' none, `\n` a newline.
    reply_prefix: { type: 'string' },
    bridge_script: { type: 'string' },
    health_interval_ms: { type: 'integer', minimum: 50, maximum: 600_000, default: 15_000 },
    start_timeout_ms: { type: 'integer', minimum: 1000, maximum: 600_000, default: 30_000 },
    restart_initial_ms: { type: 'integer', minimum: 10, maximum: 600_000, default: 1000 },
    restart_max_ms: { type: 'integer', minimum: 10, maximum: 3_600_000, default: 60_000 },
    poll_timeout_ms: { type: 'integer', minimum: 100, maximum: 60_000, default: 25_000 },
  }),
  setup(api) {
    const adapter = createWhatsAppAdapter(api.config, api.settings, api.log)
    registerPlatformAdapter(api, { ...adapter, cliSubcommands: whatsappSubcommands() })
  },
})
