// `agent insights [--days N] [--source S] [--json]` and `/insights [days]`: usage analytics from the
// session store (one registry entry for both), read through its interface only, so the figures are
// the same on SQLite and on PostgreSQL.

import { AgentError, defineExtension, INSIGHTS_SERVICE, pricingFor, SESSIONS_SERVICE, UsageError, type CliContext, type InsightsService, type SessionStore, type Services, type Settings } from 'agent/sdk'

function days(value: unknown, fallback = 30): number {
  if (value === undefined || value === '') return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 3650) throw new UsageError(`days must be a whole number from 1 to 3650 (got ${String(value)})`)
  return n
}

function store(services: Pick<Services, 'get'>): SessionStore {
  const s = services.get<SessionStore>(SESSIONS_SERVICE)
  if (!s) throw new AgentError('E_STATE', 'insights need the session store (extension sessions), which is not loaded')
  return s
}

const pricedIn = (settings: Settings) => (model: string) => pricingFor(settings, model) !== undefined

export default defineExtension({
  name: 'insights',
  version: '1.0.0',
  description: 'agent insights and /insights: usage analytics from the session store',
  setup(api) {
    // The same document for other surfaces (the dashboard's Usage page).
    api.services.provide<InsightsService>(INSIGHTS_SERVICE, {
      async collect({ days: n, source }) {
        const { collect } = await import('./analytics.ts')
        return { ...(await collect(store(api.services), days(n), source?.trim() || undefined, pricedIn(api.settings))) }
      },
    })
    api.commands.register({
      name: 'insights',
      category: 'Info',
      description: 'Usage analytics: sessions, tokens, cost, models, tools (default: last 30 days)',
      argsHint: '[days]',
      async slash(ctx) {
        const { collect, render } = await import('./analytics.ts')
        let n: number
        try {
          n = days(ctx.args.trim() || undefined)
        } catch (error) {
          return void (await ctx.reply(`Usage: /insights [days] (${(error as Error).message})`))
        }
        await ctx.reply(render(await collect(store(api.services), n, undefined, pricedIn(api.settings))))
      },
      cli: {
        options: {
          days: { type: 'number', default: 30, describe: 'How many days back (1-3650)' },
          source: { type: 'string', describe: 'Only sessions from this source (cli, api_server, telegram, cron …)' },
          json: { type: 'boolean', describe: 'Print one JSON document' },
        },
        async run(ctx: CliContext) {
          const { collect, render } = await import('./analytics.ts')
          const source = typeof ctx.argv.source === 'string' && ctx.argv.source.trim() ? ctx.argv.source.trim() : undefined
          const insights = await collect(store(ctx.services), days(ctx.argv.days), source, pricedIn(ctx.settings))
          if (ctx.argv.json) ctx.json(insights)
          else ctx.out(render(insights))
        },
      },
    })
  },
})
