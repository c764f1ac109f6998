// Every request, seen from outside the error envelope (so with its final status): a server span
// around it when traces are on, and an `http.request` observe event (listener, method, route
// template — never the raw path, which may carry ids — status, duration) for metrics.

import { performance } from 'node:perf_hooks'
import { observeLater, withSpan, type ExtensionApi } from 'agent/sdk'
import type { RequestInstrument } from './server.ts'

export function requestInstrument(api: ExtensionApi<any>, listener: string): RequestInstrument {
  return async (ctx, next, route) => {
    const started = performance.now()
    try {
      await withSpan(api.services, ctx.method, { kind: 'server', attributes: { 'http.request.method': ctx.method, 'agent.listener': listener } }, async (span) => {
        try {
          await next()
        } finally {
          const template = route()
          if (template) span.rename(`${ctx.method} ${template}`)
          span.setAttributes({ 'http.route': template, 'http.response.status_code': ctx.status })
          if (ctx.status >= 500) span.fail(`status ${ctx.status}`)
        }
      })
    } finally {
      observeLater(api, { type: 'http.request', listener, method: ctx.method, route: route() ?? '(unmatched)', status: ctx.status, durationMs: performance.now() - started })
    }
  }
}
