// The workspace-chat subcommand map: Slack gets one native slash command (`/agent` by default) whose
// first word names a gateway command of the central registry (`/agent model gpt-5`, `/agent new`). A
// subcommand becomes the `/name args` text the gateway dispatches like a typed command; `help` (or
// nothing) lists them. Derived from the registry on every use, so a hot reload is picked up at once.

import { slashCommands, workspaceSubcommandMap, type CommandDefinition } from 'agent/sdk'

export type Subcommand =
  | { kind: 'command'; text: string; name: string }
  | { kind: 'help' }
  | { kind: 'unknown'; word: string }

/** What `/agent <text>` asks for. */
export function resolveSubcommand(commands: readonly CommandDefinition[], text: string): Subcommand {
  const trimmed = text.trim().replace(/^\//, '')
  const space = trimmed.search(/\s/)
  const word = (space === -1 ? trimmed : trimmed.slice(0, space)).toLowerCase()
  const args = space === -1 ? '' : trimmed.slice(space).trim()
  // `help` lists the subcommands, even where a gateway /help exists (that one lists `/name` commands).
  if (word === '' || word === 'help') return { kind: 'help' }
  const map = workspaceSubcommandMap(commands)
  if (Object.hasOwn(map, word)) return { kind: 'command', name: map[word]!, text: args ? `/${word} ${args}` : `/${word}` }
  return { kind: 'unknown', word }
}

/** The subcommand names, sorted: every gateway command's canonical name, plus `help`. */
export function subcommandNames(commands: readonly CommandDefinition[]): string[] {
  return [...new Set([...slashCommands(commands, 'gateway').map((c) => c.name), 'help'])].sort()
}

/** The help text of the slash command `slash` (e.g. `/agent`), grouped by category. */
export function subcommandHelp(commands: readonly CommandDefinition[], slash: string): string {
  const lines = [`Use \`${slash} <subcommand> [arguments]\`:`]
  let category = ''
  for (const command of slashCommands(commands, 'gateway')) {
    if (command.category !== category) {
      category = command.category
      lines.push('', `**${category}**`)
    }
    const hint = command.argsHint ? ` ${command.argsHint}` : ''
    const aliases = command.aliases?.length ? ` (also ${command.aliases.join(', ')})` : ''
    lines.push(`\`${slash} ${command.name}${hint}\` - ${command.description}${aliases}`)
  }
  if (!slashCommands(commands, 'gateway').some((c) => c.name === 'help')) lines.push('', `\`${slash} help\` - this list`)
  return lines.join('\n')
}

/** The manifest's usage hint: as many subcommand names as fit in 100 characters. */
export function usageHint(commands: readonly CommandDefinition[], max = 100): string {
  const names = ['help', ...subcommandNames(commands).filter((n) => n !== 'help')]
  let list = ''
  for (const name of names) {
    const next = list ? `${list} | ${name}` : name
    if (`[${next} | …] [arguments]`.length > max) return `[${list} | …] [arguments]`
    list = next
  }
  return `[${list}] [arguments]`
}
