// The forum-style chat platform: a Discord bot (adapter `discord`). It answers direct messages, and in
// servers the messages that mention it (or reply to it, or sit in a free-response channel); the
// gateway's slash commands are also offered as Discord application commands. setup() only registers:
// discord.js is imported and the gateway websocket opened when the gateway starts the adapter.

import { defineExtension, ID_LIST_SCHEMA, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createDiscordAdapter } from './adapter.ts'
import type { DiscordConfig } from './settings.ts'

export default defineExtension<DiscordConfig>({
  name: 'discord',
  version: '1.0.0',
  description: 'Discord bot over the gateway websocket (adapter "discord")',
  dependsOn: ['gateway'],
  configKey: 'platforms.discord',
  config: platformConfigSchema({
    // DISCORD_REQUIRE_MENTION and DISCORD_FREE_RESPONSE_CHANNELS win over these two.
    require_mention: { type: 'boolean' },
    free_response_channels: ID_LIST_SCHEMA,
    // Offer the gateway's slash commands in Discord's command menu (one bulk registration).
    slash_commands: { type: 'boolean', default: true },
    // Login and first ready; a slower start is retried by the gateway with its backoff.
    connect_timeout_seconds: { type: 'integer', minimum: 1, maximum: 600, default: 60 },
    // discord.js resumes and reconnects by itself; if the connection stays down this long, the
    // gateway restarts the adapter with its backoff instead. 0 leaves it to discord.js.
    reconnect_watchdog_seconds: { type: 'integer', minimum: 0, maximum: 86_400, default: 300 },
  }),
  setup(api) {
    const adapter = createDiscordAdapter({ config: api.config, settings: api.settings, log: api.log, commands: () => api.commands.list() })
    registerPlatformAdapter(api, adapter)
  },
})
