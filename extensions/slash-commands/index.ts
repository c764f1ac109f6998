// The core slash commands, written once over the chat surface's ChatConversation (sdk/chat.ts) and
// offered on the CLI chat and the gateway per their scope. Feature-specific commands (/rollback,
// /browser, /reload-mcp, /plugins, /plan …) and those that share a name with an `agent` subcommand (/model,
// /tools, /insights, /update) are registered by their own extensions: one registry entry per name.

import { defineExtension } from 'agent/sdk'
import { infoCommands } from './info-commands.ts'
import { modelCommands } from './model-commands.ts'
import { sessionCommands } from './session-commands.ts'

export default defineExtension({
  name: 'slash-commands',
  version: '1.0.0',
  description: 'Core slash commands: /new /provider /reasoning /compress /title /usage /stop /queue /resume /background /statusbar /help /quit',
  setup(api) {
    for (const command of [...sessionCommands(), ...modelCommands(api), ...infoCommands(api)]) api.commands.register(command)
  },
})
