// The OpenTelemetry side, loaded only when traces are wanted (the SDK costs startup time): a Node
// tracer provider (AsyncLocalStorage context, so spans started inside a span's work nest under it),
// a batch processor and the OTLP/HTTP exporter, which read the standard OTEL_* variables themselves.

import { agentVersion, errorCode, type SpanHandle, type SpanOptions } from 'agent/sdk'

export { tracesWanted } from './traces-wanted.ts'

export interface Tracing {
  span<T>(name: string, options: SpanOptions, work: (span: SpanHandle) => Promise<T>): Promise<T>
  /** Sends what is buffered and unregisters the global provider (a reload registers a new one). */
  shutdown(): Promise<void>
}

export async function startTracing(): Promise<Tracing> {
  const [otel, { NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes, detectResources, envDetector }, { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ])
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the defaults.
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'agent', [ATTR_SERVICE_VERSION]: agentVersion() }).merge(detectResources({ detectors: [envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
  provider.register()
  const tracer = provider.getTracer('agent', agentVersion())
  const kinds = { server: otel.SpanKind.SERVER, client: otel.SpanKind.CLIENT, internal: otel.SpanKind.INTERNAL }
  const defined = (attributes: SpanOptions['attributes']) => Object.fromEntries(Object.entries(attributes ?? {}).filter(([, v]) => v !== undefined)) as Record<string, string | number | boolean>

  return {
    span(name, options, work) {
      return tracer.startActiveSpan(name, { kind: kinds[options.kind ?? 'internal'], attributes: defined(options.attributes) }, async (span) => {
        const handle: SpanHandle = {
          setAttributes: (attributes) => void span.setAttributes(defined(attributes)),
          rename: (next) => void span.updateName(next),
          fail: (message) => void span.setStatus({ code: otel.SpanStatusCode.ERROR, message }),
        }
        try {
          return await work(handle)
        } catch (error) {
          // The code only: an error's message may quote what it failed on.
          span.setStatus({ code: otel.SpanStatusCode.ERROR, message: errorCode(error) ?? 'error' })
          throw error
        } finally {
          span.end()
        }
      })
    },
    async shutdown() {
      try {
        await provider.shutdown()
      } finally {
        otel.trace.disable()
        otel.context.disable()
        otel.propagation.disable()
      }
    },
  }
}
