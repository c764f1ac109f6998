// How a cost is written everywhere (/usage, `agent insights`, the chat status bar): dollars with
// enough digits for small sums, and one wording when no price is known.

/** `$0.00`, `$0.0042`, `$1.25`. */
export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00'
  if (usd < 0.01) return `$${usd.toFixed(4)}`
  return `$${usd.toFixed(2)}`
}

/**
 * A cost, or, when no price is known (`undefined`), `unknown (no price for <models>; set pricing in
 * config.yaml)`: a missing price is never shown as $0.
 */
export function costText(usd: number | undefined, unpricedModels: readonly string[] = []): string {
  if (usd !== undefined) return formatUsd(usd)
  const names = unpricedModels.length ? ` for ${unpricedModels.join(', ')}` : ''
  return `unknown (no price${names}; set pricing in config.yaml)`
}
