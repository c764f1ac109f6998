// The chat head key: heads stored by an earlier version must still be found, so the key of a given
// conversation never changes (pinned here), while what should tell conversations apart does.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ChatMessage } from 'agent/sdk'
import { conversationKey } from '../../../extensions/api-server/session-key.ts'

const conversation: ChatMessage[] = [
  { role: 'user', content: ' hi  there\ud800' },
  { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }] },
  { role: 'tool', toolCallId: 'c1', content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'http://i' } }] },
]

test('the key of a conversation is the one earlier versions stored', () => {
  assert.equal(conversationKey(conversation), 'R0C6VHUnVw77Vi-B7qYH2HE6N-LzKj7zXRawkPMiSy0')
})

test('whitespace does not split a conversation; roles, tool call ids and image URLs do', () => {
  const key = conversationKey(conversation)
  assert.equal(conversationKey([{ ...conversation[0]!, content: 'hi there\ud800 ' }, ...conversation.slice(1)]), key)
  assert.notEqual(conversationKey([{ ...conversation[0]!, role: 'assistant' }, ...conversation.slice(1)]), key)
  assert.notEqual(conversationKey([conversation[0]!, { ...conversation[1]!, toolCalls: [{ id: 'c2', name: 'f', arguments: '{}' }] }, conversation[2]!]), key)
  assert.notEqual(conversationKey([...conversation.slice(0, 2), { ...conversation[2]!, content: [{ type: 'text', text: 'x' }, { type: 'image_url', image_url: { url: 'http://j' } }] }]), key)
})

test('no message text passes for the boundary between messages or fields', () => {
  // Unescaped, the first conversation's one message hashed as the second's two did.
  const forged: ChatMessage[] = [{ role: 'user', content: 'a\u0001user\u0000b' }]
  const two: ChatMessage[] = [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }]
  assert.notEqual(conversationKey(forged), conversationKey(two))
  const call = (id: string, name: string): ChatMessage => ({ role: 'assistant', content: null, toolCalls: [{ id, name, arguments: '{}' }] })
  assert.notEqual(conversationKey([call('c1\u0000f', 'g')]), conversationKey([call('c1', 'f\u0000g')]))
  // The escape character itself is escaped: an escaped separator cannot be forged either.
  assert.notEqual(conversationKey([{ role: 'user', content: 'a\u00050' }]), conversationKey([{ role: 'user', content: 'a\u0000' }]))
  // A look-alike without separator characters keeps its key.
  assert.equal(conversationKey([{ role: 'user', content: 'a 0 b' }]), conversationKey([{ role: 'user', content: ' a  0 b ' }]))
})
