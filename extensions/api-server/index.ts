// The API server (adapter `api_server`, listener `api`): the agent behind the chat-completions and
// responses shapes, so any frontend speaking them can use it. Endpoints are registered only when it
// is enabled (API_SERVER_ENABLED=true or platforms.api_server.enabled); the http extension serves
// them with the listener's bearer key, CORS origins and error envelope.

import { DATABASE_SERVICE, defineExtension, errorMessage, HTTP_SERVICE, RUNTIME_SERVICE, type DatabaseService, type HttpService } from 'agent/sdk'
import { chatCompletions, type HandlerDeps } from './chat-completions.ts'
import { CONFIG_SCHEMA, isEnabled, resolveOptions, type ApiServerConfig, type ServerOptions } from './options.ts'
import { createResponse, deleteResponse, getResponse } from './responses.ts'
import { Runs } from './runs.ts'
import { ApiStore } from './store.ts'

export default defineExtension<ApiServerConfig>({
  name: 'api-server',
  version: '1.0.0',
  description: 'OpenAI-compatible HTTP API: chat completions, responses, models',
  dependsOn: ['http', 'state-db'],
  configKey: 'platforms.api_server',
  config: CONFIG_SCHEMA,
  setup(api) {
    let options: ServerOptions | undefined
    let runs: Runs | undefined
    let store: ApiStore | undefined
    const deps: HandlerDeps = {
      options: () => (options ??= resolveOptions(api.config, api.settings)),
      runs: () => (runs ??= new Runs(deps.options().maxConcurrentRuns, api.services, api.settings, api.log)),
      store: () =>
        (store ??= new ApiStore(
          () => api.services.require<DatabaseService>(DATABASE_SERVICE),
          deps.options().capacity,
          (error) => api.log.warn(`could not record session heads: ${errorMessage(error)}`),
        )),
      services: api.services,
      warn: (message) => api.log.warn(message),
    }
    const enabled = () => isEnabled(api.config, api.settings)

    api.adapters.register({
      name: 'api_server',
      description: 'OpenAI-compatible HTTP API (API_SERVER_HOST:API_SERVER_PORT, default 127.0.0.1:8642)',
      enabled,
      async start(ctx) {
        deps.runs().resume()
        if (!ctx.services.has(RUNTIME_SERVICE)) ctx.log.warn('api_server: no agent runtime is loaded; requests that run the agent will fail')
        // Open state.db and apply migrations now rather than on the first request.
        deps.store().warm()
        await ctx.services.get<HttpService>(HTTP_SERVICE)?.start()
      },
      async stop() {
        await runs?.stop()
        store?.flush()
      },
    })
    if (!enabled()) return

    const startedAt = Math.floor(Date.now() / 1000)
    const health = { status: 'ok', platform: 'agent', version: api.version }
    const route = (method: 'GET' | 'POST' | 'DELETE', path: string, auth: 'none' | 'api-key', handler: (ctx: any) => unknown) =>
      api.endpoints.register({ listener: 'api', method, path, auth, handler: handler as never })

    route('GET', '/health', 'none', (ctx) => void (ctx.body = health))
    route('GET', '/v1/health', 'none', (ctx) => void (ctx.body = health))
    route('GET', '/v1/models', 'api-key', (ctx) => {
      const id = deps.options().modelName
      ctx.body = { object: 'list', data: [{ id, object: 'model', created: startedAt, owned_by: 'agent', permission: [], root: id, parent: null }] }
    })
    route('POST', '/v1/chat/completions', 'api-key', chatCompletions(deps))
    route('POST', '/v1/responses', 'api-key', createResponse(deps))
    route('GET', '/v1/responses/:id', 'api-key', getResponse(deps))
    route('DELETE', '/v1/responses/:id', 'api-key', deleteResponse(deps))

    // Runs in flight end (interrupted) before the runtime and the listener go away; pending head
    // writes reach state.db before it closes (state-db unloads after us: we depend on it).
    api.hooks.shutdown.tapPromise(async () => {
      await runs?.stop()
      store?.flush()
    })
    api.onDispose(async () => {
      await runs?.stop()
      store?.flush()
    })
  },
})
