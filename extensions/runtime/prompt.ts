// The system prompt of a run, in layers: the agent's own prompt (config `agent.system_prompt` or the
// built-in one), the session's personality overlay (top-level `personalities`), loaded skills, the
// caller's RunRequest.systemPrompt, and context summaries of compressed turns. Built per run and
// never stored; extensions may layer more through the beforeModelRequest hook.

import { UsageError, type PersonalityInfo, type Settings } from 'agent/sdk'

export const DEFAULT_SYSTEM_PROMPT = [
  'You are the agent, a capable assistant that can use tools to get things done.',
  'Use the tools when they help: read files before changing them, prefer small exact edits, and check your work.',
  'When a tool fails or is blocked, read the reason and adapt instead of repeating the same call.',
  'Answer concisely and say plainly when you could not do something.',
].join('\n')

interface PersonalityEntry {
  prompt: string
  description?: string
}

/** `personalities: { name: "text" }` or `{ name: { prompt | system_prompt, description } }`. */
export function readPersonalities(settings: Settings): Map<string, PersonalityEntry> {
  const raw = settings.get<unknown>('personalities')
  const out = new Map<string, PersonalityEntry>()
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string' && value.trim()) out.set(name, { prompt: value.trim() })
    else if (value && typeof value === 'object') {
      const v = value as Record<string, unknown>
      const prompt = typeof v.prompt === 'string' ? v.prompt : typeof v.system_prompt === 'string' ? v.system_prompt : undefined
      if (prompt?.trim()) out.set(name, { prompt: prompt.trim(), ...(typeof v.description === 'string' ? { description: v.description } : {}) })
    }
  }
  return out
}

export function personalityList(settings: Settings): PersonalityInfo[] {
  return [...readPersonalities(settings)].map(([name, entry]) => ({ name, ...(entry.description ? { description: entry.description } : {}) }))
}

/** The overlay text of a personality; an unknown name is a usage error listing the known ones. */
export function personalityPrompt(settings: Settings, name: string): string {
  const all = readPersonalities(settings)
  const entry = all.get(name)
  if (!entry) {
    const known = [...all.keys()]
    throw new UsageError(`unknown personality "${name}" (${known.length ? `configured: ${known.join(', ')}` : 'none is configured under `personalities` in config.yaml'})`)
  }
  return entry.prompt
}

export interface PromptLayers {
  base: string
  personality?: string
  skills?: string
  caller?: string
  /** Context summaries (stored `system` messages of the session). */
  summaries: string[]
  cwd: string
}

export function buildSystemPrompt(layers: PromptLayers): string {
  const parts = [layers.base.trim(), `Working directory: ${layers.cwd}`]
  if (layers.personality) parts.push(`# Personality\n${layers.personality}`)
  if (layers.skills?.trim()) parts.push(layers.skills.trim())
  if (layers.caller?.trim()) parts.push(layers.caller.trim())
  for (const summary of layers.summaries) if (summary.trim()) parts.push(summary.trim())
  return parts.join('\n\n')
}
