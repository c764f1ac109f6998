// One McpManager across reloads of this extension: a reload (a changed tool list, /reload-mcp's
// refresh, a config change) keeps the connections — and with them the servers' own state. Each
// version holds a reference through a service of this extension; the last one released (the
// process ending, or a version that failed to load) shuts the manager down.

import type { ExtensionApi } from 'agent/sdk'
import { McpManager, type McpManagerOptions } from './connection.ts'

const HOLDER = 'mcp.connections'

interface Holder {
  manager: McpManager
  version: number
  refs: number
}

export function sharedManager(api: ExtensionApi, options: McpManagerOptions): McpManager {
  const found = api.services.get<Holder>(HOLDER)
  // A manager of another code version (the extension's files changed) is left to its own version.
  const holder: Holder = found && found.version === McpManager.VERSION && found.refs > 0 ? found : { manager: new McpManager(options), version: McpManager.VERSION, refs: 0 }
  holder.refs++
  // An adopted manager answers to this version once it is in place (its ready comes after the swap);
  // a version that fails to load never takes the callbacks from the running one.
  if (holder.refs > 1) api.hooks.ready.tap(() => holder.manager.bind(options))
  api.services.provide(HOLDER, holder)
  api.onDispose(async () => {
    if (--holder.refs === 0) await holder.manager.shutdown()
  })
  return holder.manager
}
