// The Usage page's API: the document `agent insights --json` prints (the insights service), so the
// plots show the same numbers.

import { HttpError, INSIGHTS_SERVICE, type ExtensionApi, type InsightsService } from 'agent/sdk'
import type { DashboardConfig } from './options.ts'
import type { Route } from './routes.ts'

export function registerUsage(api: ExtensionApi<DashboardConfig>, route: Route): void {
  route('GET', '/api/usage', 'read', async (ctx) => {
    const insights = api.services.get<InsightsService>(INSIGHTS_SERVICE)
    if (!insights) throw new HttpError(503, 'The insights extension is not loaded', { code: 'no_insights' })
    const days = ctx.query.days === undefined ? 30 : Number(ctx.query.days)
    const source = typeof ctx.query.source === 'string' ? ctx.query.source : undefined
    try {
      ctx.body = await insights.collect({ days, source })
    } catch (error) {
      if ((error as { code?: string }).code === 'E_USAGE') throw new HttpError(400, (error as Error).message, { param: 'days' })
      throw error
    }
  })
}
