// The Prometheus side: one registry per extension load (never prom-client's global one, so a hot
// reload starts clean), fed by `observe` events and, at scrape time, by the gateway's adapter states.
// Labels are bounded: route templates (never raw paths), tool and model names, exit reasons.

import { ADAPTER_STATES, GATEWAY_SERVICE, type GatewayService, type ObservedEvent, type Services } from 'agent/sdk'

type PromClient = typeof import('prom-client')

export interface Metrics {
  record(event: ObservedEvent): void
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; text: string }>
}

export function createMetrics(prom: PromClient, services: Pick<Services, 'get'>): Metrics {
  const register = new prom.Registry()
  prom.collectDefaultMetrics({ register })
  const registers = [register]
  const requests = new prom.Counter({ name: 'agent_http_requests_total', help: 'HTTP requests answered, by listener, method, route template and status', labelNames: ['listener', 'method', 'route', 'status'], registers })
  const latency = new prom.Histogram({ name: 'agent_http_request_duration_seconds', help: 'HTTP request latency, by listener, method and route template', labelNames: ['listener', 'method', 'route'], buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120], registers })
  const runs = new prom.Counter({ name: 'agent_runs_total', help: 'Agent runs ended, by exit reason (completed, interrupted, max_iterations, tool_calls, error) and source platform', labelNames: ['exit_reason', 'source'], registers })
  const running = new prom.Gauge({ name: 'agent_runs_in_progress', help: 'Agent runs under way', registers })
  const modelCalls = new prom.Counter({ name: 'agent_model_calls_total', help: 'Model calls, by model', labelNames: ['model'], registers })
  const tokens = new prom.Counter({ name: 'agent_tokens_total', help: 'Tokens reported by the provider, by model and direction (input, output)', labelNames: ['model', 'direction'], registers })
  const tools = new prom.Counter({ name: 'agent_tool_calls_total', help: 'Tool calls, by tool and outcome (ok, error)', labelNames: ['tool', 'outcome'], registers })
  const blocked = new prom.Counter({ name: 'agent_tool_calls_blocked_total', help: 'Tool calls a guard (approvals, checkpoints…) refused, by tool', labelNames: ['tool'], registers })
  const statuses = () => services.get<GatewayService>(GATEWAY_SERVICE)?.status() ?? []
  new prom.Gauge({
    name: 'agent_adapter_state',
    help: 'Gateway adapters: 1 for the state each is in, 0 for the others',
    labelNames: ['adapter', 'state'],
    registers,
    collect() {
      this.reset()
      for (const status of statuses()) {
        for (const state of ADAPTER_STATES) this.set({ adapter: status.name, state }, status.state === state ? 1 : 0)
      }
    },
  })
  // The gateway's own counts per adapter, read at scrape time (AdapterStatus).
  const perAdapter = (name: string, help: string, pick: (s: ReturnType<typeof statuses>[number]) => number | undefined) =>
    new prom.Gauge({
      name,
      help,
      labelNames: ['adapter'],
      registers,
      collect() {
        this.reset()
        for (const status of statuses()) this.set({ adapter: status.name }, pick(status) ?? 0)
      },
    })
  perAdapter('agent_outbox_queued', 'Replies waiting in the outbox, by adapter', (s) => s.queued)
  perAdapter('agent_outbox_failed', 'Replies given up since the gateway started, by adapter', (s) => s.failedDeliveries)
  perAdapter('agent_messages_dropped', 'Inbound messages dropped on purpose since the gateway started, by adapter', (s) => s.dropped)

  const text = (value: unknown, fallback: string) => (typeof value === 'string' && value ? value : fallback)
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0)

  return {
    record(event) {
      switch (event.type) {
        case 'http.request':
          requests.inc({ listener: text(event.listener, ''), method: text(event.method, ''), route: text(event.route, '(unmatched)'), status: String(event.status) })
          latency.observe({ listener: text(event.listener, ''), method: text(event.method, ''), route: text(event.route, '(unmatched)') }, count(event.durationMs) / 1000)
          break
        case 'run.start':
          running.inc()
          break
        case 'run.end':
        case 'run.error':
          running.dec()
          runs.inc({ exit_reason: event.type === 'run.error' ? 'error' : text(event.exitReason, 'unknown'), source: text(event.source, 'none') })
          break
        case 'model.call': {
          const model = text(event.model, 'unknown')
          const usage = (event.usage ?? {}) as { inputTokens?: unknown; outputTokens?: unknown }
          modelCalls.inc({ model })
          tokens.inc({ model, direction: 'input' }, count(usage.inputTokens))
          tokens.inc({ model, direction: 'output' }, count(usage.outputTokens))
          break
        }
        case 'tool.call':
          tools.inc({ tool: text(event.tool, 'unknown'), outcome: event.ok === true ? 'ok' : 'error' })
          break
        case 'tool.blocked':
          blocked.inc({ tool: text(event.tool, 'unknown') })
          break
      }
    },
    async scrape() {
      return { contentType: register.contentType, text: await register.metrics() }
    },
  }
}
