// What a running ACP turn hands to its tools' hooks as `session.extra.acpTurn`: the extension's
// beforeToolCall and afterToolCall taps (index.ts) call it, so the editor learns when a call really
// starts (every guard let it through) and what it returned.

import type { ToolCallOutcome } from 'agent/sdk'

export const TURN_KEY = 'acpTurn'

export interface TurnHooks {
  /** Every guard passed: the tool runs now. */
  toolStarting(callId: string): void
  /** The tool's result as the model will see it. */
  toolResult(callId: string, outcome: ToolCallOutcome): void
}

export function turnHooksOf(extra: Record<string, unknown> | undefined): TurnHooks | undefined {
  const hooks = extra?.[TURN_KEY] as Partial<TurnHooks> | undefined
  return hooks && typeof hooks.toolStarting === 'function' && typeof hooks.toolResult === 'function' ? (hooks as TurnHooks) : undefined
}
