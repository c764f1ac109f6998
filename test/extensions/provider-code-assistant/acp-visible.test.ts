// What the ACP shim streams of a growing answer, read chunk by chunk (each chunk once), is what it
// streamed when it scanned the whole answer so far for every chunk: the text outside tool-call
// blocks, up to an unclosed one, holding back what could start a tag; for every answer below cut
// into chunks of every size.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { VisibleText } from '../../../extensions/provider-code-assistant/acp-prompt.ts'

const BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g

/** The whole-answer scan the shim did for every chunk before. */
function scanned(answer: string): string {
  const stripped = answer.replace(BLOCK, '')
  const open = stripped.indexOf('<tool_call>')
  if (open >= 0) return stripped.slice(0, open)
  for (let k = Math.min('<tool_call>'.length - 1, stripped.length); k > 0; k--) {
    if ('<tool_call>'.startsWith(stripped.slice(-k))) return stripped.slice(0, -k)
  }
  return stripped
}

const ANSWERS = [
  'plain text with a < and a <tool but no call',
  'Let me look.\n<tool_call>{"name":"read_file","arguments":{"path":"a.txt"}}</tool_call>',
  'a <tool_call>{"name":"x"}</tool_call> b <tool_call>{"name":"y"}</tool_call> c',
  'nested <tool_call> one <tool_call> two </tool_call> after </tool_call> end',
  'an unclosed <tool_call>{"name":"x"',
  'ends on a partial tag <tool_ca',
  '<</tool_call> <tool_call>x</tool_call>><',
]

test('chunk by chunk, the streamed text is at every point what the whole-answer scan streamed', () => {
  for (const answer of ANSWERS) {
    for (let size = 1; size <= answer.length; size++) {
      const visible = new VisibleText()
      let streamed = ''
      // The reference: the new part of each scan, never taking back what was shown.
      let reference = ''
      for (let i = 0; i < answer.length; i += size) {
        streamed += visible.push(answer.slice(i, i + size))
        const scan = scanned(answer.slice(0, i + size))
        if (scan.length > reference.length) reference += scan.slice(reference.length)
        assert.equal(streamed, reference, `${JSON.stringify(answer)} in chunks of ${size}`)
      }
    }
  }
})

test('a "<" just before a block is text: shown when the block opens (the scan held it until text followed the block)', () => {
  const visible = new VisibleText()
  assert.equal(visible.push('a <<tool_call>{"name":"x"}</tool_call>'), 'a <')
  assert.equal(visible.push('> b'), '> b')
})
