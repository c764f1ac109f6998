// The `web` toolset: web_search and web_extract on one of two backends (firecrawl, parallel;
// `web.backend`, else the one whose key is present), web_crawl on the crawl-capable backend only,
// and the `web` service listing the backends and their keys for `agent doctor` and `agent tools`.
// `security.website_blocklist` applies to every URL.

import { defineExtension, WEB_SERVICE, type WebService } from 'agent/sdk'
import { BACKENDS } from './backends.ts'
import { selectBackend, webTools, type WebConfig } from './tools.ts'

export default defineExtension<WebConfig>({
  name: 'tools-web',
  version: '1.0.0',
  configKey: 'web',
  config: {
    type: 'object',
    properties: {
      backend: { enum: ['firecrawl', 'parallel'] },
      timeout: { type: 'number', exclusiveMinimum: 0, default: 60 },
      crawl_timeout: { type: 'number', exclusiveMinimum: 0, default: 300 },
      crawl_poll_interval: { type: 'number', exclusiveMinimum: 0, default: 2 },
      max_chars: { type: 'integer', minimum: 500, default: 20_000 },
      max_results: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      crawl_limit: { type: 'integer', minimum: 1, maximum: 50, default: 10 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as WebConfig
    for (const tool of webTools(config, api.settings)) api.tools.register(tool)
    const service: WebService = {
      current() {
        const picked = selectBackend(api.settings, config)
        return 'error' in picked ? undefined : picked.name
      },
      backends: () => BACKENDS.map((b) => ({ name: b.name, label: b.label, envKeys: b.envKeys, configured: b.configured(api.settings), crawl: b.canCrawl })),
    }
    api.services.provide(WEB_SERVICE, service)
  },
})
