// What `agent mcp serve` answers for a tool call: text for every client, plus `structuredContent`
// when the tool returned an object (validated by clients against the tool's outputSchema, when it
// declares one), and image parts when it returned content parts with images (the sdk's ContentPart
// `image_url` data URLs, or MCP-shaped `{type: 'image', data, mimeType}` parts). Known secrets are
// removed from all of it.

import { redactSecrets } from 'agent/sdk'

export type ServedContent = { type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }

export interface ServedResult {
  [key: string]: unknown
  content: ServedContent[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

const DATA_URL = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/

/** One part of a content-part list, or undefined when `part` is not one. */
function servedPart(part: unknown): ServedContent | undefined {
  if (!part || typeof part !== 'object') return undefined
  const p = part as Record<string, unknown>
  if (p.type === 'text' && typeof p.text === 'string') return { type: 'text', text: p.text }
  if (p.type === 'image' && typeof p.data === 'string' && typeof p.mimeType === 'string') return { type: 'image', data: p.data, mimeType: p.mimeType }
  const url = (p.image_url as { url?: unknown } | undefined)?.url
  if (p.type === 'image_url' && typeof url === 'string') {
    const match = DATA_URL.exec(url)
    return match ? { type: 'image', mimeType: match[1]!, data: match[2]!.replace(/\s/g, '') } : { type: 'text', text: `[image: ${url}]` }
  }
  return undefined
}

/** The value as MCP content parts when it is a list of content parts with at least one image. */
export function contentParts(value: unknown): ServedContent[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined
  const parts = value.map(servedPart)
  if (parts.some((p) => p === undefined) || !parts.some((p) => p!.type === 'image')) return undefined
  return parts as ServedContent[]
}

const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value)

/**
 * The answer to a call that ran. `text` is the outcome after afterToolCall (what the agent's model
 * would read); the structured and image forms of `value` are sent only when no hook rewrote it.
 */
export function servedResult(value: unknown, outcome: { ok: boolean; result: string }, rawText: string, secrets: Iterable<string | undefined>): ServedResult {
  const list = [...secrets]
  const text = redactSecrets(outcome.result, list)
  if (!outcome.ok) return { content: [{ type: 'text', text }], isError: true }
  const untouched = outcome.result === rawText
  const parts = untouched ? contentParts(value) : undefined
  if (parts) return { content: parts.map((p) => (p.type === 'text' ? { type: 'text', text: redactSecrets(p.text, list) } : p)) }
  const result: ServedResult = { content: [{ type: 'text', text }] }
  if (untouched && isRecord(value)) {
    try {
      const structured: unknown = JSON.parse(redactSecrets(JSON.stringify(value), list))
      if (isRecord(structured)) result.structuredContent = structured
    } catch {
      // Redaction broke the JSON (a secret spanning an escape): text only.
    }
  }
  return result
}
