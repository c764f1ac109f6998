// Images a tool returns (sdk toolResult) on the providers' wires: the chat-completions wire keeps the
// tool message text-only and sends the batch's images in one user message after its results; the
// Messages API wire puts them inside the tool_result; a text-only tool message is unchanged.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isToolResultWithImages, toolResult, type ChatMessage } from 'agent/sdk'
import { toWireMessages } from '../../../extensions/provider-openai-compat/wire.ts'
import { toWireBody } from '../../../extensions/provider-native-vendor/wire.ts'
import { resultText } from '../../../extensions/runtime/tools.ts'

const PNG = 'data:image/png;base64,iVBORw0KGgo='
const messages: ChatMessage[] = [
  { role: 'user', content: 'look' },
  { role: 'assistant', content: null, toolCalls: [{ id: 'a', name: 'shot', arguments: '{}' }, { id: 'b', name: 'echo', arguments: '{}' }] },
  { role: 'tool', toolCallId: 'a', name: 'shot', content: [{ type: 'text', text: 'a screenshot' }, { type: 'image_url', image_url: { url: PNG } }] },
  { role: 'tool', toolCallId: 'b', name: 'echo', content: 'plain' },
  { role: 'assistant', content: 'seen' },
]

test('toolResult: marked, its text is what the runtime stores as text', () => {
  const value = toolResult('a screenshot', [{ type: 'image_url', image_url: { url: PNG } }])
  assert.ok(isToolResultWithImages(value))
  assert.ok(!isToolResultWithImages({ text: 'x', images: [] }), 'a look-alike object is not one')
  assert.equal(resultText(value), 'a screenshot')
})

test('chat-completions wire: tool messages text only, the images in one user message after the results', () => {
  const wire = toWireMessages(messages)
  assert.deepEqual(wire.map((m) => m.role), ['user', 'assistant', 'tool', 'tool', 'user', 'assistant'])
  assert.equal(wire[2]!.content, 'a screenshot')
  assert.equal(wire[3]!.content, 'plain')
  assert.deepEqual((wire[4]!.content as any[])[1], { type: 'image_url', image_url: { url: PNG } })
  assert.deepEqual(toWireMessages([messages[0]!, messages[1]!, messages[3]!]).map((m) => m.role), ['user', 'assistant', 'tool'], 'no images, no extra message')
})

test('Messages API wire: the image inside the tool_result', () => {
  const body = toWireBody('m', { messages }, false) as { messages: Array<{ role: string; content: any[] }> }
  const results = body.messages.flatMap((m) => m.content).filter((b: any) => b.type === 'tool_result')
  assert.deepEqual(results[0].content[1], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } })
  assert.equal(results[1].content, 'plain')
})
