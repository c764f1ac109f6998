// What `agent mcp serve` answers for a tool call: text for every client, plus `structuredContent`
// when the tool returned an object (validated by clients against the tool's outputSchema, when it
// declares one), and image parts when it returned the sdk's `toolResult(text, images)`. Known secrets
// are removed from all of it.

import { audioFormatMimeType, isToolResultWithImages, redactSecrets } from 'agent/sdk'

export type ServedContent = { type: 'text'; text: string } | { type: 'image' | 'audio'; data: string; mimeType: string }

export interface ServedResult {
  [key: string]: unknown
  content: ServedContent[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

const DATA_URL = /^data:(image\/[A-Za-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]+)$/

/** The images of an sdk `toolResult(text, images)` as MCP image parts (a linked image as its URL). */
export function imageParts(value: unknown): ServedContent[] | undefined {
  if (!isToolResultWithImages(value)) return undefined
  return value.images.map((part) => {
    if (part.type === 'input_audio') return { type: 'audio', mimeType: audioFormatMimeType(part.input_audio.format), data: part.input_audio.data }
    const url = part.image_url.url
    const match = DATA_URL.exec(url)
    return match ? { type: 'image', mimeType: match[1]!, data: match[2]!.replace(/\s/g, '') } : { type: 'text', text: `[image: ${url}]` }
  })
}

const isRecord = (value: unknown): value is Record<string, unknown> => Boolean(value) && typeof value === 'object' && !Array.isArray(value)

/**
 * The answer to a call that ran. `text` is the outcome after afterToolCall (what the agent's model
 * would read); the structured and image forms of `value` are sent only when no hook rewrote it
 * (structured content always when the tool declares an outputSchema: the protocol requires it).
 */
export function servedResult(value: unknown, outcome: { ok: boolean; result: string }, rawText: string, secrets: Iterable<string | undefined>, declaresSchema = false): ServedResult {
  const list = [...secrets]
  const text = redactSecrets(outcome.result, list)
  if (!outcome.ok) return { content: [{ type: 'text', text }], isError: true }
  const untouched = outcome.result === rawText
  const images = untouched ? imageParts(value) : undefined
  if (images) return { content: [{ type: 'text', text }, ...images] }
  const result: ServedResult = { content: [{ type: 'text', text }] }
  // A tool that declares an outputSchema must send structured content (clients refuse a result without).
  if ((untouched || declaresSchema) && isRecord(value)) {
    try {
      const structured: unknown = JSON.parse(redactSecrets(JSON.stringify(value), list))
      if (isRecord(structured)) result.structuredContent = structured
    } catch {
      // Redaction broke the JSON (a secret spanning an escape): text only.
    }
  }
  return result
}
