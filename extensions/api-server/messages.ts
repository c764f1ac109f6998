// Turns chat-completions and responses request bodies into one agent turn: the input (the last user
// message) or, after client tool calls, the tool results that continue the run; the history before
// it (assistant tool calls and tool results included); and the frontend's system text (layered by the
// runtime after the agent's own prompt, never stored). Anything malformed is a 400 naming the field.

import { HttpError, type ChatMessage, type ContentPart } from 'agent/sdk'

export interface Turn {
  /** The new user input; undefined when the turn ends with tool results instead (resume the run). */
  input?: string | ContentPart[]
  /** The input as a message, for transcripts and session keys. */
  inputMessage?: ChatMessage
  /** Everything before the input; resuming, everything before the trailing tool results. */
  history: ChatMessage[]
  /** Trailing tool results answering the model's client tool calls ([] unless resuming). */
  results: ChatMessage[]
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
    if (type === 'refusal') {
      const text = (part as { refusal?: unknown }).refusal
      if (typeof text !== 'string') throw badRequest('A refusal part needs a string "refusal"', where, 'invalid_content')
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

type Item = Omit<ChatMessage, 'role'> & { role: ChatMessage['role'] | 'developer' }

function hasContent(m: ChatMessage): boolean {
  return m.role === 'tool' || !isEmpty(m.content ?? '') || Boolean(m.toolCalls?.length)
}

/**
 * The common part: system texts joined; the input is the last user message, or (when the last
 * message is a tool result) the trailing tool results resume the run; user, assistant and tool
 * messages before it are the history.
 */
function toTurn(items: Item[], param: string, leadingSystem: string[] = []): Turn {
  const system = [...leadingSystem]
  const rest: ChatMessage[] = []
  const positions: number[] = []
  items.forEach((item, index) => {
    if (item.role === 'system' || item.role === 'developer') {
      const text = textOf(item.content).trim()
      if (text) system.push(text)
    } else {
      rest.push(item as ChatMessage)
      positions.push(index)
    }
  })
  const systemPrompt = system.join('\n').trim() || undefined
  if (rest.at(-1)?.role === 'tool') {
    let first = rest.length
    while (first > 0 && rest[first - 1]!.role === 'tool') first--
    return { history: rest.slice(0, first).filter(hasContent), results: rest.slice(first), systemPrompt }
  }
  let last = -1
  for (let i = rest.length - 1; i >= 0; i--) if (rest[i]!.role === 'user') {
    last = i
    break
  }
  if (last < 0) throw badRequest(`${param} must include a user message`, param, 'missing_user_message')
  const input = rest[last]!.content ?? ''
  if (isEmpty(input)) throw badRequest('The last user message is empty', `${param}[${positions[last]}].content`, 'empty_input')
  // Messages after the last user message (an assistant prefill) are not replayed.
  return { input, inputMessage: { role: 'user', content: input }, history: rest.slice(0, last).filter(hasContent), results: [], systemPrompt }
}

function record(value: unknown, where: string, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${what} must be an object`, where, 'invalid_messages')
  return value as Record<string, unknown>
}

function nonEmptyString(value: unknown, where: string, what: string): string {
  if (typeof value !== 'string' || value === '') throw badRequest(`${what} must be a non-empty string`, where, 'invalid_messages')
  return value
}

/** Arguments as JSON text: clients send the string the model produced; an object is serialised. */
function argumentsText(value: unknown): string {
  if (value === undefined || value === null) return '{}'
  return typeof value === 'string' ? value : JSON.stringify(value)
}

/** A tool result's content: a string, or text parts joined (images are not passed to tool results). */
function resultText(value: unknown, where: string): string {
  if (typeof value === 'string') return value
  if (value === undefined || value === null) return ''
  return textOf(content(value, where))
}

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])

export function parseChatBody(body: Record<string, unknown>): Turn {
  const messages = body.messages
  if (!Array.isArray(messages) || messages.length === 0) throw badRequest('"messages" must be a non-empty array', 'messages', 'invalid_messages')
  const items: Item[] = []
  messages.forEach((value, index) => {
    const where = `messages[${index}]`
    const message = record(value, where, 'Each message')
    const role = message.role
    if (typeof role !== 'string' || !CHAT_ROLES.has(role)) throw badRequest(`Unknown message role ${JSON.stringify(role ?? null)}`, `${where}.role`, 'invalid_messages')
    // The deprecated `function` role has no call id to pair it with: not replayed.
    if (role === 'function') return
    if (role === 'tool') {
      const toolCallId = nonEmptyString(message.tool_call_id, `${where}.tool_call_id`, 'A tool message\'s "tool_call_id"')
      return void items.push({ role: 'tool', toolCallId, content: resultText(message.content, `${where}.content`) })
    }
    const item: Item = { role: role as Item['role'], content: content(message.content, `${where}.content`) }
    if (role === 'assistant') {
      if (isEmpty(item.content!) && typeof message.refusal === 'string') item.content = message.refusal
      if (message.tool_calls !== undefined && message.tool_calls !== null) {
        if (!Array.isArray(message.tool_calls)) throw badRequest('"tool_calls" must be a list', `${where}.tool_calls`, 'invalid_messages')
        const calls = message.tool_calls.map((c, i) => {
          const at = `${where}.tool_calls[${i}]`
          const call = record(c, at, 'A tool call')
          const fn = record(call.function, `${at}.function`, 'A tool call\'s "function"')
          return { id: nonEmptyString(call.id, `${at}.id`, 'A tool call\'s "id"'), name: nonEmptyString(fn.name, `${at}.function.name`, 'A tool call\'s name'), arguments: argumentsText(fn.arguments) }
        })
        if (calls.length) item.toolCalls = calls
      }
    }
    items.push(item)
  })
  return toTurn(items, 'messages')
}

const INPUT_ROLES = new Set(['system', 'developer', 'user', 'assistant'])

/** Finds an earlier item by id (`item_reference`): an output or input item of a stored response. */
export type ItemResolver = (id: string) => Record<string, unknown> | undefined

/**
 * `input` of the responses API: a string, or a list of strings and items: messages (content as a
 * string or input_text / output_text / refusal / input_image parts), `function_call` and
 * `function_call_output` items, `item_reference` (resolved with `resolve`), `reasoning` (skipped: the
 * agent keeps its own). Any other item type is refused.
 */
export function parseResponsesInput(input: unknown, resolve: ItemResolver = () => undefined): Turn {
  if (typeof input === 'string') {
    if (input.trim() === '') throw badRequest('"input" must not be empty', 'input', 'empty_input')
    return { input, inputMessage: { role: 'user', content: input }, history: [], results: [] }
  }
  if (!Array.isArray(input) || input.length === 0) throw badRequest('"input" must be a string or a non-empty list of items', 'input', 'invalid_input')
  const items: Item[] = []
  const add = (value: unknown, where: string, referenced: boolean): void => {
    if (typeof value === 'string') return void items.push({ role: 'user', content: value })
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('Each input item must be a string or an object', where, 'invalid_input')
    const item = value as Record<string, unknown>
    switch (item.type ?? 'message') {
      case 'message': {
        const role = item.role
        if (typeof role !== 'string' || !INPUT_ROLES.has(role)) throw badRequest(`Unknown input role ${JSON.stringify(role ?? null)}`, `${where}.role`, 'invalid_input')
        return void items.push({ role: role as Item['role'], content: content(item.content, `${where}.content`) })
      }
      case 'function_call': {
        const call = { id: nonEmptyString(item.call_id, `${where}.call_id`, '"call_id"'), name: nonEmptyString(item.name, `${where}.name`, '"name"'), arguments: argumentsText(item.arguments) }
        // Calls of one turn (and the text before them) are one assistant message, as the model sent them.
        const previous = items.at(-1)
        if (previous?.role === 'assistant') (previous.toolCalls ??= []).push(call)
        else items.push({ role: 'assistant', content: null, toolCalls: [call] })
        return
      }
      case 'function_call_output':
        return void items.push({ role: 'tool', toolCallId: nonEmptyString(item.call_id, `${where}.call_id`, '"call_id"'), content: resultText(item.output, `${where}.output`) })
      case 'item_reference': {
        const id = nonEmptyString(item.id, `${where}.id`, '"id"')
        const found = referenced ? undefined : resolve(id)
        if (!found) throw new HttpError(404, `Item not found: ${id}`, { param: `${where}.id`, code: 'item_not_found' })
        return add(found, where, true)
      }
      case 'reasoning':
        return
      default:
        throw badRequest(`Unsupported input item type ${JSON.stringify(item.type)}`, `${where}.type`, 'unsupported_input_item')
    }
  }
  input.forEach((item, index) => add(item, `input[${index}]`, false))
  return toTurn(items, 'input')
}
