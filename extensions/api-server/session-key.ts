// Keeps a chat-completions frontend in one agent session although every request is stateless: the
// conversation it resends is hashed, and the hash of "history + input + our answer" is remembered
// for the session, so the next request (whose history is exactly that) finds it again.

import { hash } from 'node:crypto'
import { randomHex, type ChatMessage } from 'agent/sdk'
import { textOf } from './messages.ts'

/**
 * A stable key for a list of user/assistant/tool messages. Whitespace is normalised (frontends trim or
 * re-wrap what they resend); images count by URL. The frontend's system text is left out on purpose:
 * frontends template the date and similar into it, which would split one conversation into many.
 */
export function conversationKey(messages: readonly ChatMessage[]): string {
  // One string hashed in one call (each update() is a call into C++; every request hashes its
  // conversation). The same bytes as a hash fed piece by piece: keys stored earlier still match.
  let text = ''
  for (const message of messages) {
    text += `${message.role}\u0000${field(textOf(message.content).replace(/\s+/g, ' ').trim())}`
    if (Array.isArray(message.content)) for (const part of message.content) if (part.type === 'image_url') text += `\u0002${field(part.image_url.url)}`
    // Client tool calls and their results, exactly as sent back (ids and argument text).
    if (message.toolCalls) for (const call of message.toolCalls) text += `\u0003${field(call.id)}\u0000${field(call.name)}\u0000${field(call.arguments)}`
    if (message.toolCallId) text += `\u0004${field(message.toolCallId)}`
    text += '\u0001'
  }
  return hash('sha256', text, 'base64url')
}

/** The separators, and the escape that keeps them apart from a field's own characters. */
const SEPARATORS = /[\u0000-\u0005]/g

/**
 * A field with its separator characters escaped (U+0005 and a digit), so that no message's text can
 * pass for the boundary between two messages. Text without them (all but hostile input) is left as it
 * is: the keys of such conversations stay the ones stored before the escape existed.
 */
function field(value: string): string {
  return value.replace(SEPARATORS, (c) => `\u0005${c.charCodeAt(0)}`)
}

export function newId(prefix: string, bytes = 14): string {
  return `${prefix}${randomHex(bytes)}`
}
