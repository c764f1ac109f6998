// Operability: Prometheus metrics on `GET /metrics` and readiness on `GET /ready` (both on the API
// server's `api` listener, so only when it is enabled), and OpenTelemetry traces when the standard
// OTEL_* variables ask for them. prom-client and the OpenTelemetry SDK load at `ready`, only when
// used: `agent --help` and a gateway without them pay nothing.

import { defineExtension, deliverObservations, errorMessage, GATEWAY_SERVICE, HttpError, NO_SPAN, platformEnabled, TELEMETRY_SERVICE, type GatewayService, type HttpContext, type TelemetryService } from 'agent/sdk'
import type { Metrics } from './metrics.ts'
import { tracesWanted } from './traces-wanted.ts'
import type { Tracing } from './tracing.ts'

export default defineExtension({
  name: 'telemetry',
  version: '1.0.0',
  description: 'Prometheus /metrics, /ready for load balancers, OpenTelemetry traces (OTEL_*)',
  setup(api) {
    let metrics: Metrics | undefined
    let tracing: Tracing | undefined
    let draining = false

    // Without traces asked for, no span service at all: withSpan then runs the work directly, with
    // no service call per span (three a request). Metrics come from observe events either way.
    const traced = tracesWanted(process.env)
    if (traced) {
      const service: TelemetryService = {
        span: (name, options, work) => (tracing ? tracing.span(name, options, work) : work(NO_SPAN)),
      }
      api.services.provide(TELEMETRY_SERVICE, service)
    }
    api.hooks.observe.tap((event) => metrics?.record(event))

    const served = platformEnabled(api.settings, 'api_server', 'API_SERVER_ENABLED', () => false)
    if (served) {
      // Behind the API key like /v1/*: the listener refuses a non-loopback bind without one.
      api.endpoints.register({
        listener: 'api',
        method: 'GET',
        path: '/metrics',
        auth: 'api-key',
        handler: async (ctx: HttpContext) => {
          if (!metrics) throw new HttpError(503, 'Metrics are not collected in this process', { type: 'server_error', code: 'metrics_unavailable' })
          // Observations wait for the loop's next poll (sdk/observe.ts): a scrape read in that poll
          // would miss the requests answered just before it.
          deliverObservations()
          const { contentType, text } = await metrics.scrape()
          ctx.type = contentType
          ctx.body = text
        },
      })
      // For a load balancer: 200 once the API server runs, 503 while starting or draining.
      api.endpoints.register({
        listener: 'api',
        method: 'GET',
        path: '/ready',
        auth: 'none',
        handler: async (ctx: HttpContext) => {
          const gateway = api.services.get<GatewayService>(GATEWAY_SERVICE)
          const leaving = draining || gateway?.draining?.() === true
          const ready = !leaving && gateway?.status().find((s) => s.name === 'api_server')?.state === 'running'
          ctx.status = ready ? 200 : 503
          ctx.body = { status: ready ? 'ready' : leaving ? 'draining' : 'starting' }
        },
      })
    }

    api.hooks.ready.tapPromise(async ({ mode }) => {
      if (traced) {
        const { startTracing } = await import('./tracing.ts')
        try {
          tracing = await startTracing()
        } catch (error) {
          api.log.warn(`OpenTelemetry traces are off: ${errorMessage(error)}`)
        }
      }
      if (served && mode === 'gateway') {
        const [prom, { createMetrics }] = await Promise.all([import('prom-client'), import('./metrics.ts')])
        metrics = createMetrics(prom, api.services)
      }
    })
    // First of the shutdown taps: the load balancer sees 503 while runs finish.
    api.hooks.shutdown.tap({ stage: -1000 }, () => void (draining = true))
    const stopTracing = async () => {
      const current = tracing
      tracing = undefined
      await current?.shutdown().catch((error) => api.log.warn(`could not send the last traces: ${errorMessage(error)}`))
    }
    // Last: the spans of the runs that other shutdown taps wind down are sent.
    api.hooks.shutdown.tapPromise({ stage: 1000 }, stopTracing)
    api.onDispose(stopTracing)
  },
})
