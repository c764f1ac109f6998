// The `runtime` service: the conversation loop every surface runs the agent through (CLI chat,
// API server, gateway, cron, delegation), plus compression, personalities and the offered tools.

import { defineExtension, RUNTIME_SERVICE, SESSIONS_SERVICE, type RuntimeService, type SessionStore } from 'agent/sdk'
import { personalityList, personalityPrompt } from './prompt.ts'
import { RUNTIME_SETTINGS } from './settings-schema.ts'
import { offeredTools, toolSchemas } from './tools.ts'

export default defineExtension({
  name: 'runtime',
  version: '1.0.0',
  description: 'The agent loop: model calls, tool calls through the hooks, sessions, compression',
  settings: RUNTIME_SETTINGS,
  setup(api) {
    // The loop's modules load on first use (every `agent` command sets this extension up), once.
    let loop: Promise<typeof import('./run.ts')> | undefined
    let compaction: Promise<typeof import('./compaction.ts')> | undefined
    const service: RuntimeService = {
      run: async (request) => (await (loop ??= import('./run.ts'))).runConversation(api, request),
      compress: async (sessionId, options = {}) => (await (compaction ??= import('./compaction.ts'))).compressStored(api, sessionId, options.signal),
      personalities: () => personalityList(api.settings),
      async setPersonality(sessionId, name) {
        if (name) personalityPrompt(api.settings, name)
        await api.services.require<SessionStore>(SESSIONS_SERVICE).update(sessionId, { personality: name || undefined })
      },
      offeredTools: (options) => toolSchemas(offeredTools(api, options)),
    }
    api.services.provide<RuntimeService>(RUNTIME_SERVICE, service)
  },
})
