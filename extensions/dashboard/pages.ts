// Every route of the dashboard, registered once during setup where the dashboard is served.

import type { ExtensionApi } from 'agent/sdk'
import { registerChat } from './chat-api.ts'
import type { DashboardConfig } from './options.ts'
import { createServer } from './routes.ts'
import { registerSessions } from './sessions-api.ts'

export function registerPages(api: ExtensionApi<DashboardConfig>): void {
  const { route } = createServer(api)
  registerChat(api, route)
  registerSessions(api, route)
}
