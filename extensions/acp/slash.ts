// The command registry's slash commands in the editor: advertised as ACP available commands (those
// offered on every chat surface: terminal-only and gateway-only ones are left out), and run when a
// prompt is one of them (`/name args`), their replies streamed as the answer. Anything else that
// looks like a slash command goes to the model as text.

import { resolveSlash, slashCommands, type CommandDefinition, type SlashContext } from 'agent/sdk'
import type { AvailableCommand } from '@agentclientprotocol/sdk/unstable'

/** Commands offered in an editor. */
export function editorCommands(commands: readonly CommandDefinition[]): CommandDefinition[] {
  return slashCommands(commands, 'cli').filter((c) => (c.scope ?? 'both') === 'both')
}

export function availableCommands(commands: readonly CommandDefinition[]): AvailableCommand[] {
  return editorCommands(commands).map((c) => ({ name: c.name, description: c.description, ...(c.argsHint ? { input: { hint: c.argsHint } } : {}) }))
}

/** The prompt as an offered slash command, or undefined (it is a message for the model). */
export function slashOf(commands: readonly CommandDefinition[], text: string): { command: CommandDefinition; invokedAs: string; args: string } | undefined {
  const resolved = resolveSlash(editorCommands(commands), text, 'cli')
  return resolved && 'command' in resolved ? resolved : undefined
}

/** Runs it; every reply is passed to `reply` (the answer chunks). */
export async function runSlash(found: NonNullable<ReturnType<typeof slashOf>>, context: Pick<SlashContext, 'chat' | 'reply'>): Promise<void> {
  await found.command.slash!({ args: found.args, invokedAs: found.invokedAs, surface: 'cli', source: { platform: 'acp' }, ...context })
}
