// The matrix-style chat platform: Matrix rooms and direct chats through any homeserver's
// client-server API (adapter `matrix`), with the official matrix-js-sdk's sync loop. setup() only
// registers: the SDK is imported and the client signed in when the gateway starts the adapter.

import { defineExtension, platformConfigSchema, registerPlatformAdapter, gatewayKnownCommands } from 'agent/sdk'
import { createMatrixAdapter } from './adapter.ts'
import { MAX_MESSAGE_LENGTH, MAX_MESSAGE_LENGTH_LIMIT } from './format.ts'
import type { MatrixConfig } from './settings.ts'

export default defineExtension<MatrixConfig>({
  name: 'matrix',
  version: '1.0.0',
  description: 'Matrix rooms and direct chats (adapter "matrix")',
  dependsOn: ['gateway'],
  configKey: 'platforms.matrix',
  config: platformConfigSchema({
    // Group rooms: answer only messages that mention the bot (DMs never need a mention).
    require_mention: { type: 'boolean', default: true },
    // Room ids where every message is answered without a mention.
    free_response_rooms: { type: 'array', items: { type: 'string' }, default: [] },
    // Join rooms when a user the gateway would answer invites the bot.
    auto_join: { type: 'boolean', default: true },
    max_message_length: { type: 'integer', minimum: 500, maximum: MAX_MESSAGE_LENGTH_LIMIT, default: MAX_MESSAGE_LENGTH },
    sync_timeout_ms: { type: 'integer', minimum: 1000, maximum: 120_000, default: 30_000 },
    start_timeout_ms: { type: 'integer', minimum: 1000, maximum: 600_000, default: 60_000 },
  }),
  setup(api) {
    // 'help' is always understood: the gateway answers /help with its command list even when no extension registers it.
    const adapter = createMatrixAdapter(api.config, api.settings, api.log, () => new Set([...gatewayKnownCommands(api.commands.list()), 'help']))
    registerPlatformAdapter(api, adapter)
  },
})
