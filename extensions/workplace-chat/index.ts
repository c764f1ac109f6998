// The workplace-chat platform: DingTalk robots in Stream mode (adapter `dingtalk`). Messages arrive
// over a long-lived websocket opened with the app's client id and secret (no public URL); answers go
// back as markdown through each chat's reply address. setup() only registers: the SDK is imported
// and the stream opened when the gateway starts the adapter.

import { defineExtension, platformConfigSchema, registerPlatformAdapter } from 'agent/sdk'
import { createDingTalkAdapter, type DingTalkConfig } from './adapter.ts'
import { MAX_MARKDOWN_LENGTH } from './markdown.ts'

export default defineExtension<DingTalkConfig>({
  name: 'workplace-chat',
  version: '1.0.0',
  description: 'DingTalk robots over Stream mode (adapter "dingtalk")',
  dependsOn: ['gateway'],
  configKey: 'platforms.dingtalk',
  config: platformConfigSchema({
    // Group messages must @-mention the robot (DingTalk's default push); false answers every
    // group message a robot allowed to read all of them receives.
    require_mention: { type: 'boolean', default: true },
    // The robot's display name: a left-over "@<name>" is removed from group messages.
    robot_name: { type: 'string' },
    // robotCode for proactive sends when no message has told it (default: the client id).
    robot_code: { type: 'string' },
    // Reconnect backoff of the stream: doubles from initial to max, with jitter.
    reconnect_initial_ms: { type: 'integer', minimum: 10, default: 1000 },
    reconnect_max_ms: { type: 'integer', minimum: 10, default: 60_000 },
    max_message_length: { type: 'integer', minimum: 200, maximum: 20_000, default: MAX_MARKDOWN_LENGTH },
  }),
  setup(api) {
    const adapter = createDingTalkAdapter(api.config, api.settings, api.log)
    registerPlatformAdapter(api, adapter)
  },
})
