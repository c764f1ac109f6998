// Handlers of the built-in plugin commands frontends may call once the ACL allows them: the opener
// (open_url, open_path, reveal_item_in_dir — each checked against its scope before anything opens)
// and the pure core:app and core:path queries. Other core commands manage native windows this
// agent does not have; they answer 501.

import { existsSync, realpathSync } from 'node:fs'
import { posix } from 'node:path'
import { checkPathScope, checkUrlScope, HttpError, isPathVariable, mergeScopes, type BaseDirectories, type FrontendInvocation, type ScopeLists } from 'agent/sdk'
import type { Launcher } from './launcher.ts'

export type CommandHandler = (call: FrontendInvocation) => unknown | Promise<unknown>

export interface BuiltinDeps {
  launcher(): Launcher
  dirs(): BaseDirectories
  version: string
}

function stringArg(call: FrontendInvocation, name: string, required = true): string | undefined {
  const value = call.args[name]
  if (value === undefined && !required) return undefined
  if (typeof value !== 'string' || (required && value.length === 0)) throw new HttpError(400, `${call.command}: argument "${name}" must be a ${required ? 'non-empty ' : ''}string`, { code: 'invalid_args', param: name })
  return value
}

function stringsArg(call: FrontendInvocation, name: string): string[] {
  const value = call.args[name]
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new HttpError(400, `${call.command}: argument "${name}" must be an array of strings`, { code: 'invalid_args', param: name })
  return value as string[]
}

const merged = (call: FrontendInvocation): ScopeLists => mergeScopes(call.commandScope, call.globalScope)

/** The path a scope is checked against: canonical if it exists (symlinks resolved), else as given. */
export function canonicalPath(path: string): string {
  return posix.isAbsolute(path) && existsSync(path) ? realpathSync(path) : path
}

const denied = (reason: string) => new HttpError(403, reason, { type: 'permission_error', code: 'scope_denied' })

export function builtinHandlers(deps: BuiltinDeps): Map<string, CommandHandler> {
  const handlers = new Map<string, CommandHandler>()

  handlers.set('plugin:opener|open_url', async (call) => {
    const url = stringArg(call, 'url')!
    const withApp = stringArg(call, 'with', false)
    const verdict = checkUrlScope(url, withApp, merged(call))
    if (!verdict.allowed) throw denied(verdict.reason)
    await deps.launcher().open(url, withApp)
    return null
  })
  handlers.set('plugin:opener|open_path', async (call) => {
    const path = canonicalPath(stringArg(call, 'path')!)
    const withApp = stringArg(call, 'with', false)
    const verdict = checkPathScope(path, withApp, merged(call), { dirs: deps.dirs(), requireLiteralLeadingDot: process.platform !== 'win32' })
    if (!verdict.allowed) throw denied(verdict.reason)
    await deps.launcher().open(path, withApp)
    return null
  })
  handlers.set('plugin:opener|reveal_item_in_dir', async (call) => {
    // No scope: revealing only shows where a file is (as in the reference).
    const paths = call.args.paths !== undefined ? stringsArg(call, 'paths') : [stringArg(call, 'path')!]
    for (const path of paths) {
      if (!posix.isAbsolute(path) || !existsSync(path)) throw new HttpError(400, `${call.command}: ${path} is not an existing absolute path`, { code: 'invalid_args', param: 'path' })
    }
    for (const path of paths) await deps.launcher().reveal(canonicalPath(path))
    return null
  })

  const app: Record<string, unknown> = { version: deps.version, framework_version: deps.version, name: 'agent', identifier: 'agent', bundle_type: null }
  for (const [command, value] of Object.entries(app)) handlers.set(`plugin:app|${command}`, () => value)

  handlers.set('plugin:path|basename', (call) => posix.basename(stringArg(call, 'path')!, stringArg(call, 'ext', false)))
  handlers.set('plugin:path|dirname', (call) => posix.dirname(stringArg(call, 'path')!))
  handlers.set('plugin:path|extname', (call) => posix.extname(stringArg(call, 'path')!))
  handlers.set('plugin:path|is_absolute', (call) => posix.isAbsolute(stringArg(call, 'path')!))
  handlers.set('plugin:path|normalize', (call) => posix.normalize(stringArg(call, 'path')!))
  handlers.set('plugin:path|join', (call) => posix.join(...stringsArg(call, 'paths')))
  handlers.set('plugin:path|resolve', (call) => posix.resolve(...stringsArg(call, 'paths')))
  handlers.set('plugin:path|resolve_directory', (call) => {
    const name = stringArg(call, 'directory')!.replace(/^\$/, '')
    if (!isPathVariable(name)) throw new HttpError(400, `${call.command}: unknown base directory "${name}"`, { code: 'invalid_args', param: 'directory' })
    const dir = deps.dirs()[name]
    if (dir === undefined) throw new HttpError(404, `${call.command}: ${name} has no directory on this machine`, { code: 'unknown_path' })
    const rest = stringArg(call, 'path', false)
    return rest ? posix.join(dir, rest) : dir
  })
  return handlers
}
