// The command registry's slash commands in the editor: advertised as ACP available commands (those
// offered on every chat surface: terminal-only and gateway-only ones are left out), and run when a
// prompt is one of them (`/name args`), their replies streamed as the answer. Anything else that
// looks like a slash command goes to the model as text.

import { resolveSlash, slashCommands, type ChatConversation, type CommandDefinition } from 'agent/sdk'
import type { AvailableCommand } from '@agentclientprotocol/sdk/unstable'
import type { UpdateQueue } from './turn.ts'

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

/** Runs it: every reply, or the one-line failure (`describe`: redacted), streams as answer text. */
export async function runSlash(found: NonNullable<ReturnType<typeof slashOf>>, chat: ChatConversation, updates: UpdateQueue, describe: (error: unknown) => string): Promise<void> {
  const say = (text: string) => updates.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: text.endsWith('\n') ? text : `${text}\n` } })
  try {
    await found.command.slash!({ args: found.args, invokedAs: found.invokedAs, surface: 'cli', source: { platform: 'acp' }, chat, reply: say })
  } catch (error) {
    say(`/${found.invokedAs}: ${describe(error)}`)
  }
  await updates.flush()
}
