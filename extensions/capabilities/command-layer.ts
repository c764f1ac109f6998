// The `command-layer` service: which commands extensions expose to frontends, the permissions
// they declare, and the plugin permissions they contribute. It outlives a hot reload of this
// extension: the new version takes over the very store the old one provided (exposing extensions
// hold its withdraw functions).

import { AgentError, COMMAND_NAME, formatProblem, openerScopeError, pluginNameError, readPermissionDocument, type AppPermissions, type CommandLayer, type ExposedCommand, type FrontendCommand, type PermissionContribution } from 'agent/sdk'

const STORE_MARKER = Symbol.for('agent.capabilities.command-layer')

interface Exposure {
  id: number
  owner: string
  commands: readonly FrontendCommand[]
  permissions: AppPermissions
}

export interface CommandLayerStore extends CommandLayer {
  readonly [STORE_MARKER]: true
}

export function isCommandLayerStore(value: unknown): value is CommandLayerStore {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STORE_MARKER] === true
}

export function createCommandLayer(): CommandLayerStore {
  const exposures: Exposure[] = []
  const contributions: PermissionContribution[] = []
  const listeners = new Set<() => void>()
  let nextId = 1
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  /** Adds an item and returns the function that removes it (once), telling listeners each time. */
  const add = <T>(list: T[], item: T) => {
    list.push(item)
    changed()
    return () => {
      const index = list.indexOf(item)
      if (index === -1) return
      list.splice(index, 1)
      changed()
    }
  }

  const store: CommandLayerStore = {
    [STORE_MARKER]: true,
    expose(owner, commands, permissions = {}) {
      for (const command of commands) {
        if (!COMMAND_NAME.test(command.name)) {
          throw new AgentError('E_USAGE', `extension "${owner}": frontend command name "${command.name}" must be snake_case ([a-z][a-z0-9]*, words joined by _)`)
        }
        if (typeof command.handler !== 'function') throw new AgentError('E_USAGE', `extension "${owner}": frontend command "${command.name}" needs a handler`)
        const taken = exposures.find((e) => e.owner !== owner && e.commands.some((c) => c.name === command.name))
        if (taken) throw new AgentError('E_DUPLICATE', `frontend command "${command.name}" of extension "${owner}" is already exposed by extension "${taken.owner}"`)
      }
      for (const kind of ['permissions', 'sets'] as const) {
        for (const item of permissions[kind] ?? []) {
          if (!/^[A-Za-z0-9]+(-[A-Za-z0-9]+)*$/.test(item.identifier)) throw new AgentError('E_USAGE', `extension "${owner}": permission identifier "${item.identifier}" must be kebab-case without a prefix`)
          const taken = exposures.find((e) => e.owner !== owner && [...(e.permissions.permissions ?? []), ...(e.permissions.sets ?? [])].some((p) => p.identifier === item.identifier))
          if (taken) throw new AgentError('E_DUPLICATE', `permission "${item.identifier}" of extension "${owner}" is already declared by extension "${taken.owner}"`)
        }
      }
      const exposure: Exposure = { id: nextId++, owner, commands: [...commands], permissions }
      return add(exposures, exposure)
    },
    commands() {
      // The newest exposure of a name wins (a reloading extension exposes before it withdraws).
      const byName = new Map<string, ExposedCommand>()
      for (const e of exposures) for (const command of e.commands) byName.set(command.name, { owner: e.owner, command })
      return [...byName.values()].sort((a, b) => a.command.name.localeCompare(b.command.name))
    },
    contributePermissions(owner, plugin, document) {
      const nameError = pluginNameError(plugin)
      if (nameError) throw new AgentError('E_USAGE', `extension "${owner}": plugin ${nameError}`)
      // Checked now, so the extension fails to load with the reason instead of every capability failing later.
      const read = readPermissionDocument(plugin, `extension ${owner}`, document, plugin === 'opener' ? { scopeError: openerScopeError } : {})
      if (read.problems.length > 0) throw new AgentError('E_USAGE', `extension "${owner}": permissions of plugin "${plugin}": ${read.problems.map(formatProblem).join('; ')}`)
      const contribution: PermissionContribution = { owner, plugin, document: structuredClone(document) }
      return add(contributions, contribution)
    },
    contributions() {
      return [...contributions]
    },
    declared() {
      const permissions = new Map<string, NonNullable<AppPermissions['permissions']>[number]>()
      const sets = new Map<string, NonNullable<AppPermissions['sets']>[number]>()
      for (const e of exposures) {
        for (const p of e.permissions.permissions ?? []) permissions.set(p.identifier, p)
        for (const s of e.permissions.sets ?? []) sets.set(s.identifier, { ...s, permissions: [...s.permissions] })
      }
      return { permissions: [...permissions.values()], sets: [...sets.values()] }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
  return store
}
