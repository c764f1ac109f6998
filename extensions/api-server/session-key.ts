// Keeps a chat-completions frontend in one agent session although every request is stateless: the
// conversation it resends is hashed, and the hash of "history + input + our answer" is remembered
// for the session, so the next request (whose history is exactly that) finds it again.

import { createHash } from 'node:crypto'
import { randomHex, type ChatMessage } from 'agent/sdk'
import { textOf } from './messages.ts'

/**
 * A stable key for a list of user/assistant/tool messages. Whitespace is normalised (frontends trim or
 * re-wrap what they resend); images count by URL. The frontend's system text is left out on purpose:
 * frontends template the date and similar into it, which would split one conversation into many.
 */
export function conversationKey(messages: readonly ChatMessage[]): string {
  const hash = createHash('sha256')
  for (const message of messages) {
    hash.update(message.role)
    hash.update('\u0000')
    hash.update(textOf(message.content).replace(/\s+/g, ' ').trim())
    if (Array.isArray(message.content)) for (const part of message.content) if (part.type === 'image_url') hash.update(`\u0002${part.image_url.url}`)
    // Client tool calls and their results, exactly as sent back (ids and argument text).
    if (message.toolCalls) for (const call of message.toolCalls) hash.update(`\u0003${call.id}\u0000${call.name}\u0000${call.arguments}`)
    if (message.toolCallId) hash.update(`\u0004${message.toolCallId}`)
    hash.update('\u0001')
  }
  return hash.digest('base64url')
}

export function newId(prefix: string, bytes = 14): string {
  return `${prefix}${randomHex(bytes)}`
}
