// The API server (adapter `api_server`, listener `api`): the agent behind the chat-completions and
// responses shapes, so any frontend speaking them can use it. Endpoints are registered only when it
// is enabled (API_SERVER_ENABLED=true or platforms.api_server.enabled); the http extension serves
// them with the listener's bearer key, CORS origins and error envelope.

import { agentVersion, defineExtension, HttpError, STORAGE_SERVICE, type GatewayAdapter, type HttpContext, type StorageService } from 'agent/sdk'
import { PG_MIGRATIONS as IDEMPOTENCY_PG_MIGRATIONS } from './idempotency-pg.ts'
import { CONFIG_SCHEMA, isEnabled, resolveOptions, type ApiServerConfig, type ServerOptions } from './options.ts'
import type { ApiServer } from './server.ts'
import { PG_MIGRATIONS as STORE_PG_MIGRATIONS } from './store-pg.ts'

export default defineExtension<ApiServerConfig>({
  name: 'api-server',
  version: '1.0.0',
  description: 'OpenAI-compatible HTTP API: chat completions, responses, models',
  dependsOn: ['http', 'state-db', 'storage'],
  configKey: 'platforms.api_server',
  config: CONFIG_SCHEMA,
  setup(api) {
    // The PostgreSQL schema, for `agent storage migrate-to` (the stores migrate on first use).
    const storage = api.services.require<StorageService>(STORAGE_SERVICE)
    storage.declare('api-server', STORE_PG_MIGRATIONS)
    storage.declare('api-server-idempotency', IDEMPOTENCY_PG_MIGRATIONS)
    let options: ServerOptions | undefined
    const currentOptions = () => (options ??= resolveOptions(api.config, api.settings))
    // Handlers, run admission and the store load on first use, not with the extension.
    let loading: Promise<ApiServer> | undefined
    let server: ApiServer | undefined
    const load = () => (loading ??= import('./server.ts').then((m) => (server = m.createApiServer(api, currentOptions))))
    const enabled = () => isEnabled(api.config, api.settings)

    api.adapters.register({
      name: 'api_server',
      description: 'OpenAI-compatible HTTP API (API_SERVER_HOST:API_SERVER_PORT, default 127.0.0.1:8642)',
      enabled,
      start: async (ctx) => (await load()).start(ctx),
      stop: async () => server?.stop(),
      drain: async () => server?.drain(),
      // HTTP intake: every gateway instance serves it (no lease).
      everyInstance: true,
    } as GatewayAdapter)
    if (!enabled()) return

    const startedAt = Math.floor(Date.now() / 1000)
    // The agent's version (as `agent --version` prints it), not this extension's.
    const health = { status: 'ok', platform: 'agent', version: agentVersion() }
    const route = (method: 'GET' | 'POST' | 'DELETE', path: string, auth: 'none' | 'api-key', handler: (ctx: HttpContext) => unknown) =>
      api.endpoints.register({ listener: 'api', method, path, auth, handler: handler as (ctx: HttpContext) => Promise<void> })
    const lazy = (pick: (s: ApiServer) => (ctx: HttpContext) => unknown) => async (ctx: HttpContext) => void (await pick(await load())(ctx))

    route('GET', '/health', 'none', (ctx) => void (ctx.body = health))
    route('GET', '/v1/health', 'none', (ctx) => void (ctx.body = health))
    const modelEntry = () => {
      const id = currentOptions().modelName
      return { id, object: 'model', created: startedAt, owned_by: 'agent', permission: [], root: id, parent: null }
    }
    route('GET', '/v1/models', 'api-key', (ctx) => void (ctx.body = { object: 'list', data: [modelEntry()] }))
    route('GET', '/v1/models/:model', 'api-key', (ctx) => {
      const entry = modelEntry()
      if (ctx.params.model !== entry.id) throw new HttpError(404, `The model '${ctx.params.model}' does not exist`, { param: 'model', code: 'model_not_found' })
      ctx.body = entry
    })
    route('POST', '/v1/chat/completions', 'api-key', lazy((s) => s.chatCompletions))
    route('POST', '/v1/responses', 'api-key', lazy((s) => s.createResponse))
    route('GET', '/v1/responses/:id', 'api-key', lazy((s) => s.getResponse))
    route('DELETE', '/v1/responses/:id', 'api-key', lazy((s) => s.deleteResponse))
    route('GET', '/v1/responses/:id/input_items', 'api-key', lazy((s) => s.listInputItems))
    route('POST', '/v1/responses/:id/cancel', 'api-key', lazy((s) => s.cancelResponse))

    // Runs in flight end (interrupted) before the runtime and the listener go away; pending head
    // writes reach state.db before it closes (state-db unloads after us: we depend on it).
    api.hooks.shutdown.tapPromise(async () => {
      await server?.stop()
    })
    api.onDispose(async () => {
      await server?.stop()
    })
  },
})
