import type { Argv } from 'yargs'
import type { CliCommand, CliContext, CommandDefinition } from '../../sdk/types.ts'

export type RunCli = (command: CliCommand, path: string[], argv: CliContext['argv']) => Promise<void>
export interface Reached { path?: string[]; command?: CliCommand }
export declare function addRegistryCommands(y: Argv, commands: readonly CommandDefinition[], run: RunCli, reached?: Reached): Argv
export declare const GLOBAL_FLAGS: string[]
export declare class UsageError extends Error {
  constructor(message: string, reached: Reached)
  readonly path: string[]
  readonly command?: CliCommand
}
export declare function cliCommandNames(commands: readonly CommandDefinition[]): Set<string>
export declare function withDefaultCommand(args: string[], names: Set<string>): string[]
export declare function buildParser(
  yargs: (args?: string[]) => Argv,
  commands: readonly CommandDefinition[],
  run: RunCli,
  options: { version: string; columns?: number },
): Argv
