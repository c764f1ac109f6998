// The terminal sandbox's mode, read in one place: tools-terminal runs commands by it, and the
// approvals guard asks about `outside_sandbox` only when the sandbox may be on. An unknown value is
// an error, never "off": a typo must not take the sandbox away.

import type { Settings } from './types.ts'

export type TerminalSandboxMode = 'auto' | 'bwrap' | 'off'
export const TERMINAL_SANDBOX_MODES: readonly TerminalSandboxMode[] = ['auto', 'bwrap', 'off']

/**
 * `AGENT_TERMINAL_SANDBOX` wins over `terminal.sandbox` (`configured`: the extension's validated
 * config, else read from the settings; default `auto`); throws on anything else.
 */
export function terminalSandboxMode(settings: Pick<Settings, 'env' | 'get'>, configured: unknown = settings.get<unknown>('terminal.sandbox') ?? 'auto'): TerminalSandboxMode {
  const fromEnv = settings.env('AGENT_TERMINAL_SANDBOX')?.trim()
  const [value, from] = fromEnv ? [fromEnv, 'AGENT_TERMINAL_SANDBOX'] : [configured, 'terminal.sandbox']
  if ((TERMINAL_SANDBOX_MODES as readonly unknown[]).includes(value)) return value as TerminalSandboxMode
  throw new Error(`${from} must be one of ${TERMINAL_SANDBOX_MODES.join(', ')} (got ${JSON.stringify(value)})`)
}
