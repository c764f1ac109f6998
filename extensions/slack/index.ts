// The workspace chat: a Slack app (adapter `slack`) over Socket Mode, so no public URL is needed. It
// answers direct messages, and in channels the messages that mention it (or sit in a free-response
// channel, or continue a thread it answers in), replying in the message's thread; one slash command
// (`/agent`) carries the gateway's commands as subcommands; `agent gateway slack-manifest` prints the
// app manifest. setup() only registers: the SDK packages are imported when the gateway starts it.

import { defineExtension, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createSlackAdapter } from './adapter.ts'
import { DEFAULT_APP_NAME } from './manifest.ts'
import { DEFAULT_SLASH_COMMAND, type SlackConfig } from './settings.ts'

export default defineExtension<SlackConfig>({
  name: 'slack',
  version: '1.0.0',
  description: 'Slack app over Socket Mode (adapter "slack")',
  dependsOn: ['gateway'],
  configKey: 'platforms.slack',
  config: platformConfigSchema({
    // SLACK_REQUIRE_MENTION and SLACK_FREE_RESPONSE_CHANNELS win over these two.
    require_mention: { type: 'boolean' },
    free_response_channels: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
    // The one native slash command; its subcommands are the gateway's commands.
    slash_command: { type: 'string', default: DEFAULT_SLASH_COMMAND },
    // The app's name in the manifest `agent gateway slack-manifest` prints.
    app_name: { type: 'string', default: DEFAULT_APP_NAME },
    // Slack's hello on a new connection; a slower start is retried by the gateway with its backoff.
    connect_timeout_seconds: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
    // The adapter reconnects by itself; down this long, the gateway restarts it with its backoff.
    // 0 leaves it to the adapter.
    reconnect_watchdog_seconds: { type: 'integer', minimum: 0, maximum: 86_400, default: 300 },
  }),
  setup(api) {
    const adapter = createSlackAdapter({ config: api.config, settings: api.settings, log: api.log, commands: () => api.commands.list() })
    registerPlatformAdapter(api, adapter)
  },
})
