// What the `runtime` service offers beyond AgentRuntime.run (sdk/model.ts): manual compression,
// personalities, the tools a run would offer, and the rule that decides whether a tool is enabled.

import type { AgentRuntime, ToolSchema } from './model.ts'
import type { Settings, ToolDefinition } from './types.ts'

export interface CompressOptions {
  signal?: AbortSignal
  /** Compress even when the context is far from the model's limit (default true for manual calls). */
  force?: boolean
}

export interface CompressionOutcome {
  compressed: boolean
  /** Why nothing was compressed (too few messages …). */
  reason?: string
  /** The session the conversation continues in (the new continuation, or the same one). */
  sessionId: string
  parentSessionId?: string
  /** Messages in the context before and after. */
  beforeMessages: number
  afterMessages: number
  /** Estimated prompt tokens before and after. */
  beforeTokens: number
  afterTokens: number
}

export interface PersonalityInfo {
  name: string
  description?: string
}

export interface OfferedToolsOptions {
  toolsets?: string[]
  enableTools?: string[]
  disableTools?: string[]
}

export interface RuntimeService extends AgentRuntime {
  /** Summarises the older turns of a stored session into a continuation session (lineage `compression`). */
  compress(sessionId: string, options?: CompressOptions): Promise<CompressionOutcome>
  /** Personalities of the top-level `personalities` config key. */
  personalities(): PersonalityInfo[]
  /** Selects (or with null clears) the personality of a stored session; an unknown name is a UsageError. */
  setPersonality(sessionId: string, name: string | null): Promise<void>
  /** The tool schemas a run with these options would offer the model. */
  offeredTools(options?: OfferedToolsOptions): ToolSchema[]
}

/**
 * Whether a tool is on: config `tools.disabled` (tool or toolset names) turns tools off, `tools.enabled`
 * turns on tools that are off by default; otherwise the tool's own `enabledByDefault` (default true).
 */
export function toolEnabled(tool: Pick<ToolDefinition, 'name' | 'toolset' | 'enabledByDefault'>, settings: Pick<Settings, 'get'>, owner?: string): boolean {
  const names = [tool.name, tool.toolset ?? owner].filter((n): n is string => Boolean(n))
  const list = (key: string) => {
    const value = settings.get<unknown>(key)
    return Array.isArray(value) ? value.map(String) : []
  }
  if (list('tools.disabled').some((n) => names.includes(n))) return false
  if (list('tools.enabled').some((n) => names.includes(n))) return true
  return tool.enabledByDefault !== false
}
