// The runtime's settings, read at call time (slash commands change them while the agent runs):
// `agent.system_prompt`, `agent.max_iterations` (AGENT_MAX_ITERATIONS wins), `agent.reasoning_effort`,
// `agent.personality`, `agent.tool_result_max_chars`, `agent.tool_abort_grace_ms`.

import { ConfigError, REASONING_EFFORTS, type ReasoningEffort, type Settings } from 'agent/sdk'
import { perRevision } from './per-revision.ts'
import { DEFAULT_SYSTEM_PROMPT } from './prompt.ts'

export interface RuntimeSettings {
  systemPrompt: string
  maxIterations: number
  reasoningEffort?: ReasoningEffort
  personality?: string
  toolResultMaxChars: number
  toolAbortGraceMs: number
}

function positiveInt(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const n = typeof value === 'string' ? Number(value.trim()) : value
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new ConfigError(`${what} must be a positive integer (got ${JSON.stringify(value)})`)
  return n
}

/** The runtime's settings, validated (ConfigError for a bad value); reused while they are unchanged. */
export const runtimeSettings = perRevision(function runtimeSettings(settings: Settings): RuntimeSettings {
  const where = settings.configPath
  const prompt = settings.get<unknown>('agent.system_prompt')
  if (prompt !== undefined && prompt !== null && typeof prompt !== 'string') throw new ConfigError(`${where}: agent.system_prompt must be text`)
  const effort = settings.get<unknown>('agent.reasoning_effort')
  if (effort !== undefined && effort !== null && !REASONING_EFFORTS.includes(effort as ReasoningEffort)) {
    throw new ConfigError(`${where}: agent.reasoning_effort must be one of ${REASONING_EFFORTS.join(', ')}`)
  }
  const personality = settings.get<unknown>('agent.personality')
  const maxIterations = positiveInt(settings.env('AGENT_MAX_ITERATIONS'), 'AGENT_MAX_ITERATIONS') ?? positiveInt(settings.get('agent.max_iterations'), `${where}: agent.max_iterations`) ?? 90
  return {
    systemPrompt: typeof prompt === 'string' && prompt.trim() ? prompt : DEFAULT_SYSTEM_PROMPT,
    maxIterations,
    ...(effort ? { reasoningEffort: effort as ReasoningEffort } : {}),
    ...(typeof personality === 'string' && personality.trim() ? { personality: personality.trim() } : {}),
    toolResultMaxChars: positiveInt(settings.get('agent.tool_result_max_chars'), `${where}: agent.tool_result_max_chars`) ?? 50_000,
    toolAbortGraceMs: positiveInt(settings.get('agent.tool_abort_grace_ms'), `${where}: agent.tool_abort_grace_ms`) ?? 3_000,
  }
})
