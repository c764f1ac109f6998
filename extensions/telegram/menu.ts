// The gateway's slash commands as Telegram's command menu: derived from the central registry
// (gateway-scoped entries), names sanitised to Telegram's rules (1-32 of a-z, 0-9 and _), at most
// 100, descriptions trimmed to 256; and a picked menu entry (`/set_home@agentbot args`) turned back
// into the registry's `/set-home args` before the gateway sees it.

import { slashCommands, type CommandDefinition } from 'agent/sdk'

export const MAX_COMMANDS = 100
const MAX_DESCRIPTION = 256
const NAME = /^[a-z0-9_]{1,32}$/

export interface MenuCommand {
  command: string
  description: string
}

export interface Menu {
  commands: MenuCommand[]
  /** Sanitised menu name → the registry name it stands for (only where they differ). */
  renamed: Map<string, string>
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** A registry name in Telegram's alphabet: lower case, `-` and other separators as `_`; undefined if nothing is left. */
export function menuName(name: string): string | undefined {
  const sanitised = name.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 32)
  return NAME.test(sanitised) ? sanitised : undefined
}

/**
 * One menu entry per gateway slash command (aliases stay typed-only); of two names that sanitise
 * alike, the one already valid wins. `/help` is always offered: the gateway answers it even when no extension registers it.
 */
export function commandMenu(registry: readonly CommandDefinition[]): Menu {
  const commands: MenuCommand[] = []
  const renamed = new Map<string, string>()
  // Names Telegram takes as they are come first: a sanitised look-alike never displaces one.
  const offered = slashCommands(registry, 'gateway')
  const ordered = [...offered.filter((c) => NAME.test(c.name)), ...offered.filter((c) => !NAME.test(c.name))]
  for (const definition of ordered) {
    const name = menuName(definition.name)
    if (!name || commands.some((c) => c.command === name)) continue
    const hint = definition.argsHint?.trim()
    const text = `${definition.description.trim() || definition.name}${hint ? ` ${hint}` : ''}`
    commands.push({ command: name, description: cut(text.replace(/\s+/g, ' '), MAX_DESCRIPTION) })
    if (name !== definition.name) renamed.set(name, definition.name)
  }
  if (!commands.some((c) => c.command === 'help')) commands.push({ command: 'help', description: 'List the commands this agent understands' })
  commands.sort((a, b) => a.command.localeCompare(b.command))
  return { commands: commands.slice(0, MAX_COMMANDS), renamed }
}

/** Whether Telegram's current menu equals the wanted one (order matters: it is the menu's order). */
export function sameMenu(current: readonly MenuCommand[], wanted: readonly MenuCommand[]): boolean {
  return current.length === wanted.length && current.every((c, i) => c.command === wanted[i]!.command && c.description === wanted[i]!.description)
}

export type CommandAddress = { kind: 'none' } | { kind: 'ours'; text: string; addressed: boolean } | { kind: 'other-bot' }

/**
 * A message starting with `/word` or `/word@bot`: `other-bot` when addressed to another bot, else the
 * text with our `@botname` removed and a sanitised menu name mapped back to its registry name
 * (`addressed`: it named us explicitly).
 */
export function commandAddress(text: string, botUsername: string, renamed: ReadonlyMap<string, string>): CommandAddress {
  const match = /^\/([A-Za-z0-9_-]{1,64})(?:@([A-Za-z0-9_]{1,64}))?(?=\s|$)/.exec(text)
  if (!match) return { kind: 'none' }
  const [whole, word, bot] = match as unknown as [string, string, string | undefined]
  if (bot && bot.toLowerCase() !== botUsername.toLowerCase()) return { kind: 'other-bot' }
  const name = renamed.get(word.toLowerCase()) ?? word
  return { kind: 'ours', text: `/${name}${text.slice(whole.length)}`, addressed: Boolean(bot) }
}
