// The messenger platform: a Telegram bot (adapter `telegram`). It answers private chats, and in groups
// the messages that mention it (or reply to it, or name it in a command, or sit in a free-response
// chat); the gateway's slash commands fill Telegram's command menu. setup() only registers: grammy is
// imported and the long poll started when the gateway starts the adapter.

import { defineExtension, ID_LIST_SCHEMA, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createTelegramAdapter } from './adapter.ts'
import type { TelegramConfig } from './settings.ts'

export default defineExtension<TelegramConfig>({
  name: 'telegram',
  version: '1.0.0',
  description: 'Telegram bot over the Bot API with long polling (adapter "telegram")',
  dependsOn: ['gateway'],
  configKey: 'platforms.telegram',
  config: platformConfigSchema({
    // TELEGRAM_REQUIRE_MENTION and TELEGRAM_FREE_RESPONSE_CHATS win over these two.
    require_mention: { type: 'boolean' },
    free_response_chats: ID_LIST_SCHEMA,
    // Fill Telegram's command menu from the gateway's slash commands (private chats and groups).
    command_menu: { type: 'boolean', default: true },
    // Seconds each getUpdates long poll waits for news.
    poll_timeout_seconds: { type: 'integer', minimum: 1, maximum: 50, default: 30 },
    // Messages of one sender within this window become one turn (0: every message is a turn).
    batch_window_ms: { type: 'integer', minimum: 0, maximum: 10_000, default: 600 },
    // 409 Conflict answers retried (doubling pauses from 1 s) before polling stops as fatal.
    conflict_retries: { type: 'integer', minimum: 0, maximum: 20, default: 5 },
  }),
  setup(api) {
    const adapter = createTelegramAdapter({ config: api.config, settings: api.settings, log: api.log, commands: () => api.commands.list() })
    registerPlatformAdapter(api, adapter)
  },
})
