// The messaging gateway: `agent gateway run` starts the HTTP listeners and every enabled adapter,
// runs until SIGINT/SIGTERM, then shuts down cleanly.

import { defineExtension, errorMessage, HTTP_SERVICE, type AdapterDefinition, type CliContext, type HttpService } from 'agent/sdk'

export default defineExtension({
  name: 'gateway',
  version: '1.0.0',
  dependsOn: ['http'],
  setup(api) {
    const started = new Map<string, AdapterDefinition>()

    async function startAdapters(): Promise<void> {
      for (const adapter of api.adapters.list()) {
        if (started.has(adapter.name) || !adapter.enabled(api.settings)) continue
        try {
          await adapter.start({ signal: api.signal, log: api.log, settings: api.settings, services: api.services })
          started.set(adapter.name, adapter)
          api.log.info(`adapter "${adapter.name}" started`)
        } catch (error) {
          api.log.error(`adapter "${adapter.name}" failed to start: ${errorMessage(error)}`)
        }
      }
    }

    async function stopAdapters(): Promise<void> {
      for (const [name, adapter] of [...started].reverse()) {
        try {
          await adapter.stop()
        } catch (error) {
          api.log.warn(`adapter "${name}" failed to stop: ${errorMessage(error)}`)
        }
        started.delete(name)
      }
    }

    api.commands.register({
      name: 'gateway',
      category: 'Gateway',
      description: 'Run the messaging gateway and the HTTP listeners',
      cli: {
        subcommands: {
          run: {
            description: 'Run the gateway in the foreground until Ctrl-C',
            async run(ctx: CliContext) {
              await ctx.start('gateway')
              await startAdapters()
              const http = ctx.services.get<HttpService>(HTTP_SERVICE)
              for (const name of http?.running() ?? []) ctx.err(`listening: ${name} on ${http!.address(name)!.url}`)
              ctx.err(`gateway running (adapters: ${[...started.keys()].join(', ') || 'none'}); Ctrl-C to stop`)
              await new Promise<void>((resolve) => {
                if (ctx.signal.aborted) return resolve()
                ctx.signal.addEventListener('abort', () => resolve(), { once: true })
              })
              ctx.err('gateway stopping')
              await stopAdapters()
            },
          },
        },
      },
    })
    api.onDispose(stopAdapters)
  },
})
