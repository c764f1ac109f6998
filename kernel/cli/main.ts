// `agent …`: creates the kernel, loads the extensions, derives the yargs CLI from the command
// registry and runs one command. Errors end as one line on stderr (a stack only with AGENT_DEBUG);
// exit codes: 0 success, 1 failure at run time, 2 bad usage or invalid input.

import yargs from 'yargs'
import { AgentError, errorMessage } from '../../sdk/errors.ts'
import { redactSecrets } from '../../sdk/redact.ts'
import { agentVersion } from '../../sdk/version.ts'
import type { CliCommand, CliContext, RunMode } from '../../sdk/types.ts'
import { createKernel, type Kernel } from '../kernel.ts'
import { AGENT_ROOT } from '../loader/jiti.ts'
import { checkConfigVersion } from '../config/migrate.ts'
import { buildParser, cliCommandNames, UsageError, withDefaultCommand } from './yargs-from-registry.mjs'
import { usageLine } from './usage-hint.ts'
import { fingerprint, isHelpRequest, writeSnapshot } from './help-snapshot.mjs'
import { homePaths, resolveAgentHome } from '../config/home.ts'
import { readEnvFile } from '../config/env-file.ts'
import { collectSecrets } from '../config/secrets.ts'
import { ownerOfStack } from '../process-guard.ts'
import { holdStdout, namedCommand, type StdoutHold } from '../stdout-guard.ts'

export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }
  stderr: NodeJS.WritableStream
  stdin: NodeJS.ReadableStream & { isTTY?: boolean }
  env: NodeJS.ProcessEnv
  cwd: string
}

const defaultIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd() })

export async function main(args: string[], io: CliIo = defaultIo()): Promise<number> {
  // The settings' secrets once the kernel is made (a provider may echo any of them in an error).
  let knownSecrets: (() => Iterable<string>) | undefined
  const fail = (error: unknown): number => {
    const shown = forTheUser(error)
    const redact = failureRedactor(io.env, knownSecrets)
    io.stderr.write(`agent: ${redact(errorMessage(shown))}\n`)
    if (io.env.AGENT_DEBUG && error instanceof Error && error.stack) io.stderr.write(redact(error.stack) + '\n')
    return AgentError.isInstance(shown) ? shown.exitCode : 1
  }

  // A help run after which the registry snapshot is saved: fingerprint the inputs before loading.
  const helpPrint = isHelpRequest(args) ? fingerprint({ root: AGENT_ROOT, home: resolveAgentHome(io.env), cwd: io.cwd, version: agentVersion() }) : undefined
  let kernel: Kernel
  // Until the command is known, what extensions print to stdout is held (see stdout-guard.ts).
  const hold: StdoutHold | undefined = io.stdout === process.stdout ? holdStdout(process.stdout) : undefined
  try {
    kernel = createKernel({ env: io.env, cwd: io.cwd, projectExtensions: args.includes('--project-extensions') || undefined, processGuard: true })
    const settings = kernel.settings
    knownSecrets = () => settings.secretValues()
    await kernel.load()
  } catch (error) {
    hold?.release()
    return fail(error)
  }

  const controller = new AbortController()
  let exitCode = 0
  let startedMode: RunMode | undefined
  const onSignal = (signal: NodeJS.Signals) => {
    if (controller.signal.aborted) process.exit(130)
    controller.abort(new AgentError('E_INTERRUPTED', `received ${signal}`))
  }

  const run = async (command: CliCommand, path: string[], argv: CliContext['argv']) => {
    const ctx: CliContext = {
      argv,
      out: (text) => io.stdout.write(text.endsWith('\n') ? text : text + '\n'),
      err: (text) => io.stderr.write(text.endsWith('\n') ? text : text + '\n'),
      json: (value) => io.stdout.write(JSON.stringify(value, null, 2) + '\n'),
      isTTY: Boolean(io.stdout.isTTY && io.stdin.isTTY),
      settings: kernel.settings,
      services: { ...kernel.services, provide: () => { throw new AgentError('E_STATE', 'commands cannot provide services') } },
      hooks: kernel.hooks,
      tools: readOnly(kernel.registries.tools),
      providers: readOnly(kernel.registries.providers),
      commands: readOnly(kernel.registries.commands),
      adapters: readOnly(kernel.registries.adapters),
      endpoints: readOnly(kernel.registries.endpoints),
      extensions: () => kernel.extensions(),
      start: async (mode) => {
        startedMode = mode
        process.on('SIGINT', onSignal)
        process.on('SIGTERM', onSignal)
        await kernel.start(mode)
      },
      signal: controller.signal,
      routeLogs: (write, level) => kernel.routeLogs({ write }, level),
      ...(protocolOut ? { protocolOut } : {}),
    }
    if (path[0] !== 'config' && !argv.json) await checkConfigVersion(kernel.settings, { interactive: ctx.isTTY && !io.env.CI, warn: ctx.err })
    const code = await command.run!(ctx)
    exitCode = typeof code === 'number' ? code : 0
  }

  const commandList = kernel.registries.commands.list()
  const parser = buildParser(yargs, commandList, run, { version: agentVersion(), columns: io.stdout.columns })
  if (helpPrint) writeSnapshot({ home: kernel.home, print: helpPrint, commands: commandList, envRead: kernel.settings.envRead, env: io.env })

  const argsGiven = withDefaultCommand(args, cliCommandNames(commandList))
  let protocolOut: NodeJS.WritableStream | undefined
  if (hold && !helpPrint && namedCommand(argsGiven, commandList)?.stdio === 'protocol') {
    protocolOut = hold.reserve((text, stack) => {
      const owner = ownerOfStack(stack, kernel.extensions())
      kernel.log.warn(`stdout is reserved for the protocol; ${owner ? `extension "${owner}"` : 'something'} wrote (sent here instead): ${text}`)
    })
  } else hold?.release()
  const usage = (error: UsageError) => {
    io.stderr.write(`agent: ${failureRedactor(io.env, knownSecrets)(usageLine(error, argsGiven, commandList))}\n`)
    return 2
  }
  try {
    let usageError: UsageError | undefined
    await parser.parseAsync(argsGiven, {}, (error: Error | undefined, _argv: unknown, output: string) => {
      if (output) io.stdout.write(output + '\n')
      if (error instanceof UsageError) usageError = error
    })
    if (usageError) exitCode = usage(usageError)
  } catch (error) {
    exitCode = error instanceof UsageError ? usage(error) : fail(error)
  } finally {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    await kernel.shutdown(startedMode ? `${startedMode} ended` : 'command finished').catch(() => undefined)
    hold?.restore()
  }
  return exitCode
}

/**
 * Clears what the CLI prints on failure of every known secret (and secret-shaped string), as the
 * log lines are: the settings' secrets (environment, .env, config credentials, passwords in URLs);
 * when there are no settings yet or they cannot be read (the kernel failed to start: a broken
 * config), those of the environment and of `<agent_home>/.env`.
 */
function failureRedactor(env: NodeJS.ProcessEnv, known: (() => Iterable<string>) | undefined): (text: string) => string {
  let values: Iterable<string> | undefined
  try {
    values = known?.()
  } catch {
    values = undefined
  }
  if (!values) {
    let dotenv: Record<string, string> = {}
    try {
      dotenv = readEnvFile(homePaths(resolveAgentHome(env)).env)
    } catch {
      // unreadable: the environment's secrets still go
    }
    values = collectSecrets({ env, dotenv, config: {} }).map((entry) => entry.value)
  }
  const secrets = [...values]
  return (text) => redactSecrets(text, secrets)
}

/**
 * A typed error an extension threw on purpose (a port in use, a bad setting) is a message for the
 * user: it is shown as is, not inside the hook wrapper that names the tap (AGENT_DEBUG shows that).
 * Anything else, a bug, keeps the wrapper so the failing extension is named.
 */
function forTheUser(error: unknown): unknown {
  let shown = error
  while (AgentError.isInstance(shown) && shown.code === 'E_HOOK' && AgentError.isInstance(shown.cause)) shown = shown.cause
  return shown
}

function readOnly<T>(registry: { get(name: string): T | undefined; list(): T[]; entries(): Array<{ owner: string; value: T }>; subscribe(l: () => void): () => void }) {
  return {
    register: () => {
      throw new AgentError('E_STATE', 'commands cannot register things; extensions do that in setup')
    },
    get: (name: string) => registry.get(name),
    list: () => registry.list(),
    entries: () => registry.entries(),
    subscribe: (listener: () => void) => registry.subscribe(listener),
  }
}
