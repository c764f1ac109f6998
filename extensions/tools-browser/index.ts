// The `browser` toolset: `/browser connect [url] | disconnect | status` attaches to a running
// browser through its DevTools debugging connection (playwright-core, loaded on first use), and the
// navigate/snapshot/click/type tools drive its active page. `security.website_blocklist` applies.

import { defineExtension, errorMessage } from 'agent/sdk'
import { BrowserSession } from './session.ts'
import { browserTools, type BrowserConfig } from './tools.ts'

export default defineExtension<BrowserConfig>({
  name: 'tools-browser',
  version: '1.0.0',
  configKey: 'browser',
  config: {
    type: 'object',
    properties: {
      cdp_url: { type: 'string', pattern: '^(https?|wss?)://', default: 'http://127.0.0.1:9222' },
      timeout: { type: 'number', exclusiveMinimum: 0, default: 30 },
      max_snapshot_chars: { type: 'integer', minimum: 500, default: 20_000 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as BrowserConfig
    const session = new BrowserSession(api.settings)
    for (const tool of browserTools(session, api.settings, config)) api.tools.register(tool)

    api.commands.register({
      name: 'browser',
      category: 'Tools',
      description: 'Attach to a running browser through its debugging connection',
      argsHint: 'connect [url] | disconnect | status',
      scope: 'cli',
      async slash(ctx) {
        const [action = 'status', target] = ctx.args.split(/\s+/).filter(Boolean)
        if (action === 'connect') {
          const url = target ?? api.settings.env('AGENT_BROWSER_CDP_URL') ?? config.cdp_url
          if (!/^(https?|wss?):\/\//.test(url)) return void (await ctx.reply(`Not a debugging address: ${url} (e.g. http://127.0.0.1:9222)`))
          try {
            const page = await session.connect(url, config.timeout * 1000)
            await ctx.reply(`Browser attached at ${url}; active page: ${page.url()}. Tools: browser_navigate, browser_snapshot, browser_click, browser_type.`)
          } catch (error) {
            await ctx.reply(`Could not attach to ${url}: ${errorMessage(error)}. Start the browser with --remote-debugging-port=9222.`)
          }
          return
        }
        if (action === 'disconnect') return void (await ctx.reply((await session.disconnect()) ? 'Browser detached (it keeps running).' : 'No browser was attached.'))
        if (action === 'status') {
          if (!session.connected) return void (await ctx.reply('No browser attached. Use /browser connect [url].'))
          const page = session.activePage()
          return void (await ctx.reply(`Attached to ${session.url}: ${await session.pages()} page(s); active: ${page.url()} "${await page.title()}"`))
        }
        await ctx.reply('Usage: /browser connect [url] | disconnect | status')
      },
    })
    api.onDispose(async () => {
      await session.disconnect()
    })
  },
})
