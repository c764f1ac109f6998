// The CLI dispatcher, derived from the command registry: every command with a `cli` part becomes an
// `agent <name>` yargs command (its subcommands nested) with the registry's description. Adding a
// command is one registry entry; nothing here lists commands by name. Plain JS so that `--help`
// can be answered from a registry snapshot before any TypeScript is loaded.

// yargs treats a key that is present but undefined as a setting (`default: undefined` drops a bare
// string option and makes an unpassed array `[undefined]`), so only defined keys are passed.
function defined(spec) {
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => value !== undefined))
}

function applyShape(y, command) {
  for (const [name, spec] of Object.entries(command.positionals ?? {})) {
    y = y.positional(name, defined({ type: spec.type ?? 'string', describe: spec.describe, choices: spec.choices, array: spec.array }))
  }
  for (const [name, spec] of Object.entries(command.options ?? {})) {
    y = y.option(name, defined({
      type: spec.type,
      alias: spec.alias,
      describe: spec.describe,
      default: spec.default,
      choices: spec.choices,
      demandOption: spec.demandOption,
      hidden: spec.hidden,
    }))
  }
  for (const [example, description] of command.examples ?? []) y = y.example(example, description)
  return y
}

function addCommand(y, name, aliases, description, command, path, run, reached) {
  return y.command({
    command: [command.args ? `${name} ${command.args}` : name, ...aliases],
    describe: description,
    builder: (yy) => {
      // yargs runs the builders of the matched commands outermost first: the last one is the command
      // a usage error is about (its flags and subcommands are what a typo was meant to be).
      reached.path = path
      reached.command = command
      let inner = applyShape(yy, command)
      const subs = Object.entries(command.subcommands ?? {})
      for (const [subName, sub] of subs) inner = addCommand(inner, subName, sub.aliases ?? [], sub.description, sub, [...path, subName], run, reached)
      if (subs.length > 0 && !command.run) inner = inner.demandCommand(1, `Name one of: ${subs.map(([n]) => n).join(', ')}`)
      return inner
    },
    handler: async (argv) => {
      if (command.run) await run(command, path, argv)
    },
  })
}

/** Registers the registry's CLI commands on a yargs instance; `reached` learns the deepest matched command. */
export function addRegistryCommands(y, commands, run, reached = {}) {
  const sorted = [...commands].filter((c) => c.cli).sort((a, b) => a.name.localeCompare(b.name))
  for (const definition of sorted) y = addCommand(y, definition.name, definition.aliases ?? [], definition.description, definition.cli, [definition.name], run, reached)
  return y
}

/** The flags yargs accepts everywhere (besides each command's own). */
export const GLOBAL_FLAGS = ['help', 'h', 'version', 'V', 'project-extensions']

/** Thrown by the parser's fail handler so that no command handler runs after a usage error. */
export class UsageError extends Error {
  constructor(message, reached) {
    super(message)
    this.name = 'UsageError'
    /** The command path and definition the error is about ([] and undefined: the top level). */
    this.path = reached.path ?? []
    this.command = reached.command
  }
}

/** The CLI's top-level command names and aliases (for the default-command decision). */
export function cliCommandNames(commands) {
  const names = new Set()
  for (const c of commands) {
    if (!c.cli) continue
    names.add(c.name)
    for (const alias of c.aliases ?? []) names.add(alias)
  }
  return names
}

/** `agent` alone, or `agent -c …`, means chat. */
export function withDefaultCommand(args, names) {
  const first = args[0]
  if (!names.has('chat') || first === '--help' || first === '-h' || first === '--version' || first === '-V') return args
  if (first === undefined || (first.startsWith('-') && !args.includes('--help') && !args.includes('-h'))) return ['chat', ...args]
  return args
}

/** The yargs parser of the `agent` command, for a list of command definitions. */
export function buildParser(yargs, commands, run, { version, columns }) {
  const reached = {}
  return addRegistryCommands(
    yargs()
      .scriptName('agent')
      .usage('agent <command> [options]\n\nA tool-using AI agent: chat, gateway, API server, tools, skills and plugins.')
      .version(version)
      .alias('version', 'V')
      .help('help')
      .alias('help', 'h')
      .option('project-extensions', { type: 'boolean', describe: 'Also load extensions from ./.agent/extensions (trust this project)' })
      .strict()
      .wrap(Math.min(110, columns ?? 100))
      .exitProcess(false)
      .showHelpOnFail(false)
      // Validation runs before a command's handler; throwing here (rather than only noting the
      // message) is what keeps the handler from running on a mistyped flag.
      .fail((message, error) => {
        if (error) throw error
        throw new UsageError(message ?? 'invalid usage', reached)
      })
      .epilogue("Run `agent <command> --help` for a command's options. Docs: README.md"),
    commands,
    run,
    reached,
  ).demandCommand(1, 'Name a command (see agent --help).')
}
