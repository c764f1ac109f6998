// The command layer: how an extension exposes commands to frontends (windows and webviews calling
// the agent's IPC endpoint), gated by capability files. Each exposed command `do_thing` gets the
// permissions `allow-do-thing` and `deny-do-thing`; an extension may declare more permissions
// (with scopes) and named sets. Provided by the `capabilities` extension as the service below.

import type { ExtensionApi } from '../types.ts'
import type { PermissionDocument } from './permission-file.ts'
import type { InvokeOrigin, PermissionDefinition, PermissionSetDefinition, ScopeLists } from './types.ts'

export const COMMAND_LAYER_SERVICE = 'command-layer'

/** What a command handler receives: the caller as the agent established it, never as the page claims. */
export interface FrontendInvocation {
  /** The invoke string, e.g. `greet` or `plugin:opener|open_url`. */
  command: string
  /** The JSON body of the call (an object). */
  args: Record<string, unknown>
  /** Labels from the caller's signed token. */
  window: string
  webview: string
  /** From the request's Origin header. */
  origin: InvokeOrigin
  /** Scope of the capabilities that matched (entry scope, then the permission's own) … */
  commandScope: ScopeLists
  /** … and the scope-only permissions of every active capability. */
  globalScope: ScopeLists
  /** Aborted when the caller disconnects or the agent shuts down. */
  signal: AbortSignal
}

export interface FrontendCommand {
  /** snake_case; frontends invoke it by this name. */
  name: string
  description?: string
  /** Put `allow-<name>` in the app's `default` permission set. */
  default?: boolean
  /** Returns any JSON-serialisable value. Throw HttpError(4xx) for the caller's mistakes. */
  handler(call: FrontendInvocation): unknown | Promise<unknown>
}

/** Extra app permissions: identifiers without a prefix, referencing the app's commands. */
export interface AppPermissions {
  permissions?: PermissionDefinition[]
  sets?: PermissionSetDefinition[]
}

export interface ExposedCommand {
  owner: string
  command: FrontendCommand
}

/** A plugin's permissions contributed by an extension, in the permission file format. */
export interface PermissionContribution {
  owner: string
  plugin: string
  document: PermissionDocument
}

export interface CommandLayer {
  /**
   * Exposes commands (and permissions) on behalf of `owner`; returns the function that withdraws
   * them. A name exposed by another owner is an error; the same owner may expose it again (a hot
   * reload exposes the new version before withdrawing the old one; the newest wins).
   */
  expose(owner: string, commands: readonly FrontendCommand[], permissions?: AppPermissions): () => void
  /** The commands currently exposed, one per name (the newest). */
  commands(): ExposedCommand[]
  /** The app permissions and sets declared by extensions. */
  declared(): Required<AppPermissions>
  /**
   * Adds permissions of a plugin (as a permission file would: `permission`, `set`, `default`,
   * `commands`); merged with the plugin's files and built-in manifest. Throws on a document with
   * problems. Returns the function that withdraws them.
   */
  contributePermissions(owner: string, plugin: string, document: PermissionDocument): () => void
  /** The contributions in force, in order. */
  contributions(): PermissionContribution[]
  /** Called after any expose, contribution or withdrawal. */
  subscribe(listener: () => void): () => void
}

/** In setup: contributes a plugin's permissions for as long as the extension stays loaded. */
export function contributePermissions(api: ExtensionApi<any>, plugin: string, document: PermissionDocument): void {
  const layer = api.services.require<CommandLayer>(COMMAND_LAYER_SERVICE)
  api.onDispose(layer.contributePermissions(api.name, plugin, document))
}

/** In setup: exposes commands for as long as the extension stays loaded (`dependsOn: ['capabilities']`). */
export function exposeToFrontends(api: ExtensionApi<any>, commands: readonly FrontendCommand[], permissions?: AppPermissions): void {
  const layer = api.services.require<CommandLayer>(COMMAND_LAYER_SERVICE)
  api.onDispose(layer.expose(api.name, commands, permissions))
}
