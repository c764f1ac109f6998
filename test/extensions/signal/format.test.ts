// Markdown to Signal text styles: each style's range over the plain text (UTF-16 offsets), nesting,
// headings, fenced code, links; look-alikes (snake_case, arithmetic asterisks) stay as written.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toSignalText } from '../../../extensions/signal/format.ts'

test('bold, italic, strikethrough, spoiler and monospace become style ranges over the plain text', () => {
  assert.deepEqual(toSignalText('**Answer** to: x'), { text: 'Answer to: x', styles: ['0:6:BOLD'] })
  assert.deepEqual(toSignalText('__b__ *i* _j_ ~~s~~ ||p|| `c`'), { text: 'b i j s p c', styles: ['0:1:BOLD', '2:1:ITALIC', '4:1:ITALIC', '6:1:STRIKETHROUGH', '8:1:SPOILER', '10:1:MONOSPACE'] })
  assert.deepEqual(toSignalText('**bold *nested* more**'), { text: 'bold nested more', styles: ['5:6:ITALIC', '0:16:BOLD'] })
})

test('offsets count UTF-16 units, as Signal does', () => {
  assert.deepEqual(toSignalText('😀 **b**'), { text: '😀 b', styles: ['3:1:BOLD'] })
})

test('headings are bold lines; fenced blocks are monospace without their fences; links keep their URL', () => {
  assert.deepEqual(toSignalText('# Title\nbody'), { text: 'Title\nbody', styles: ['0:5:BOLD'] })
  assert.deepEqual(toSignalText('before\n```js\nconst a = 1\n```\nafter'), { text: 'before\nconst a = 1\nafter', styles: ['7:11:MONOSPACE'] })
  assert.deepEqual(toSignalText('see [the docs](https://example.test/a)'), { text: 'see the docs (https://example.test/a)', styles: [] })
  assert.deepEqual(toSignalText('[https://x.test](https://x.test)'), { text: 'https://x.test', styles: [] })
})

test('look-alikes stay as written: snake_case, arithmetic, lone markers, code contents', () => {
  for (const plain of ['snake_case_name', '2 * 3 * 4', 'a ** b', 'price: 5*', '~~ not closed']) assert.deepEqual(toSignalText(plain), { text: plain, styles: [] }, plain)
  assert.deepEqual(toSignalText('`**not bold**`'), { text: '**not bold**', styles: ['0:12:MONOSPACE'] })
})
