// The CLI dispatcher, derived from the command registry: every command with a `cli` part becomes an
// `agent <name>` yargs command (its subcommands nested), with the registry's description and
// category. Adding a command is one registry entry; nothing here lists commands by name.

import type { Argv } from 'yargs'
import type { CliCommand, CliContext, CommandDefinition } from '../../sdk/types.ts'

export type RunCli = (command: CliCommand, path: string[], argv: CliContext['argv']) => Promise<void>

function applyShape(y: Argv, command: CliCommand): Argv {
  for (const [name, spec] of Object.entries(command.positionals ?? {})) {
    y = y.positional(name, { type: spec.type ?? 'string', describe: spec.describe, choices: spec.choices as any, array: spec.array })
  }
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    y = y.option(name, {
      type: spec.type,
      alias: spec.alias,
      describe: spec.describe,
      default: spec.default,
      choices: spec.choices as any,
      demandOption: spec.demandOption,
      hidden: spec.hidden,
    })
  }
  for (const [example, description] of command.examples ?? []) y = y.example(example, description)
  return y
}

function commandString(name: string, command: CliCommand): string {
  return command.args ? `${name} ${command.args}` : name
}

function addCommand(y: Argv, name: string, aliases: string[], description: string, command: CliCommand, path: string[], run: RunCli): Argv {
  return y.command({
    command: [commandString(name, command), ...aliases],
    describe: description,
    builder: (yy: Argv) => {
      let inner = applyShape(yy, command)
      const subs = Object.entries(command.subcommands ?? {})
      for (const [subName, sub] of subs) inner = addCommand(inner, subName, sub.aliases ?? [], sub.description, sub, [...path, subName], run)
      if (subs.length > 0 && !command.run) inner = inner.demandCommand(1, `Name one of: ${subs.map(([n]) => n).join(', ')}`)
      return inner
    },
    handler: async (argv: any) => {
      if (command.run) await run(command, path, argv)
    },
  })
}

/** Registers the registry's CLI commands on a yargs instance. */
export function addRegistryCommands(y: Argv, commands: readonly CommandDefinition[], run: RunCli): Argv {
  const sorted = [...commands].filter((c) => c.cli).sort((a, b) => a.name.localeCompare(b.name))
  for (const definition of sorted) {
    y = addCommand(y, definition.name, definition.aliases ?? [], definition.description, definition.cli!, [definition.name], run)
  }
  return y
}

/** The CLI's top-level command names and aliases (for the default-command decision). */
export function cliCommandNames(commands: readonly CommandDefinition[]): Set<string> {
  const names = new Set<string>()
  for (const c of commands) {
    if (!c.cli) continue
    names.add(c.name)
    for (const alias of c.aliases ?? []) names.add(alias)
  }
  return names
}
