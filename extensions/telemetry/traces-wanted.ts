// Whether the standard OTEL_* variables ask for traces. Its own file: the extension decides at setup,
// without loading the tracing side, whether it offers the span service at all.

/** An OTLP endpoint, or OTEL_TRACES_EXPORTER=otlp; never with OTEL_SDK_DISABLED=true. */
export function tracesWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)
  if (exporters.length) return exporters.includes('otlp')
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
}
