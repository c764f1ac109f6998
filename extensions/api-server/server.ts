// The working parts of the API server, built on first use (a request, or the adapter starting) so
// that loading the extension (every `agent --help`) stays cheap: the request handlers, the run
// admission, and the store (SQLite or PostgreSQL).

import { errorMessage, HTTP_SERVICE, knownSecretsRedactor, RUNTIME_SERVICE, type AdapterContext, type ExtensionApi, type HttpContext, type HttpService } from 'agent/sdk'
import { chatCompletions, type HandlerDeps } from './chat-completions.ts'
import { createIdempotencyStore, idempotent } from './idempotency.ts'
import type { ApiServerConfig, ServerOptions } from './options.ts'
import { createResponse, deleteResponse, getResponse, listInputItems } from './responses.ts'
import { BackgroundRuns, cancelResponse } from './background.ts'
import { Runs } from './runs.ts'
import { createApiStore } from './store.ts'

type Handler = (ctx: HttpContext) => unknown

export interface ApiServer {
  chatCompletions: Handler
  createResponse: Handler
  getResponse: Handler
  deleteResponse: Handler
  listInputItems: Handler
  cancelResponse: Handler
  /** Admits runs again, opens the store, makes sure the listener is up. */
  start(ctx: AdapterContext): Promise<void>
  /** Refuses new runs and waits for the running ones (SIGTERM; the gateway bounds the wait). */
  drain(): Promise<void>
  /** Refuses new runs, interrupts the running ones, writes pending heads. */
  stop(): Promise<void>
}

export function createApiServer(api: ExtensionApi<ApiServerConfig>, options: () => ServerOptions): ApiServer {
  const runs = new Runs(options().maxConcurrentRuns, api.services, api.settings, api.log, options().maxBackgroundRuns)
  const store = createApiStore(api.services, {
    capacity: options().capacity,
    onFlushError: (error) => api.log.warn(`response store housekeeping failed (session heads, read-stamps or eviction): ${errorMessage(error)}`),
    redactor: () => knownSecretsRedactor(api.settings),
  })
  const background = new BackgroundRuns()
  const deps: HandlerDeps = { options, runs: () => runs, store: () => store, background: () => background, services: api.services, warn: (message) => api.log.warn(message) }
  const idempotency = createIdempotencyStore(api.services, deps.warn, () => knownSecretsRedactor(api.settings))
  const keyed = (handler: Handler) => idempotent(idempotency, () => options().maxRequestBytes, deps.warn, handler)
  return {
    chatCompletions: keyed(chatCompletions(deps)),
    createResponse: keyed(createResponse(deps)),
    getResponse: getResponse(deps),
    deleteResponse: deleteResponse(deps),
    listInputItems: listInputItems(deps),
    cancelResponse: cancelResponse(deps),
    async start(ctx) {
      runs.resume()
      if (!ctx.services.has(RUNTIME_SERVICE)) ctx.log.warn('api_server: no agent runtime is loaded; requests that run the agent will fail')
      // Open the database and apply migrations now rather than on the first request.
      await store.warm()
      await ctx.services.get<HttpService>(HTTP_SERVICE)?.start()
    },
    drain: () => runs.drain(),
    async stop() {
      await runs.stop()
      await store.flush()
    },
  }
}
