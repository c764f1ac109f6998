// The ACP peer's line splitter holds at most its cap of one line: a longer line hands over its head
// once and drops the rest up to its newline; lines split across chunks, CRLF endings, several lines
// in one chunk and a last line without a newline come out as readline has them.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { LineSplitter } from '../../../extensions/provider-code-assistant/acp-lines.ts'

function split(max: number) {
  const lines: string[] = []
  const heads: string[] = []
  const splitter = new LineSplitter(max, (l) => lines.push(l), (h) => heads.push(h.toString('utf8')))
  return { lines, heads, splitter }
}

test('a line past the cap gives its head once; the rest of it is dropped and the next line is whole', () => {
  const { lines, heads, splitter } = split(8)
  splitter.push(Buffer.from('{"a":1}\nabcdef'))
  for (let i = 0; i < 1000; i++) splitter.push(Buffer.from('ghijklmnop'))
  splitter.push(Buffer.from('qrs\n{"b":2}\n'))
  assert.deepEqual(lines, ['{"a":1}', '{"b":2}'])
  assert.deepEqual(heads, ['abcdefgh'])
})

test('look-alikes: a line of exactly the cap, split across chunks, CRLF, and a last line without a newline', () => {
  const { lines, heads, splitter } = split(8)
  splitter.push(Buffer.from('1234'))
  splitter.push(Buffer.from('5678'))
  splitter.push(Buffer.from('\nx\n\ny\r\n€€'))
  splitter.end()
  assert.deepEqual(lines, ['12345678', 'x', '', 'y', '€€'])
  assert.deepEqual(heads, [])
})
