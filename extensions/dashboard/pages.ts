// Every handler of the dashboard, built on the first request: each page's routes behind the gate,
// checked against the route list the endpoints were registered from.

import type { ExtensionApi, HttpContext } from 'agent/sdk'
import { registerChat } from './chat-api.ts'
import { registerGateway } from './gateway-api.ts'
import type { DashboardConfig } from './options.ts'
import { ROUTES } from './route-list.ts'
import { createServer } from './routes.ts'
import { registerSessions } from './sessions-api.ts'
import { registerSettings } from './settings-api.ts'
import { registerUsage } from './usage-api.ts'

export function buildHandlers(api: ExtensionApi<DashboardConfig>): Map<string, (ctx: HttpContext) => Promise<void>> {
  const { route, handlers } = createServer(api)
  registerChat(api, route)
  registerSessions(api, route)
  registerGateway(api, route)
  registerUsage(api, route)
  registerSettings(api, route)
  const listed = new Set(ROUTES.map(([method, path]) => `${method} ${path}`))
  const unlisted = [...handlers.keys()].filter((key) => !listed.has(key))
  const missing = [...listed].filter((key) => !handlers.has(key))
  if (unlisted.length || missing.length) throw new Error(`dashboard routes out of step with route-list.ts: unlisted ${unlisted.join(', ') || 'none'}; no handler ${missing.join(', ') || 'none'}`)
  return handlers
}
