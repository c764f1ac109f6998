// The smart-home platform (Home Assistant): the `homeassistant` gateway adapter (state-change events
// in, persistent notifications out) and the `homeassistant` toolset. Nothing connects during setup;
// the websocket libraries are imported on first use.

import { defineExtension } from 'agent/sdk'
import { createAdapter } from './adapter.ts'
import { HaClient, OnDemandConnection } from './client.ts'
import { CONFIG_SCHEMA, endpointOf, tokenOf, type HomeAssistantConfig } from './settings.ts'
import { homeAssistantTools } from './tools.ts'

export default defineExtension<HomeAssistantConfig>({
  name: 'smart-home',
  version: '1.0.0',
  description: 'Home Assistant: state-change events start agent runs; answers become notifications',
  dependsOn: ['gateway'],
  configKey: 'platforms.homeassistant',
  config: CONFIG_SCHEMA,
  setup(api) {
    const extra = () => api.config.extra
    const onDemand = new OnDemandConnection(() => {
      const endpoint = endpointOf(api.settings, extra())
      return HaClient.connect({ wsUrl: endpoint.wsUrl, baseUrl: endpoint.baseUrl, token: tokenOf(api.settings), log: api.log, pingIntervalMs: 0 })
    })
    const adapter = createAdapter({ extra, onDemand: () => onDemand.get() })
    api.adapters.register(adapter)
    for (const tool of homeAssistantTools(async () => adapter.connection() ?? (await onDemand.get()))) api.tools.register(tool)
    api.onDispose(async () => {
      onDemand.close()
      await adapter.stop()
    })
  },
})
