// Tool backend choices: extra fields a ToolDefinition may carry to say which configurable backend it
// reads (`web.backend` …) and which keys each backend needs. `agent tools` asks about each setting
// once, `agent doctor` reports each backend's key. Also the persistent tool switches `tools.disabled`
// and `tools.enabled` (the rule deciding whether a tool is on is `toolEnabled` in sdk/runtime.ts).

import type { Settings, ToolDefinition } from './types.ts'

export interface ToolBackendOption {
  /** The value stored in the setting, e.g. `firecrawl`. */
  value: string
  label?: string
  /** Environment variables (keys) this backend needs; the first is asked for by `agent tools`. */
  envKeys: string[]
  /** Shown next to the option, e.g. `crawl supported`. */
  note?: string
}

export interface ToolBackendChoice {
  /** Config dot path, e.g. `web.backend`. */
  setting: string
  /** What is being chosen, e.g. `Web search and extract`. */
  label: string
  options: ToolBackendOption[]
}

/** A tool that declares the backend setting it reads (extra field, read at call time). */
export interface ToolWithBackends extends ToolDefinition {
  backends?: ToolBackendChoice
}

/** Every distinct backend choice declared by the registered tools (first declaration of a setting wins). */
export function backendChoices(tools: readonly ToolDefinition[]): ToolBackendChoice[] {
  const seen = new Map<string, ToolBackendChoice>()
  for (const tool of tools as readonly ToolWithBackends[]) {
    const choice = tool.backends
    if (choice && typeof choice.setting === 'string' && Array.isArray(choice.options) && !seen.has(choice.setting)) seen.set(choice.setting, choice)
  }
  return [...seen.values()]
}

/** Config keys listing tools (or toolsets) switched off, and switched on when off by default. */
export const TOOLS_DISABLED_KEY = 'tools.disabled'
export const TOOLS_ENABLED_KEY = 'tools.enabled'

/** The names listed under a config key (tools.disabled / tools.enabled). */
export function toolNameList(settings: Pick<Settings, 'get'>, key: string): Set<string> {
  const raw = settings.get<unknown>(key)
  return new Set(Array.isArray(raw) ? raw.filter((v): v is string => typeof v === 'string') : [])
}
