// A registered CLI subcommand run in-process on a test kernel, the way `agent <name> <sub>` runs it:
// what it wrote and its exit code (a thrown AgentError gives its own code, as the bin would).

import type { CliContext, CommandDefinition } from '../types.ts'
import type { TestKernel } from './test-kernel.ts'

export interface CommandRun {
  code: number
  stdout: string
  stderr: string
}

export async function runSubcommand(k: Pick<TestKernel, 'kernel'>, [name, sub]: [string, string], argv: Record<string, unknown> = {}): Promise<CommandRun> {
  const out: string[] = []
  const err: string[] = []
  const { kernel } = k
  const ctx = { argv: { _: [name, sub], ...argv }, out: (s: string) => void out.push(s), err: (s: string) => void err.push(s), json: (v: unknown) => void out.push(JSON.stringify(v)), settings: kernel.settings, services: kernel.services, signal: new AbortController().signal } as unknown as CliContext
  const command = kernel.registries.commands.get(name) as CommandDefinition | undefined
  const run = command?.cli?.subcommands?.[sub]?.run
  if (!run) throw new Error(`no command "${name} ${sub}" is registered`)
  try {
    const code = (await run(ctx)) ?? 0
    return { code, stdout: out.join('\n'), stderr: err.join('\n') }
  } catch (error: any) {
    return { code: typeof error?.exitCode === 'number' ? error.exitCode : 1, stdout: out.join('\n'), stderr: `${err.join('\n')}\nagent: ${error?.message ?? String(error)}` }
  }
}
