// Token usage and cost of a run: per call as reported by the provider, priced from the provider's
// own cost or from config `pricing.<model>` (USD per million tokens), summed per run.

import { pricingFor, type Settings, type Usage } from 'agent/sdk'

export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
}

/** The call's usage with its cost filled in when it can be known. */
export function pricedUsage(settings: Settings, model: string, usage: Partial<Usage> | undefined): Usage {
  const inputTokens = Math.max(0, Math.round(usage?.inputTokens ?? 0))
  const outputTokens = Math.max(0, Math.round(usage?.outputTokens ?? 0))
  const out: Usage = { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens }
  if (usage?.reasoningTokens !== undefined) out.reasoningTokens = usage.reasoningTokens
  if (typeof usage?.costUsd === 'number' && Number.isFinite(usage.costUsd)) out.costUsd = usage.costUsd
  else {
    const price = pricingFor(settings, model)
    if (price) out.costUsd = (inputTokens * price.input + outputTokens * price.output) / 1_000_000
  }
  return out
}

export function addUsage(total: Usage, call: Usage): void {
  total.inputTokens += call.inputTokens
  total.outputTokens += call.outputTokens
  total.totalTokens += call.totalTokens
  if (call.reasoningTokens !== undefined) total.reasoningTokens = (total.reasoningTokens ?? 0) + call.reasoningTokens
  if (call.costUsd !== undefined) total.costUsd = (total.costUsd ?? 0) + call.costUsd
}
