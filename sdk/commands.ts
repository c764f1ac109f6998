// Everything that is derived from the central command registry: the slash-command resolver, the
// gateway's known-command set, help texts, messenger menus and the workspace-chat subcommand map.
// Adding a command or alias is one registry entry; these functions pick it up.

import type { CommandDefinition } from './types.ts'

export type ChatSurface = 'cli' | 'gateway'

function offeredOn(command: CommandDefinition, surface: ChatSurface): boolean {
  if (!command.slash) return false
  const scope = command.scope ?? 'both'
  return scope === 'both' || scope === surface
}

/** Slash commands offered on a surface, sorted by category then name. */
export function slashCommands(commands: readonly CommandDefinition[], surface: ChatSurface): CommandDefinition[] {
  return commands
    .filter((c) => offeredOn(c, surface))
    .sort((a, b) => a.category.localeCompare(b.category) || a.name.localeCompare(b.name))
}

export interface ResolvedSlash {
  command: CommandDefinition
  invokedAs: string
  args: string
}

/** Whether a line of user input is a slash command at all (`/word`), as opposed to text. */
export function isSlashInput(text: string): boolean {
  return /^\/[A-Za-z][\w-]*(\s|$)/.test(text.trim())
}

/**
 * Resolves `/name args` against the commands offered on a surface. Returns undefined for text that is
 * not a slash command, and `{ unknown }` for one that names no offered command.
 */
export function resolveSlash(
  commands: readonly CommandDefinition[],
  text: string,
  surface: ChatSurface,
): ResolvedSlash | { unknown: string } | undefined {
  const trimmed = text.trim()
  if (!isSlashInput(trimmed)) return undefined
  const space = trimmed.search(/\s/)
  const word = (space === -1 ? trimmed.slice(1) : trimmed.slice(1, space)).toLowerCase()
  // Telegram-style menus send `/cmd@botname`.
  const name = word.split('@')[0] ?? word
  const args = space === -1 ? '' : trimmed.slice(space).trim()
  for (const command of commands) {
    if (!offeredOn(command, surface)) continue
    if (command.name === name || command.aliases?.includes(name)) return { command, invokedAs: name, args }
  }
  return { unknown: name }
}

/** Every name and alias the gateway recognises as a command (anything else is passed to the agent). */
export function gatewayKnownCommands(commands: readonly CommandDefinition[]): Set<string> {
  const known = new Set<string>()
  for (const command of slashCommands(commands, 'gateway')) {
    known.add(command.name)
    for (const alias of command.aliases ?? []) known.add(alias)
  }
  return known
}

/** The `/help` text of a surface, grouped by category. */
export function helpText(commands: readonly CommandDefinition[], surface: ChatSurface): string {
  const lines: string[] = []
  let category = ''
  for (const command of slashCommands(commands, surface)) {
    if (command.category !== category) {
      category = command.category
      if (lines.length > 0) lines.push('')
      lines.push(`${category}:`)
    }
    const hint = command.argsHint ? ` ${command.argsHint}` : ''
    const aliases = command.aliases?.length ? ` (also ${command.aliases.map((a) => `/${a}`).join(', ')})` : ''
    lines.push(`  /${command.name}${hint} - ${command.description}${aliases}`)
  }
  return lines.join('\n')
}

export interface MenuEntry {
  command: string
  description: string
}

/**
 * Messenger command menus (Telegram-style `setMyCommands`): lowercase names of 1-32 characters from
 * [a-z0-9_], descriptions of at most 256 characters; names that cannot be expressed are left out.
 */
export function messengerMenu(commands: readonly CommandDefinition[]): MenuEntry[] {
  const entries: MenuEntry[] = []
  for (const command of slashCommands(commands, 'gateway')) {
    const name = command.name.toLowerCase().replace(/-/g, '_')
    if (!/^[a-z0-9_]{1,32}$/.test(name)) continue
    const hint = command.argsHint ? ` ${command.argsHint}` : ''
    entries.push({ command: name, description: `${command.description}${hint}`.slice(0, 256) })
  }
  return entries
}

/** Workspace-chat `/agent <sub>` map: every gateway name and alias → the canonical command name. */
export function workspaceSubcommandMap(commands: readonly CommandDefinition[]): Record<string, string> {
  const map: Record<string, string> = {}
  for (const command of slashCommands(commands, 'gateway')) {
    map[command.name] = command.name
    for (const alias of command.aliases ?? []) map[alias] = command.name
  }
  return map
}
