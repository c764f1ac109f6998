// Request parameters on the native vendor's wire (top_p, stop_sequences, tool_choice) and on the code
// assistant's responses wire (top_p, tool_choice, text.format): sent when set, never when unset, and
// held back where the API refuses them (thinking, reasoning).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toResponsesBody } from '../../../extensions/provider-code-assistant/responses-wire.ts'
import { toWireBody } from '../../../extensions/provider-native-vendor/wire.ts'

const tools = [{ name: 'lookup', description: 'Looks up', parameters: { type: 'object' } }]
const messages = [{ role: 'user' as const, content: 'hi' }]

test('native vendor wire: top_p, stop_sequences and tool_choice when set; with thinking only auto/none', () => {
  const plain = toWireBody('m', { messages, tools }, false)
  for (const key of ['top_p', 'stop_sequences', 'tool_choice']) assert.equal(plain[key], undefined, key)
  const set = toWireBody('m', { messages, tools, topP: 0.5, stop: ['END'], toolChoice: 'required' }, false)
  assert.deepEqual([set.top_p, set.stop_sequences, set.tool_choice], [0.5, ['END'], { type: 'any' }])
  assert.deepEqual(toWireBody('m', { messages, tools, toolChoice: { name: 'lookup' } }, false).tool_choice, { type: 'tool', name: 'lookup' })
  assert.deepEqual(toWireBody('m', { messages, tools, toolChoice: 'none' }, false).tool_choice, { type: 'none' })
  const thinking = toWireBody('m', { messages, tools, topP: 0.5, toolChoice: 'required', reasoningEffort: 'high' }, false)
  assert.equal(thinking.top_p, undefined)
  assert.equal(thinking.tool_choice, undefined)
  assert.equal(toWireBody('m', { messages, toolChoice: 'auto' }, false).tool_choice, undefined, 'no tools, no tool_choice')
})

test('code assistant responses wire: top_p, tool_choice and text.format when set', () => {
  const plain = toResponsesBody('m', { messages, tools }, false)
  for (const key of ['top_p', 'tool_choice', 'text']) assert.equal(plain[key], undefined, key)
  const set = toResponsesBody('m', { messages, tools, topP: 0.3, toolChoice: { name: 'lookup' }, responseFormat: { type: 'json_schema', name: 's', schema: { type: 'object' }, strict: true } }, false)
  assert.equal(set.top_p, 0.3)
  assert.deepEqual(set.tool_choice, { type: 'function', name: 'lookup' })
  assert.deepEqual(set.text, { format: { type: 'json_schema', name: 's', schema: { type: 'object' }, strict: true } })
  assert.equal(toResponsesBody('m', { messages, topP: 0.3, reasoningEffort: 'low' }, false).top_p, undefined)
})
