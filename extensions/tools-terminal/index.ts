// The `terminal` toolset: the `terminal` tool (local shell or a docker/podman container, optional
// persistent shell, timeout, output cap, background processes) and the `process` tool that polls
// and ends background processes. Heavy work starts lazily on the first command.

import { existsSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { BACKGROUND_NOTIFICATION_LEVELS, defineExtension, errorMessage, TERMINAL_SANDBOX_SERVICE, type Settings, type TerminalSandboxService } from 'agent/sdk'
import { backendOf, TERMINAL_SCHEMA, type Backend, type TerminalConfig } from './config.ts'
import { TerminalManager, type TerminalInput } from './manager.ts'
import { processTool } from './process-tool.ts'

function onPath(binary: string, settings: Settings): boolean {
  return (settings.env('PATH') ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, binary)))
}

/** How long a PATH lookup is trusted: every run asks whether the tool is available (a stat per PATH entry). */
const PATH_CHECK_MS = 10_000

/** onPath, remembered for a few seconds per binary and PATH (so a newly installed engine is seen soon). */
function pathChecker(): (binary: string, settings: Settings) => boolean {
  const seen = new Map<string, { found: boolean; at: number }>()
  return (binary, settings) => {
    const key = `${binary}\0${settings.env('PATH') ?? ''}`
    const now = Date.now()
    const hit = seen.get(key)
    if (hit && now - hit.at < PATH_CHECK_MS) return hit.found
    const found = onPath(binary, settings)
    if (seen.size > 16) seen.clear()
    seen.set(key, { found, at: now })
    return found
  }
}

export default defineExtension<TerminalConfig>({
  name: 'tools-terminal',
  version: '1.0.0',
  configKey: 'terminal',
  // Read where a background process ends (background.ts); AGENT_BACKGROUND_NOTIFICATIONS wins.
  settings: { background_process_notifications: { enum: [...BACKGROUND_NOTIFICATION_LEVELS], default: 'all', 'x-env': 'AGENT_BACKGROUND_NOTIFICATIONS' } },
  config: TERMINAL_SCHEMA as unknown as Record<string, unknown>,
  setup(api) {
    let manager: TerminalManager | undefined
    const get = () => (manager ??= new TerminalManager(api.config as TerminalConfig, api.settings, api.services, api.log))
    const found = pathChecker()

    api.tools.register({
      name: 'terminal',
      toolset: 'terminal',
      description:
        'Run a shell command and return its output and exit code. Set background=true for long-running processes ' +
        '(servers, watchers); then use the process tool to poll or kill them.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The shell command line' },
          background: { type: 'boolean', description: 'Start it in the background and return at once' },
          timeout: { type: 'number', description: 'Seconds before the command is ended (capped by terminal.max_timeout)' },
          workdir: { type: 'string', description: 'Directory to run in (relative to the working directory)' },
          outside_sandbox: { type: 'boolean', description: 'Run outside the sandbox, where protected places are read-only; only when the command must change one (a person is asked)' },
        },
        required: ['command'],
        additionalProperties: false,
      },
      // What run() returns (manager.ts TerminalResult); `agent mcp serve` advertises it.
      outputSchema: {
        type: 'object',
        properties: {
          output: { type: 'string' },
          exit_code: { type: ['integer', 'null'] },
          backend: { type: 'string' },
          timed_out: { type: 'boolean' },
          interrupted: { type: 'boolean' },
          truncated: { type: 'boolean' },
          note: { type: 'string' },
          process_id: { type: 'string' },
          status: { type: 'string' },
        },
        required: ['output', 'exit_code', 'backend'],
      },
      // A shell can change any file: checkpoints snapshot before it.
      modifiesFiles: true,
      available(settings) {
        const config = api.config as TerminalConfig
        let backend: Backend
        try {
          backend = backendOf(settings, config)
        } catch (error) {
          return errorMessage(error)
        }
        const binary = backend === 'container' ? config.container_engine : config.shell
        return found(binary, settings) || `${binary} is not on PATH`
      },
      async execute({ input, session, signal, callId }) {
        const args = input as TerminalInput
        if (typeof args?.command !== 'string' || !args.command.trim()) throw new Error('terminal needs a non-empty "command"')
        return get().run(args, session, signal, callId)
      },
    })
    api.tools.register(processTool(() => get().background))
    // Probing runs bwrap once; until something asks, nothing starts.
    api.services.provide<TerminalSandboxService>(TERMINAL_SANDBOX_SERVICE, { status: () => get().sandbox.status() })

    // Everything the toolset started ends with it (hot reload, shutdown).
    api.onDispose(async () => {
      await manager?.closeAll()
    })
  },
})
