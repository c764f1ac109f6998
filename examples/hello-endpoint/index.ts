// Example: an HTTP endpoint extension with its own validated config. Served on the `api` listener by
// `agent gateway run`; edit it while the gateway runs and the answer changes (hot reload).

import { defineExtension } from 'agent/sdk'

interface HelloConfig {
  greeting: string
}

export default defineExtension<HelloConfig>({
  name: 'hello-endpoint',
  version: '1.0.0',
  dependsOn: ['http'],
  configKey: 'hello',
  config: {
    type: 'object',
    properties: { greeting: { type: 'string', minLength: 1, default: 'Hello' } },
    additionalProperties: false,
  },
  setup(api) {
    api.endpoints.register({
      listener: 'api',
      method: 'GET',
      path: '/hello/:name',
      auth: 'api-key',
      handler(ctx) {
        ctx.body = { message: `${api.config.greeting}, ${ctx.params.name}!` }
      },
    })
  },
})
