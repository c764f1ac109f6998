import type { CommandDefinition } from '../../sdk/types.ts'

export declare function isHelpRequest(args: string[]): boolean
export declare function fingerprint(options: { root: string; home: string; cwd: string; version: string }): string
export declare function writeSnapshot(options: { home: string; print: string; commands: readonly CommandDefinition[]; envRead: Iterable<string>; env: NodeJS.ProcessEnv }): void
export declare function helpFromSnapshot(options: { args: string[]; home: string; root: string; cwd: string; env: NodeJS.ProcessEnv; version: string; stdout: NodeJS.WritableStream & { columns?: number } }): Promise<boolean>
