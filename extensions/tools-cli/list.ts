// `agent tools list|enable|disable`: every registered tool with its toolset, owner, default state and
// availability; `tools.disabled` / `tools.enabled` in config.yaml switch tools or toolsets for every
// conversation.

import { errorMessage, toolNameList, TOOLS_DISABLED_KEY, TOOLS_ENABLED_KEY, UsageError, type CliContext, type Settings, type ToolDefinition } from 'agent/sdk'

export interface ToolRow {
  name: string
  toolset: string
  owner: string
  enabled: boolean
  available: true | string
}

function availability(tool: ToolDefinition, settings: Settings): true | string {
  try {
    return tool.available?.(settings) ?? true
  } catch (error) {
    return errorMessage(error)
  }
}

/** The same rule as the runtime's: tools.disabled wins, then tools.enabled, then enabledByDefault. */
function enabled(tool: ToolDefinition, owner: string, settings: Settings): boolean {
  const names = [tool.name, tool.toolset ?? owner]
  if (names.some((n) => toolNameList(settings, TOOLS_DISABLED_KEY).has(n))) return false
  if (names.some((n) => toolNameList(settings, TOOLS_ENABLED_KEY).has(n))) return true
  return tool.enabledByDefault !== false
}

export function toolRows(ctx: Pick<CliContext, 'tools' | 'settings'>): ToolRow[] {
  return ctx.tools
    .entries()
    .map(({ owner, value }) => ({ name: value.name, toolset: value.toolset ?? owner, owner, enabled: enabled(value, owner, ctx.settings), available: availability(value, ctx.settings) }))
    .sort((a, b) => a.toolset.localeCompare(b.toolset) || a.name.localeCompare(b.name))
}

export function listTools(ctx: CliContext): void {
  const rows = toolRows(ctx)
  if (ctx.argv.json) return ctx.json(rows)
  if (rows.length === 0) return ctx.out('No tools are registered.')
  const width = Math.max(...rows.map((r) => r.name.length))
  for (const r of rows) {
    const state = r.enabled ? (r.available === true ? 'enabled' : `enabled, unavailable: ${r.available}`) : 'disabled'
    ctx.out(`${r.enabled ? '✓' : '✗'} ${r.name.padEnd(width)}  [${r.toolset}] ${state}`)
  }
}

/** Writes a name list, or removes the key when the list is empty (and only if it is there). */
export async function saveList(settings: Settings, key: string, names: Set<string>): Promise<void> {
  if (names.size) await settings.set(key, [...names].sort())
  else if (settings.get(key) !== undefined) await settings.set(key, undefined)
}

/** Adds or removes names from tools.disabled; unknown names are refused and nothing changes. */
export async function switchTools(ctx: CliContext, enable: boolean): Promise<void> {
  const names = ((ctx.argv.names as string[] | undefined) ?? []).map(String).filter(Boolean)
  if (names.length === 0) throw new UsageError(`name at least one tool or toolset: agent tools ${enable ? 'enable' : 'disable'} <name>…`)
  const rows = toolRows(ctx)
  const known = new Set(rows.flatMap((r) => [r.name, r.toolset]))
  const unknown = names.filter((n) => !known.has(n))
  if (unknown.length) throw new UsageError(`unknown tool or toolset: ${unknown.join(', ')} (see agent tools list)`)
  const disabled = toolNameList(ctx.settings, TOOLS_DISABLED_KEY)
  const on = toolNameList(ctx.settings, TOOLS_ENABLED_KEY)
  for (const name of names) {
    if (enable) {
      disabled.delete(name)
      on.add(name)
    } else {
      disabled.add(name)
      on.delete(name)
    }
  }
  await saveList(ctx.settings, TOOLS_DISABLED_KEY, disabled)
  await saveList(ctx.settings, TOOLS_ENABLED_KEY, on)
  ctx.out(`${enable ? 'enabled' : 'disabled'}: ${names.join(', ')} (saved to ${ctx.settings.configPath})`)
}
