// The gateway's slash commands as Discord application commands: derived from the central command
// registry (gateway-scoped slash entries), registered globally with one bulk overwrite when they
// differ from what Discord has, and an invocation turned back into the `/name args` text the gateway
// dispatches like a typed command.

import { slashCommands, type CommandDefinition } from 'agent/sdk'

/** Discord's caps: 100 global chat-input commands; names 1-32 lowercase; descriptions 1-100. */
const MAX_COMMANDS = 100
const NAME = /^[-_a-z0-9]{1,32}$/
export const ARGS_OPTION = 'args'

export interface ApplicationCommandOption {
  type: 3
  name: string
  description: string
  required: boolean
}

export interface ApplicationCommand {
  type: 1
  name: string
  description: string
  options: ApplicationCommandOption[]
}

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/**
 * One chat-input command per gateway slash command whose name Discord accepts (aliases stay typed
 * commands); a command with an argument hint gets one string option `args`, required when the hint
 * starts with `<`. `/help` is always offered: the gateway answers it even when no extension registers it.
 */
export function applicationCommands(commands: readonly CommandDefinition[]): ApplicationCommand[] {
  const list: ApplicationCommand[] = []
  for (const command of slashCommands(commands, 'gateway')) {
    if (!NAME.test(command.name) || list.some((c) => c.name === command.name)) continue
    const hint = command.argsHint?.trim()
    list.push({
      type: 1,
      name: command.name,
      description: cut(command.description.trim() || command.name, 100),
      options: hint ? [{ type: 3, name: ARGS_OPTION, description: cut(hint, 100), required: hint.startsWith('<') }] : [],
    })
  }
  if (!list.some((c) => c.name === 'help')) list.push({ type: 1, name: 'help', description: 'List the commands this agent understands', options: [] })
  return list.sort((a, b) => a.name.localeCompare(b.name)).slice(0, MAX_COMMANDS)
}

/** The comparable part of a command as Discord returns it (it adds ids, versions and defaults). */
function comparable(command: any): string {
  const options = (Array.isArray(command?.options) ? command.options : []).map((o: any) => ({ type: o?.type, name: o?.name, description: o?.description, required: Boolean(o?.required) }))
  return JSON.stringify({ type: command?.type ?? 1, name: command?.name, description: command?.description, options })
}

/** Whether Discord's current list differs from the wanted one (order does not matter). */
export function commandsDiffer(current: readonly unknown[], wanted: readonly ApplicationCommand[]): boolean {
  const a = current.map(comparable).sort()
  const b = wanted.map(comparable).sort()
  return a.length !== b.length || a.some((value, i) => value !== b[i])
}

/** The text a typed command would have: `/name args`. */
export function commandText(name: string, args: string | null | undefined): string {
  const rest = args?.trim()
  return rest ? `/${name} ${rest}` : `/${name}`
}
