// Tracing as extensions see it: the `telemetry` service (extension `telemetry`) runs a piece of work
// inside a span, child of the span active where it is called. Without the service, or with tracing
// off, `withSpan` just runs the work: callers never branch on whether traces are collected.

import type { Services } from './types.ts'

export const TELEMETRY_SERVICE = 'telemetry'

export type SpanAttributes = Record<string, string | number | boolean | undefined>

export interface SpanHandle {
  setAttributes(attributes: SpanAttributes): void
  /** The span's name once more is known (an HTTP request's route after routing). */
  rename(name: string): void
  /** Marks the span failed; the message must already be free of secrets. */
  fail(message: string): void
}

export interface SpanOptions {
  kind?: 'server' | 'client' | 'internal'
  attributes?: SpanAttributes
}

export interface TelemetryService {
  /** Runs `work` inside a span; a thrown error marks it failed and is rethrown. */
  span<T>(name: string, options: SpanOptions, work: (span: SpanHandle) => Promise<T>): Promise<T>
}

/** A span that records nothing (tracing off). */
export const NO_SPAN: SpanHandle = Object.freeze({ setAttributes() {}, rename() {}, fail() {} })

/** `work` in a span when the telemetry service is loaded, else `work` alone. */
export function withSpan<T>(services: Pick<Services, 'get'>, name: string, options: SpanOptions, work: (span: SpanHandle) => Promise<T>): Promise<T> {
  const telemetry = services.get<TelemetryService>(TELEMETRY_SERVICE)
  return telemetry ? telemetry.span(name, options, work) : work(NO_SPAN)
}
