// Every route of the dashboard, registered once when it is first served.

import type { ExtensionApi } from 'agent/sdk'
import type { DashboardConfig } from './options.ts'
import { createServer } from './routes.ts'

export function registerPages(api: ExtensionApi<DashboardConfig>): void {
  createServer(api)
}
