// An endpoint's answer is untyped input: content parts of any shape are read or left out, never
// trusted to have ours (a part without a type, an image without its URL once surfaced as
// "Cannot read properties of undefined (reading 'url')").

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { fromCompletion } from '../../../extensions/provider-openai-compat/wire.ts'

test('an answer whose content parts have odd shapes is read, never thrown on', () => {
  const answer = fromCompletion({ choices: [{ message: { content: [{ type: 'output_text', text: 'a' }, { text: 'b' }, { type: 'image_url' }, { type: 'image_url', image_url: { url: 'http://i/x.png' } }, null, 7, { type: 'input_audio' }], tool_calls: 'x' }, finish_reason: 'stop' }] })
  assert.equal(answer.content, 'a\nb\n[image: http://i/x.png]')
  assert.deepEqual(answer.toolCalls, [])
})

test('look-alike: ordinary text parts join as before', () => {
  assert.equal(fromCompletion({ choices: [{ message: { content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] } }] }).content, 'one\ntwo')
})
