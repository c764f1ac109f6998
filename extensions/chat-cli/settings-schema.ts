// `display.*`: how the chat shows things (read by the chat, and show_reasoning and the notification
// level by the gateway too). Declared here so `agent config set` checks them and `config show`
// shows their defaults.

import { BACKGROUND_NOTIFICATION_LEVELS, type JsonSchema } from 'agent/sdk'

export const DISPLAY_SETTINGS: Readonly<Record<string, JsonSchema>> = {
  display: {
    type: 'object',
    additionalProperties: false,
    properties: {
      theme: { enum: ['light', 'dark'], description: 'unset: guessed from COLORFGBG' },
      statusbar: { type: 'boolean', default: true },
      show_cost: { type: 'boolean', default: true },
      show_reasoning: { type: 'boolean', default: false },
      background_process_notifications: { enum: [...BACKGROUND_NOTIFICATION_LEVELS] },
    },
  },
}
