// The one line a usage error prints: what was wrong, the nearest real command or flag when one is
// close ("did you mean"), and where the command's options are listed. The names come from the
// command registry, so a new command or flag is suggested without any list here.

import { closestNames } from '../../sdk/closest.ts'
import type { CliCommand, CommandDefinition } from '../../sdk/types.ts'
import { GLOBAL_FLAGS } from './yargs-from-registry.mjs'

export interface UsageFailure {
  message: string
  /** The matched command path ([] at the top level) and its definition. */
  path: string[]
  command?: CliCommand
}

const camel = (name: string) => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
const asFlag = (name: string) => (name.length === 1 ? `-${name}` : `--${name}`)

/** A near miss is one or two edits away, and never on a name so short that everything is near. */
function nearest(name: string, known: Iterable<string>): string | undefined {
  const max = name.length >= 4 ? 2 : name.length >= 2 ? 1 : 0
  return max === 0 ? undefined : closestNames(name, [...new Set(known)], max)[0]
}

function flagNames(command: CliCommand | undefined): string[] {
  const names = GLOBAL_FLAGS.filter((f) => f.length > 1)
  for (const [name, spec] of Object.entries(command?.options ?? {})) {
    if (spec.hidden) continue
    names.push(name)
    for (const alias of [spec.alias ?? []].flat()) if (alias.length > 1) names.push(alias)
  }
  return names
}

function subcommandNames(path: string[], command: CliCommand | undefined, commands: readonly CommandDefinition[]): string[] | undefined {
  if (path.length === 0) return commands.filter((c) => c.cli).flatMap((c) => [c.name, ...(c.aliases ?? [])])
  const subs = Object.entries(command?.subcommands ?? {})
  return subs.length > 0 ? subs.flatMap(([name, sub]) => [name, ...(sub.aliases ?? [])]) : undefined
}

/** Whether `name` was typed as a flag (`--name`, `--name=…`, `--no-name`, `-n` in a cluster). */
function typedAsFlag(name: string, args: readonly string[]): boolean {
  return args.some((a) => {
    if (a.startsWith('--')) {
      const given = a.slice(2).split('=')[0]!
      return given === name || given === `no-${name}` || camel(given) === name
    }
    return name.length === 1 && /^-[^-]/.test(a) && a.slice(1).includes(name)
  })
}

function describeUnknown(name: string, failure: UsageFailure, args: readonly string[], commands: readonly CommandDefinition[]): string {
  if (typedAsFlag(name, args)) {
    const near = nearest(name, flagNames(failure.command))
    return `unknown option ${asFlag(name)}${near ? ` (did you mean ${asFlag(near)}?)` : ''}`
  }
  const subs = subcommandNames(failure.path, failure.command, commands)
  if (!subs) return `unexpected argument "${name}"`
  const near = nearest(name, subs)
  const where = failure.path.length > 0 ? `agent ${failure.path.join(' ')} ` : 'agent '
  return `unknown command "${name}"${near ? ` (did you mean \`${where}${near}\`?)` : ''}`
}

/** One line (no newline) for a usage error, e.g. `unknown option --delivr (did you mean --deliver?); see \`agent cron add --help\``. */
export function usageLine(failure: UsageFailure, args: readonly string[], commands: readonly CommandDefinition[]): string {
  const see = `see \`agent ${[...failure.path, '--help'].join(' ')}\``
  const unknown = /^Unknown arguments?: (.*)$/s.exec(failure.message)
  if (/^Not enough non-option arguments/.test(failure.message) && failure.command?.args) {
    return `missing arguments; usage: agent ${failure.path.join(' ')} ${failure.command.args}; ${see}`
  }
  // yargs' own sentences ("Missing required argument: …"), on one line and in the same voice.
  if (!unknown) return `${failure.message.replace(/\s*\n\s*/g, ' ').replace(/^[A-Z](?=[a-z])/, (c) => c.toLowerCase())}; ${see}`
  const names = unknown[1]!.split(', ').map((n) => n.replace(/^"(.*)"$/, '$1'))
  // yargs reports `--dry-run` twice, as dry-run and as its camelCase twin.
  const distinct = names.filter((n) => !names.some((m) => m !== n && camel(m) === n))
  return `${distinct.map((n) => describeUnknown(n, failure, args, commands)).join('; ')}; ${see}`
}
