// The setup every gateway platform extension does the same way once it has built its adapter:
// register it, keep its native command menu in step with the gateway's commands (when it has one),
// and stop it when the extension is unloaded.

import type { GatewayAdapter } from './gateway.ts'
import type { ExtensionApi } from './types.ts'

/** A platform adapter as its extension built it; commandsChanged() refreshes a native command menu. */
export type PlatformAdapter = GatewayAdapter & { commandsChanged?(): void }

export function registerPlatformAdapter(api: Pick<ExtensionApi<unknown>, 'adapters' | 'commands' | 'onDispose'>, adapter: PlatformAdapter): void {
  api.adapters.register(adapter)
  if (adapter.commandsChanged) api.commands.subscribe(() => adapter.commandsChanged?.())
  api.onDispose(() => adapter.stop())
}
