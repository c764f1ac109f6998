// Formatting shared by the core slash commands: durations, token counts, context fill (money: the
// sdk's formatUsd/costText, shared with insights and the status bar).

import type { ChatUsage } from 'agent/sdk'

export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`
  if (m > 0) return `${m}m ${String(sec).padStart(2, '0')}s`
  return `${sec}s`
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`
  if (n >= 10_000) return `${Math.round(n / 1000)}k`
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`
  return String(n)
}

export function contextLine(usage: ChatUsage): string {
  if (!usage.contextLength) return `${formatTokens(usage.contextTokens)} tokens (window size unknown)`
  const pct = Math.round((usage.contextTokens / usage.contextLength) * 100)
  return `${formatTokens(usage.contextTokens)} / ${formatTokens(usage.contextLength)} (${pct}%)`
}

/** Aligned `label: value` lines. */
export function table(rows: Array<[string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length))
  return rows.map(([label, value]) => `  ${(label + ':').padEnd(width + 2)}${value}`).join('\n')
}
