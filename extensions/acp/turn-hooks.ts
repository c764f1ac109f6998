// What a running ACP turn hands to its tools' hooks as `session.extra.acpTurn`: the extension's
// last beforeToolCall tap (index.ts) calls it, so the editor learns when a call really starts (every
// guard let it through). What a call returned comes with the run's `tool.end` event.

export const TURN_KEY = 'acpTurn'

export interface TurnHooks {
  /** Every guard passed: the tool runs now. */
  toolStarting(callId: string): void
}

export function turnHooksOf(extra: Record<string, unknown> | undefined): TurnHooks | undefined {
  const hooks = extra?.[TURN_KEY] as Partial<TurnHooks> | undefined
  return hooks && typeof hooks.toolStarting === 'function' ? (hooks as TurnHooks) : undefined
}
