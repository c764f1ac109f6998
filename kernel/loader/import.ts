// Imports an extension's entry file (through jiti, or from a version built whole for a hot swap) and
// checks the shape of its default export before anything of it runs further.

import { AgentError, errorMessage } from '../../sdk/errors.ts'
import type { ExtensionDefinition } from '../../sdk/types.ts'
import type { Candidate } from './discover.ts'
import { sharedJiti } from './jiti.ts'
import { importFromVersion, type ExtensionVersion } from './version.ts'

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/

export function checkDefinition(value: unknown, where: string): ExtensionDefinition<any> {
  const problems: string[] = []
  const def = value as Partial<ExtensionDefinition<any>> | null
  if (typeof def !== 'object' || def === null) {
    throw new AgentError('E_EXTENSION', `${where}: the default export must be defineExtension({...}), got ${def === null ? 'null' : typeof def}`)
  }
  if (typeof def.name !== 'string' || !NAME.test(def.name)) problems.push('"name" must be a kebab-case string')
  if (typeof def.setup !== 'function') problems.push('"setup" must be a function')
  if (def.version !== undefined && typeof def.version !== 'string') problems.push('"version" must be a string')
  if (def.dependsOn !== undefined && (!Array.isArray(def.dependsOn) || !def.dependsOn.every((d) => typeof d === 'string'))) problems.push('"dependsOn" must be a list of extension names')
  if (def.config !== undefined && (typeof def.config !== 'object' || def.config === null)) problems.push('"config" must be a JSON Schema object')
  if (def.settings !== undefined && (typeof def.settings !== 'object' || def.settings === null || !Object.values(def.settings).every((v) => typeof v === 'object' && v !== null))) {
    problems.push('"settings" must map config dot paths to JSON Schema objects')
  }
  if (def.configKey !== undefined && typeof def.configKey !== 'string') problems.push('"configKey" must be a dot path string')
  if (problems.length > 0) throw new AgentError('E_EXTENSION', `${where}: ${problems.join('; ')}`)
  return def as ExtensionDefinition<any>
}

export async function importDefinition(candidate: Candidate, version?: ExtensionVersion): Promise<ExtensionDefinition<any>> {
  let module: unknown
  try {
    module = version ? importFromVersion(version, candidate.entry) : await sharedJiti().import(candidate.entry, { default: true })
  } catch (error) {
    const message = errorMessage(error)
    throw new AgentError('E_EXTENSION', message.includes(candidate.entry) ? message : `${candidate.entry}: ${message}`, { cause: error })
  }
  const definition = checkDefinition(module, candidate.entry)
  if (candidate.source !== 'plugin' && definition.name !== candidate.name) {
    throw new AgentError('E_EXTENSION', `${candidate.entry}: the extension is named "${definition.name}" but its folder is "${candidate.name}"; they must match`)
  }
  return definition
}
