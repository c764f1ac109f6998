// MCP tools as agent tools: the namespaced name `mcp__<server>__<tool>` (model-safe, at most 64
// characters), the server's JSON Schema as parameters, and the call result (text, images, resources,
// structured content, isError) turned into what the model reads: images and wav/mp3 audio are passed
// on as media (toolResult; the runtime describes them to a model that does not read them), other
// audio is described.

import { createHash } from 'node:crypto'
import { AgentError, audioFormat, base64Bytes, defineTool, toolResult, type ToolDefinition, type ToolResultWithImages } from 'agent/sdk'
import type { CachedTool } from './cache.ts'
import type { McpManager } from './connection.ts'

const MAX_NAME = 64
const MAX_RESULT_CHARS = 100_000

const clean = (text: string) => text.replace(/[^A-Za-z0-9_-]/g, '_')

/** `mcp__<server>__<tool>`, shortened with a hash suffix when longer than 64 characters. */
export function bridgedName(server: string, tool: string): string {
  const full = `mcp__${clean(server)}__${clean(tool)}`
  if (full.length <= MAX_NAME) return full
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, 8)
  return `${full.slice(0, MAX_NAME - 9)}_${hash}`
}

export const toolsetOf = (server: string) => `mcp-${server}`

/** An object schema the model APIs accept, whatever the server sent. */
function objectSchema(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (schema && typeof schema === 'object' && schema.type === 'object') return schema
  return { ...(schema ?? {}), type: 'object', properties: (schema?.properties as Record<string, unknown> | undefined) ?? {} }
}

interface ContentPart {
  type: string
  text?: string
  data?: string
  mimeType?: string
  uri?: string
  name?: string
  resource?: { uri?: string; text?: string; blob?: string; mimeType?: string }
}

/** Images and audio clips passed to the model per result, and the largest (base64 characters) passed at all. */
const MAX_IMAGES = 8
const MAX_IMAGE_CHARS = 8_000_000

type Image = ToolResultWithImages['images'][number]

/** An MCP image or audio part as a chat media part, or undefined when it is not passed on. */
function mediaPart(part: ContentPart, count: number): Image | undefined {
  if (!part.data || count >= MAX_IMAGES || part.data.length > MAX_IMAGE_CHARS) return undefined
  if (part.type === 'image') return { type: 'image_url', image_url: { url: `data:${part.mimeType ?? 'image/png'};base64,${part.data}` } }
  const format = audioFormat(part.mimeType)
  return format ? { type: 'input_audio', input_audio: { data: part.data, format } } : undefined
}

/** Text, images and audio for the model from a CallToolResult; an isError result throws with the server's message. */
export function resultContent(result: unknown, tool: string, server = ''): { text: string; images: Image[] } {
  const r = (result ?? {}) as { content?: ContentPart[]; structuredContent?: unknown; isError?: boolean; toolResult?: unknown }
  const parts: string[] = []
  const images: Image[] = []
  for (const part of r.content ?? []) {
    if (part.type === 'text') parts.push(part.text ?? '')
    else if (part.type === 'image' || part.type === 'audio') {
      const media = mediaPart(part, images.length)
      if (media) images.push(media)
      else parts.push(`[${part.type}: ${part.mimeType ?? 'unknown type'}, ${base64Bytes(part.data ?? '')} bytes, not passed on (${part.type === 'audio' && !audioFormat(part.mimeType) ? 'not wav or mp3' : 'too large or too many'})]`)
    }
    else if (part.type === 'resource') parts.push(part.resource?.text ?? `[resource ${part.resource?.uri ?? ''} (${part.resource?.mimeType ?? 'binary'})]`)
    else if (part.type === 'resource_link') parts.push(`[resource link: ${part.uri ?? ''}${part.name ? ` (${part.name})` : ''}${server ? `; read it with ${bridgedName(server, 'read_resource')}` : ''}]`)
  }
  let text = parts.join('\n')
  if (!text && r.structuredContent !== undefined) text = JSON.stringify(r.structuredContent)
  if (!text && r.toolResult !== undefined) text = typeof r.toolResult === 'string' ? r.toolResult : JSON.stringify(r.toolResult)
  if (text.length > MAX_RESULT_CHARS) text = `${text.slice(0, MAX_RESULT_CHARS)}\n[truncated: the result had ${text.length} characters]`
  if (r.isError) throw new AgentError('E_TOOL', text || `MCP tool "${tool}" reported an error`)
  return { text, images }
}

export function bridgeTool(server: string, tool: CachedTool, manager: () => McpManager): ToolDefinition {
  return defineTool<Record<string, unknown>>({
    name: bridgedName(server, tool.name),
    toolset: toolsetOf(server),
    description: `[MCP ${server}] ${tool.description ?? tool.name}`.slice(0, 1024),
    parameters: objectSchema(tool.inputSchema),
    async execute({ input, signal, session }) {
      const result = await manager().call(server, tool.name, input && typeof input === 'object' ? input : {}, { signal, session })
      const { text, images } = resultContent(result, tool.name, server)
      return images.length ? toolResult(text, images) : text
    },
  })
}
