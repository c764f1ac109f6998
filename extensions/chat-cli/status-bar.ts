// The status bar line: model, context fill (coloured by threshold), cost (`display.show_cost`),
// duration and what is running. It always fits the terminal width: segments get shorter, then the
// least important ones are left out, then the model name is cut.

import { formatUsd } from 'agent/sdk'
import { textWidth, truncate, type Theme } from './theme.ts'

export interface StatusState {
  /** `provider:model` as shown. */
  model: string
  /** The model was switched for this session only. */
  sessionModel?: boolean
  contextTokens: number
  contextLength?: number
  costUsd?: number
  showCost: boolean
  elapsedMs: number
  busy: boolean
  /** What the running turn is doing (the running tools' names); "running" when not said. */
  activity?: string
  queued: number
  background: number
  /** A short transient hint (e.g. "Ctrl-C again to exit"); shown first. */
  note?: string
}

function tokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`
  if (n >= 10_000) return `${Math.round(n / 1000)}k`
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`
  return String(n)
}

export function duration(ms: number, compact = false): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (h > 0) return compact ? `${h}h${String(m).padStart(2, '0')}` : `${h}h ${String(m).padStart(2, '0')}m`
  if (m > 0) return compact ? `${m}m${String(sec).padStart(2, '0')}` : `${m}m ${String(sec).padStart(2, '0')}s`
  return `${sec}s`
}

interface Segment {
  /** Lower is more important. */
  priority: number
  full: string
  short: string
  /** Colours a rendered variant. */
  paint?: (text: string) => string
}

function segments(state: StatusState, theme: Theme): Segment[] {
  const list: Segment[] = []
  if (state.note) list.push({ priority: 0, full: state.note, short: state.note, paint: (t) => theme.bold(t) })
  const model = state.sessionModel ? `${state.model}*` : state.model
  list.push({ priority: 1, full: model, short: model })
  if (state.contextLength) {
    const fraction = state.contextTokens / state.contextLength
    const pct = `${Math.min(999, Math.round(fraction * 100))}%`
    list.push({ priority: 2, full: `ctx ${tokens(state.contextTokens)}/${tokens(state.contextLength)} ${pct}`, short: `ctx ${pct}`, paint: (t) => theme.level(fraction, t) })
  } else {
    list.push({ priority: 2, full: `ctx ${tokens(state.contextTokens)}`, short: tokens(state.contextTokens) })
  }
  if (state.showCost && state.costUsd !== undefined) list.push({ priority: 3, full: formatUsd(state.costUsd), short: formatUsd(state.costUsd) })
  list.push({ priority: 4, full: duration(state.elapsedMs), short: duration(state.elapsedMs, true) })
  const activity: string[] = []
  if (state.busy) activity.push(state.activity || 'running')
  if (state.queued) activity.push(`${state.queued} queued`)
  if (state.background) activity.push(`${state.background} bg`)
  if (activity.length) list.push({ priority: 5, full: `● ${activity.join(', ')}`, short: `●${state.busy ? '' : ' ' + activity.join(',')}` })
  return list
}

const SEP = ' │ '

/** The bar for `width` columns (one column is kept free so the last one is never written). */
export function renderStatusBar(state: StatusState, width: number, theme: Theme): string {
  const room = Math.max(1, width - 1)
  const parts = segments(state, theme).map((p) => ({ ...p, text: p.full }))
  const total = () => 2 + parts.reduce((sum, p) => sum + textWidth(p.text), 0) + SEP.length * (parts.length - 1)
  // Shorten the least important segments first, then leave them out; the model stays.
  while (total() > room) {
    const byLeastImportant = [...parts].sort((a, b) => b.priority - a.priority)
    const longer = byLeastImportant.find((p) => p.text !== p.short)
    if (longer) {
      longer.text = longer.short
      continue
    }
    const drop = byLeastImportant.find((p) => p.priority > 1)
    if (!drop) break
    parts.splice(parts.indexOf(drop), 1)
  }
  if (total() > room) {
    const longest = parts.reduce((a, b) => (textWidth(b.text) > textWidth(a.text) ? b : a))
    longest.text = truncate(longest.text, Math.max(1, textWidth(longest.text) - (total() - room)))
  }
  const line = ` ${parts.map((p) => p.paint?.(p.text) ?? p.text).join(SEP)} `
  return theme.bar(line + ' '.repeat(Math.max(0, room - textWidth(line))))
}
