// A prompt's content blocks as one run input. Text is kept as written; a resource link becomes an
// `[@name](path)` reference in place (the agent reads it with its own tools); an embedded text
// resource gets the same reference plus its text in a <context> block after the message; images
// become image parts. Audio and binary resources other than images are refused or named, not guessed.

import { fileURLToPath } from 'node:url'
import type { ContentPart } from 'agent/sdk'
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable'
import { badParams } from './errors.ts'

/** What one embedded resource may add to the input (larger ones are cut with a note). */
export const MAX_EMBEDDED_CHARS = 200_000

/** A file URI as a local path; any other URI as given. */
export function displayUri(uri: string): string {
  if (!uri.startsWith('file:')) return uri
  try {
    return fileURLToPath(uri)
  } catch {
    return uri
  }
}

function reference(name: string | undefined | null, uri: string): string {
  const target = displayUri(uri)
  const label = name?.trim() || target.split('/').filter(Boolean).pop() || target
  return `[@${label}](${target})`
}

function imageUrl(data: string, mimeType: string): string {
  return `data:${mimeType};base64,${data}`
}

function contextBlock(uri: string, text: string): string {
  const body = text.length > MAX_EMBEDDED_CHARS ? `${text.slice(0, MAX_EMBEDDED_CHARS)}\n[… ${text.length - MAX_EMBEDDED_CHARS} more characters not included]` : text
  return `<context ref="${displayUri(uri).replace(/"/g, '%22')}">\n${body}${body.endsWith('\n') ? '' : '\n'}</context>`
}

/** The run input for a prompt: a string, or parts when images are attached. Throws a -32602 failure for bad input. */
export function promptInput(blocks: readonly ContentBlock[]): string | ContentPart[] {
  if (!Array.isArray(blocks) || blocks.length === 0) throw badParams('the prompt is empty')
  let inline = ''
  const contexts: string[] = []
  const images: ContentPart[] = []
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        inline += block.text
        break
      case 'resource_link':
        inline += reference(block.title ?? block.name, block.uri)
        break
      case 'resource': {
        const resource = block.resource
        inline += reference(undefined, resource.uri)
        if ('text' in resource && typeof resource.text === 'string') contexts.push(contextBlock(resource.uri, resource.text))
        else if ('blob' in resource && resource.mimeType?.startsWith('image/')) images.push({ type: 'image_url', image_url: { url: imageUrl(resource.blob, resource.mimeType) } })
        else contexts.push(`<context ref="${displayUri(resource.uri)}">[binary content${resource.mimeType ? ` (${resource.mimeType})` : ''} not included]</context>`)
        break
      }
      case 'image':
        if (!block.mimeType?.startsWith('image/')) throw badParams(`an image block has the MIME type "${block.mimeType}", not image/*`)
        if (!block.data && !block.uri) throw badParams('an image block has neither data nor a URI')
        images.push({ type: 'image_url', image_url: { url: block.data ? imageUrl(block.data, block.mimeType) : String(block.uri ?? '') } })
        break
      case 'audio':
        throw badParams('audio prompts are not supported (promptCapabilities.audio is false)')
      default:
        throw badParams(`unsupported content block type "${(block as { type?: unknown }).type}"`)
    }
  }
  const text = [inline, ...contexts].filter((s) => s.trim()).join('\n\n')
  if (!text.trim() && images.length === 0) throw badParams('the prompt has no text')
  if (images.length === 0) return text
  return [...(text.trim() ? [{ type: 'text' as const, text }] : []), ...images]
}
