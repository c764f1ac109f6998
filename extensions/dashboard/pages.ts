// Every route of the dashboard, registered once during setup where the dashboard is served.

import type { ExtensionApi } from 'agent/sdk'
import { registerChat } from './chat-api.ts'
import { registerGateway } from './gateway-api.ts'
import type { DashboardConfig } from './options.ts'
import { createServer } from './routes.ts'
import { registerSessions } from './sessions-api.ts'
import { registerSettings } from './settings-api.ts'
import { registerUsage } from './usage-api.ts'

export function registerPages(api: ExtensionApi<DashboardConfig>): void {
  const { route } = createServer(api)
  registerChat(api, route)
  registerSessions(api, route)
  registerGateway(api, route)
  registerUsage(api, route)
  registerSettings(api, route)
}
