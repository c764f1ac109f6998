// Usage analytics over the session store: sessions active in the last N days (optionally of one
// source), their messages, model calls, tokens and cost, models used, busiest days, and the tools
// called (counted over the most recent sessions, to stay fast on a large store).

import { costText, formatUsd, type SessionRecord, type SessionStore } from 'agent/sdk'

/** The report, as `agent insights --json` prints it (snake_case like every --json output). */
export interface Insights {
  days: number
  source: string | null
  since: string
  sessions: number
  by_source: Record<string, number>
  messages: number
  api_calls: number
  tokens: { input: number; output: number; reasoning: number; total: number }
  /** Sum over the sessions whose cost is known; null when none is (never a made-up $0). */
  cost_usd: number | null
  /** Models of sessions whose cost is unknown (no provider figure, no `pricing.<model>`). */
  unpriced_models: string[]
  models: Array<{ model: string; sessions: number; tokens: number }>
  /** Sessions per day, oldest first (UTC dates); cost_usd null when no session of the day has a known cost. */
  daily: Array<{ date: string; sessions: number; tokens: number; api_calls: number; cost_usd: number | null }>
  /** How long sessions are, in messages: fixed buckets ('1-2', '3-5', '6-10', '11-20', '21-50', '51+'). */
  session_lengths: Array<{ messages: string; sessions: number }>
  tools: Array<{ tool: string; calls: number }>
  /** How many sessions the tool counts cover. */
  tool_sessions: number
}

/** Whether a model has a configured price (`pricing.<model>`). */
export type PricedModel = (model: string) => boolean

/** Session length buckets: label and the most messages in it. */
const LENGTH_BUCKETS: Array<[string, number]> = [['1-2', 2], ['3-5', 5], ['6-10', 10], ['11-20', 20], ['21-50', 50], ['51+', Infinity]]

const PAGE = 1000
const MAX_SESSIONS = 200_000
const TOOL_SESSIONS = 200

/**
 * A session's stored cost is 0 both when it was free and when no price was known, so a cost counts
 * as known when it is above 0 (the provider reported it, or a price applied) or its model has a price.
 */
export async function collect(store: SessionStore, days: number, source: string | undefined, priced: PricedModel, now = Date.now()): Promise<Insights> {
  const cutoff = now - days * 86_400_000
  const sessions: SessionRecord[] = []
  for (let offset = 0; offset < MAX_SESSIONS; offset += PAGE) {
    const page = await store.list({ limit: PAGE, offset, ...(source ? { source } : {}) })
    for (const s of page) if (s.updatedAt >= cutoff) sessions.push(s)
    if (page.length < PAGE || (page[page.length - 1]?.updatedAt ?? 0) < cutoff) break
  }
  const bySource: Record<string, number> = {}
  const models = new Map<string, { sessions: number; tokens: number }>()
  const daily = new Map<string, { sessions: number; tokens: number; api_calls: number; cost_usd: number | null }>()
  const lengths = LENGTH_BUCKETS.map(([label]) => ({ messages: label, sessions: 0 }))
  const tokens = { input: 0, output: 0, reasoning: 0, total: 0 }
  let messages = 0
  let apiCalls = 0
  let costUsd: number | null = null
  const unpriced = new Set<string>()
  for (const s of sessions) {
    bySource[s.source] = (bySource[s.source] ?? 0) + 1
    messages += s.messageCount
    apiCalls += s.apiCalls
    tokens.input += s.usage.inputTokens
    tokens.output += s.usage.outputTokens
    tokens.reasoning += s.usage.reasoningTokens
    tokens.total += s.usage.totalTokens
    const costKnown = s.usage.costUsd > 0 || (s.model !== undefined && priced(s.model))
    if (costKnown) costUsd = (costUsd ?? 0) + s.usage.costUsd
    else unpriced.add(s.model ?? '(unknown model)')
    lengths[LENGTH_BUCKETS.findIndex(([, max]) => s.messageCount <= max)]!.sessions++
    const name = s.model ? `${s.provider ? `${s.provider}:` : ''}${s.model}` : '(unknown)'
    const m = models.get(name) ?? { sessions: 0, tokens: 0 }
    m.sessions++
    m.tokens += s.usage.totalTokens
    models.set(name, m)
    const date = new Date(s.updatedAt).toISOString().slice(0, 10)
    const d = daily.get(date) ?? { sessions: 0, tokens: 0, api_calls: 0, cost_usd: null }
    d.sessions++
    d.tokens += s.usage.totalTokens
    d.api_calls += s.apiCalls
    if (costKnown) d.cost_usd = (d.cost_usd ?? 0) + s.usage.costUsd
    daily.set(date, d)
  }
  const tools = new Map<string, number>()
  const sampled = sessions.slice(0, TOOL_SESSIONS)
  for (const s of sampled) {
    for (const m of await store.messages(s.id)) for (const call of m.toolCalls ?? []) tools.set(call.name, (tools.get(call.name) ?? 0) + 1)
  }
  return {
    days,
    source: source ?? null,
    since: new Date(cutoff).toISOString(),
    sessions: sessions.length,
    by_source: bySource,
    messages,
    api_calls: apiCalls,
    tokens,
    cost_usd: costUsd,
    unpriced_models: [...unpriced].sort(),
    models: [...models].map(([model, v]) => ({ model, ...v })).sort((a, b) => b.sessions - a.sessions || b.tokens - a.tokens),
    daily: [...daily].map(([date, v]) => ({ date, ...v })).sort((a, b) => a.date.localeCompare(b.date)),
    session_lengths: lengths,
    tools: [...tools].map(([tool, calls]) => ({ tool, calls })).sort((a, b) => b.calls - a.calls || a.tool.localeCompare(b.tool)),
    tool_sessions: sampled.length,
  }
}

function num(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`
  if (n >= 10_000) return `${Math.round(n / 1000)}k`
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`
  return String(n)
}

const BARS = '▁▂▃▄▅▆▇█'

function sparkline(values: number[]): string {
  const max = Math.max(...values, 1)
  return values.map((v) => (v === 0 ? ' ' : BARS[Math.min(7, Math.floor((v / max) * 7.999))])).join('')
}

/** Every day of the window, zero-filled, for the activity line. */
function series(insights: Insights, now: number): number[] {
  const byDate = new Map(insights.daily.map((d) => [d.date, d.sessions]))
  const out: number[] = []
  for (let i = Math.min(insights.days, 90) - 1; i >= 0; i--) out.push(byDate.get(new Date(now - i * 86_400_000).toISOString().slice(0, 10)) ?? 0)
  return out
}

export function render(i: Insights, now = Date.now()): string {
  const scope = `${i.source ? `source ${i.source}` : 'all sources'}`
  if (i.sessions === 0) return `No sessions in the last ${i.days} day${i.days === 1 ? '' : 's'} (${scope}).`
  const lines = [`Usage in the last ${i.days} day${i.days === 1 ? '' : 's'} (${scope}):`]
  const row = (label: string, value: string) => lines.push(`  ${(label + ':').padEnd(13)}${value}`)
  const sources = Object.entries(i.by_source).sort((a, b) => b[1] - a[1]).map(([s, n]) => `${s} ${n}`).join(', ')
  row('sessions', `${i.sessions}${i.source ? '' : ` (${sources})`}`)
  row('messages', String(i.messages))
  row('model calls', String(i.api_calls))
  row('tokens', `${num(i.tokens.total)} (input ${num(i.tokens.input)}, output ${num(i.tokens.output)}${i.tokens.reasoning ? `, reasoning ${num(i.tokens.reasoning)}` : ''})`)
  const unknown = i.unpriced_models.length ? costText(undefined, i.unpriced_models) : ''
  row('cost', i.cost_usd === null ? unknown : `${formatUsd(i.cost_usd)}${unknown && ` + ${unknown}`}`)
  row('models', i.models.slice(0, 5).map((m) => `${m.model} (${m.sessions})`).join(', '))
  const busiest = [...i.daily].sort((a, b) => b.sessions - a.sessions)[0]
  if (busiest) row('busiest day', `${busiest.date} (${busiest.sessions} session${busiest.sessions === 1 ? '' : 's'})`)
  row('activity', `${sparkline(series(i, now))} (sessions per day, oldest left)`)
  row('tools', i.tools.length ? i.tools.slice(0, 8).map((t) => `${t.tool} ${t.calls}`).join(', ') + (i.tool_sessions < i.sessions ? ` (latest ${i.tool_sessions} sessions)` : '') : 'none called')
  return lines.join('\n')
}
