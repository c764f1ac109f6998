// The HTTP host: named listeners (api on 8642, webhook on 8644, more from config), each started in
// gateway mode only if some endpoint is registered on it, each with one dispatcher over the live
// endpoint registry. Other extensions reach it through the `http` service.

import { defineExtension, errorMessage, HTTP_SERVICE, type EndpointDefinition, type HttpService } from 'agent/sdk'
import { resolveListener, type ListenerOverride } from './listeners.ts'
import type { RunningListener } from './server.ts'

export default defineExtension<{ listeners: Record<string, ListenerOverride> }>({
  name: 'http',
  version: '1.0.0',
  configKey: 'http',
  config: {
    type: 'object',
    properties: {
      listeners: {
        type: 'object',
        default: {},
        additionalProperties: {
          type: 'object',
          properties: {
            host: { type: 'string' },
            port: { type: 'integer', minimum: 0, maximum: 65535 },
            key_env: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' },
            cors_origins: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
            // Bounded above so a YAML .inf (or a typo'd huge value) is a config error, not "never".
            headers_timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
            request_timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 3600 },
            max_connections: { type: 'integer', minimum: 1, maximum: 65536 },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  setup(api) {
    const running = new Map<string, RunningListener>()
    const starting = new Map<string, Promise<void>>()
    let active = false
    const refused = new Set<string>()
    const secrets = () => api.settings.secretValues()

    const wanted = () => new Set(api.endpoints.list().map((e: EndpointDefinition) => e.listener))

    const startOne = (name: string): Promise<void> => {
      if (running.has(name)) return Promise.resolve()
      const pending = starting.get(name)
      if (pending) return pending
      const run = (async () => {
        const { startListener } = await import('./server.ts')
        const config = resolveListener(name, api.settings, api.config.listeners)
        const { requestInstrument } = await import('./instrument.ts')
        running.set(name, await startListener(config, api.endpoints, api.log, secrets, requestInstrument(api, name)))
      })().finally(() => starting.delete(name))
      starting.set(name, run)
      return run
    }

    const service: HttpService = {
      async start() {
        active = true
        const names = [...wanted()]
        const results = await Promise.allSettled(names.map(startOne))
        refused.clear()
        results.forEach((r, i) => r.status === 'rejected' && refused.add(names[i]!))
        const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')
        if (failed) throw failed.reason
      },
      address: (name) => running.get(name)?.address(),
      running: () => [...running.keys()],
      async stop() {
        active = false
        await Promise.all([...running.values()].map((l) => l.close()))
        running.clear()
      },
    }
    api.services.provide(HTTP_SERVICE, service)

    // Endpoints registered later (hot reload) bring their listener up.
    api.endpoints.subscribe(() => {
      if (!active) return
      // A listener whose start was already refused (its port in use) was reported by start(); only
      // another start() tries it again, not every endpoint registered after it.
      for (const name of wanted()) if (!running.has(name) && !refused.has(name)) startOne(name).catch((error) => api.log.error(errorMessage(error)))
    })
    api.hooks.ready.tapPromise({ stage: 100 }, async ({ mode }) => {
      if (mode === 'gateway') await service.start()
    })
    api.onDispose(() => service.stop())
  },
})
