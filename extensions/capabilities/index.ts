// Capability files: the `command-layer` service extensions expose frontend commands (and contribute
// plugin permissions) through, the IPC endpoint that checks every call against
// <agent_home>/capabilities (plugin permission files included; hot-reloaded), the opener commands,
// and `agent capabilities …`. The engine itself is in agent/sdk (sdk/capabilities).

import { statSync } from 'node:fs'
import { join } from 'node:path'
import { agentVersion, COMMAND_LAYER_SERVICE, currentTarget, defineExtension, errorMessage, HttpError } from 'agent/sdk'
import { AclState } from './acl-state.ts'
import { builtinHandlers } from './builtin-commands.ts'
import { capabilitiesCommand } from './cli.ts'
import { createCommandLayer, isCommandLayerStore } from './command-layer.ts'
import { ipcEndpoints } from './ipc.ts'
import { createLauncher, splitCommand, type Launcher } from './launcher.ts'
import { machineBaseDirectories } from './machine-dirs.ts'
import { secretSource, verifyToken } from './token.ts'

interface CapabilitiesConfig {
  ipc: boolean | 'auto'
  local_origins: string[]
  token_ttl: number
  body_limit: number
  opener: { command?: string | string[] }
}

export default defineExtension<CapabilitiesConfig>({
  name: 'capabilities',
  version: '1.0.0',
  configKey: 'capabilities',
  config: {
    type: 'object',
    properties: {
      ipc: { anyOf: [{ type: 'boolean' }, { const: 'auto' }], default: 'auto', description: "Serve POST /ipc/<command> on the api listener (auto: when <agent_home>/capabilities exists)" },
      local_origins: { type: 'array', items: { type: 'string', pattern: '^[a-z][a-z0-9+.-]*://[^/]+$' }, default: [], description: 'Origins of local app content (scheme://host[:port])' },
      token_ttl: { type: 'integer', minimum: 60, maximum: 2_592_000, default: 43_200, description: 'Default lifetime of window tokens, in seconds' },
      body_limit: { type: 'integer', minimum: 1024, default: 1_048_576 },
      opener: {
        type: 'object',
        default: {},
        properties: { command: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, minItems: 1 }] } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  setup(api) {
    const folder = join(api.settings.home, 'capabilities')
    // A reload of this extension keeps the store the exposing extensions registered into.
    const previous = api.services.get(COMMAND_LAYER_SERVICE)
    const layer = isCommandLayerStore(previous) ? previous : createCommandLayer()
    api.services.provide(COMMAND_LAYER_SERVICE, layer)

    const acl = new AclState(folder, layer, currentTarget(), api.log)
    api.onDispose(layer.subscribe(() => acl.invalidate()))

    let dirs: ReturnType<typeof machineBaseDirectories> | undefined
    const baseDirs = () => (dirs ??= machineBaseDirectories(api.settings))
    let launcher: Launcher | undefined
    const launcherFor = () => {
      if (launcher) return launcher
      const configured = api.config.opener.command ?? api.settings.env('AGENT_OPENER_COMMAND')
      launcher = createLauncher(configured === undefined ? undefined : Array.isArray(configured) ? configured : splitCommand(configured))
      return launcher
    }
    let builtins: ReturnType<typeof builtinHandlers> | undefined
    const handler = (command: string) => {
      builtins ??= builtinHandlers({ launcher: launcherFor, dirs: baseDirs, version: agentVersion() })
      const builtin = builtins.get(command)
      if (builtin) return builtin
      const exposed = layer.commands().find((e) => e.command.name === command)
      return exposed ? (call: Parameters<typeof exposed.command.handler>[0]) => exposed.command.handler(call) : undefined
    }

    const secret = secretSource(api.settings.home)
    const verify = (token: string) => {
      let key: Buffer
      try {
        key = secret()
      } catch (error) {
        api.log.error(errorMessage(error))
        throw new HttpError(503, 'Capability tokens cannot be verified: the agent has no usable token secret', { type: 'server_error', code: 'token_secret_unavailable' })
      }
      return verifyToken(key, token)
    }

    const ipcOn = api.config.ipc === 'auto' ? statSync(folder, { throwIfNoEntry: false })?.isDirectory() === true : api.config.ipc
    if (ipcOn) {
      for (const endpoint of ipcEndpoints({
        acl,
        verify,
        localOrigins: () => api.config.local_origins.map((o) => o.replace(/\/$/, '')),
        handler,
        bodyLimit: api.config.body_limit,
        log: api.log,
        secrets: () => api.settings.secretValues(),
        signal: api.signal,
      })) {
        api.endpoints.register(endpoint)
      }
    }

    api.commands.register(capabilitiesCommand({ layer, settings: api.settings, folder, tokenTtl: api.config.token_ttl, baseDirs }))

    // Long-running modes load the files now and follow their changes.
    api.hooks.ready.tapPromise(async ({ mode }) => {
      if (mode === 'command' || !ipcOn) return
      await acl.current()
      const stop = await acl.watch()
      api.onDispose(stop)
    })
  },
})
