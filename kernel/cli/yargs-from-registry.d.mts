import type { Argv } from 'yargs'
import type { CliCommand, CliContext, CommandDefinition } from '../../sdk/types.ts'

export type RunCli = (command: CliCommand, path: string[], argv: CliContext['argv']) => Promise<void>
export declare function addRegistryCommands(y: Argv, commands: readonly CommandDefinition[], run: RunCli): Argv
export declare function cliCommandNames(commands: readonly CommandDefinition[]): Set<string>
export declare function withDefaultCommand(args: string[], names: Set<string>): string[]
export declare function buildParser(
  yargs: (args?: string[]) => Argv,
  commands: readonly CommandDefinition[],
  run: RunCli,
  options: { version: string; columns?: number; onUsageError(message: string): void },
): Argv
