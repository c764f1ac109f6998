// Turns chat-completions and responses request bodies into one agent turn: the input (the last user
// message), the history before it, and the frontend's system text (layered by the runtime after the
// agent's own prompt, never stored). Anything malformed is a 400 naming the offending field.

import { HttpError, type ChatMessage, type ContentPart } from 'agent/sdk'

export interface Turn {
  input: string | ContentPart[]
  /** The input as a message, for transcripts and session keys. */
  inputMessage: ChatMessage
  history: ChatMessage[]
  /** Frontend system text, undefined when there is none. */
  systemPrompt?: string
}

export function badRequest(message: string, param: string | null = null, code = 'invalid_request'): HttpError {
  return new HttpError(400, message, { param: param ?? undefined, code })
}

const FALSE_STRINGS = new Set(['false', '0', 'no', 'off', ''])

/** Booleans as frontends send them: true/false, or strings such as "false" and "0". */
export function flag(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'string') return !FALSE_STRINGS.has(value.trim().toLowerCase())
  return Boolean(value)
}

function imagePart(source: unknown, param: string): ContentPart {
  const url = typeof source === 'string' ? source : (source as { url?: unknown } | null)?.url
  if (typeof url !== 'string' || !/^(https?:\/\/|data:image\/)/i.test(url)) {
    throw badRequest('Image parts need an http(s) URL or a data:image/ URL', param, 'invalid_image_url')
  }
  return { type: 'image_url', image_url: { url } }
}

/** Content as a string, or parts (text and images). Other part types are refused. */
function content(value: unknown, param: string): string | ContentPart[] {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) throw badRequest('Content must be a string or a list of parts', param, 'invalid_content')
  const parts: ContentPart[] = []
  value.forEach((part, index) => {
    const where = `${param}[${index}]`
    if (typeof part === 'string') return void parts.push({ type: 'text', text: part })
    const type = (part as { type?: unknown } | null)?.type
    if (type === 'text' || type === 'input_text' || type === 'output_text') {
      const text = (part as { text?: unknown }).text
      if (typeof text !== 'string') throw badRequest('A text part needs a string "text"', where, 'invalid_content')
      return void parts.push({ type: 'text', text })
    }
    if (type === 'image_url' || type === 'input_image') return void parts.push(imagePart((part as { image_url?: unknown }).image_url, where))
    throw badRequest(`Unsupported content part type ${JSON.stringify(type ?? null)}`, where, 'unsupported_content_type')
  })
  // Text-only content travels as one string: what most models and the session store expect.
  return parts.every((p) => p.type === 'text') ? parts.map((p) => (p as { text: string }).text).join('\n') : parts
}

/** The text of a message's content (images dropped). */
export function textOf(value: string | ContentPart[] | null): string {
  if (value === null) return ''
  if (typeof value === 'string') return value
  return value
    .filter((p): p is { type: 'text'; text: string } => p.type === 'text')
    .map((p) => p.text)
    .join('\n')
}

function isEmpty(value: string | ContentPart[]): boolean {
  return typeof value === 'string' ? value.trim() === '' : value.length === 0
}

interface Item {
  role: string
  content: string | ContentPart[]
}

/** The common part: system texts joined, the last user message as input, user/assistant before it as history. */
function toTurn(items: Item[], param: string, leadingSystem: string[] = []): Turn {
  let last = -1
  for (let i = items.length - 1; i >= 0; i--) if (items[i]!.role === 'user') {
    last = i
    break
  }
  if (last < 0) throw badRequest(`${param} must include a user message`, param, 'missing_user_message')
  const input = items[last]!.content
  if (isEmpty(input)) throw badRequest('The last user message is empty', `${param}[${last}].content`, 'empty_input')
  const system = [...leadingSystem]
  const history: ChatMessage[] = []
  items.forEach((item, index) => {
    if (item.role === 'system' || item.role === 'developer') {
      const text = textOf(item.content).trim()
      if (text) system.push(text)
    } else if (index < last && (item.role === 'user' || item.role === 'assistant') && !isEmpty(item.content)) {
      // Tool messages and client tool calls are not replayed: the agent's tools run server-side.
      history.push({ role: item.role, content: item.content })
    }
  })
  const systemPrompt = system.join('\n').trim()
  return { input, inputMessage: { role: 'user', content: input }, history, systemPrompt: systemPrompt || undefined }
}

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])

export function parseChatBody(body: Record<string, unknown>): Turn {
  const messages = body.messages
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('"messages" must be a non-empty array', 'messages', 'invalid_messages')
  const items = messages.map((message, index): Item => {
    const where = `messages[${index}]`
    if (typeof message !== 'object' || message === null || Array.isArray(message)) throw badRequest('Each message must be an object', where, 'invalid_messages')
    const role = (message as { role?: unknown }).role
    if (typeof role !== 'string' || !CHAT_ROLES.has(role)) throw badRequest(`Unknown message role ${JSON.stringify(role ?? null)}`, `${where}.role`, 'invalid_messages')
    // Tool results may carry any content; they are dropped anyway.
    if (role === 'tool' || role === 'function') return { role, content: '' }
    return { role, content: content((message as { content?: unknown }).content, `${where}.content`) }
  })
  return toTurn(items, 'messages')
}

const INPUT_ROLES = new Set(['system', 'developer', 'user', 'assistant'])

/** `input` of the responses API: a string, or a list of strings and message items. */
export function parseResponsesInput(input: unknown): Turn {
  if (typeof input === 'string') {
    if (input.trim() === '') throw badRequest('"input" must not be empty', 'input', 'empty_input')
    return { input, inputMessage: { role: 'user', content: input }, history: [] }
  }
  if (!Array.isArray(input) || input.length === 0) throw badRequest('"input" must be a string or a non-empty list of items', 'input', 'invalid_input')
  const items: Item[] = []
  input.forEach((item, index) => {
    const where = `input[${index}]`
    if (typeof item === 'string') return void items.push({ role: 'user', content: item })
    if (typeof item !== 'object' || item === null) throw badRequest('Each input item must be a string or an object', where, 'invalid_input')
    const { type, role } = item as { type?: unknown; role?: unknown }
    // Function calls and their outputs, reasoning and references: the agent runs its own tools.
    if (type !== undefined && type !== 'message') return
    if (typeof role !== 'string' || !INPUT_ROLES.has(role)) throw badRequest(`Unknown input role ${JSON.stringify(role ?? null)}`, `${where}.role`, 'invalid_input')
    items.push({ role, content: content((item as { content?: unknown }).content, `${where}.content`) })
  })
  return toTurn(items, 'input')
}
