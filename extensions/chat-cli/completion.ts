// Tab completion of the interactive chat, derived from the command registry: slash command names and
// aliases offered on the CLI, then the first argument from the pipe list of a command's argsHint
// (`[none|low|high|show|hide]`). Prefix matching; a single match completes, several list.

import { editDistance, slashCommands, type CommandDefinition } from 'agent/sdk'

export interface Completion {
  /** The new buffer text, when it changed. */
  text?: string
  /** What matched, when more than one did. */
  candidates: string[]
}

function commonPrefix(words: string[]): string {
  if (words.length === 0) return ''
  let prefix = words[0]!
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1)
  return prefix
}

/** Choices of the first argument: every `a|b|c` group in the hint, e.g. `[list|enable|disable]`. */
export function argumentChoices(hint: string | undefined): string[] {
  if (!hint) return []
  const group = hint.match(/[[<(]([^\]>)]*\|[^\]>)]*)[\]>)]/)
  return group ? group[1]!.split('|').map((s) => s.trim()).filter((s) => /^[\w:.-]+$/.test(s)) : []
}

export function complete(commands: readonly CommandDefinition[], text: string): Completion {
  if (!text.startsWith('/') || text.includes('\n')) return { candidates: [] }
  const offered = slashCommands(commands, 'cli')
  const space = text.indexOf(' ')
  if (space < 0) {
    const word = text.slice(1).toLowerCase()
    const names = offered.flatMap((c) => [c.name, ...(c.aliases ?? [])]).filter((n) => n.startsWith(word)).sort()
    if (names.length === 1) return { text: `/${names[0]} `, candidates: [] }
    const prefix = commonPrefix(names)
    return { text: prefix.length > word.length ? `/${prefix}` : undefined, candidates: names.map((n) => `/${n}`) }
  }
  const name = text.slice(1, space).toLowerCase()
  const command = offered.find((c) => c.name === name || c.aliases?.includes(name))
  const rest = text.slice(space + 1)
  if (!command || /\s/.test(rest)) return { candidates: [] }
  const choices = argumentChoices(command.argsHint).filter((c) => c.startsWith(rest.toLowerCase()))
  if (choices.length === 1) return { text: `${text.slice(0, space + 1)}${choices[0]} `, candidates: [] }
  const prefix = commonPrefix(choices)
  return { text: prefix.length > rest.length ? `${text.slice(0, space + 1)}${prefix}` : undefined, candidates: choices }
}

/** The closest command names for an unknown one (`/modle` → `/model`). */
export function suggest(commands: readonly CommandDefinition[], word: string): string[] {
  const names = slashCommands(commands, 'cli').flatMap((c) => [c.name, ...(c.aliases ?? [])])
  const prefixed = names.filter((n) => n.startsWith(word) || word.startsWith(n))
  if (prefixed.length) return prefixed.slice(0, 3)
  return names.filter((n) => editDistance(n, word) <= 2).slice(0, 3)
}
