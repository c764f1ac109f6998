// Markdown answers rendered for the terminal: blocks rendered without their markup, plain text left
// as it is, a streaming answer rendered block by block, and no escape sequence from the model
// reaching the terminal.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { loadMarkdown } from '../../../extensions/chat-cli/markdown.ts'
import { wordWrapReady } from '../../../extensions/chat-cli/screen.ts'
import { stripAnsi, textWidth } from '../../../extensions/chat-cli/theme.ts'

test('headings, emphasis, lists, code, tables and links lose their markup', async () => {
  const md = await loadMarkdown('dark')
  const out = stripAnsi(md.render('# Title\n\nSome **bold** and `code`, see [docs](https://example.com).\n\n- one\n- two\n\n```ts\nconst x = 1\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |', true, 80))
  assert.match(out, /^Title$/m)
  assert.match(out, /^Some bold and code, see docs \(https:\/\/example\.com\)\.$/m)
  assert.match(out, /^ {2}\* one$/m)
  assert.match(stripAnsi(md.render('- a **bold** item with `code`\n- two', true, 80)), /^ {2}\* a bold item with code$/m, 'inline markup in a tight list')
  assert.match(out, /^ {2}const x = 1$/m)
  assert.match(out, /│ 1 +│ 2 +│/)
  assert.doesNotMatch(out, /[#`]|\*\*|\|---/)
})

test('a plain answer is unchanged; light and dark colour differently', async () => {
  const plain = 'Reply to hello: word word, 10:30: done.\nA second line.'
  assert.equal(stripAnsi((await loadMarkdown('dark')).render(plain, true, 80)), plain)
  const dark = (await loadMarkdown('dark')).render('# Title', true, 80)
  const light = (await loadMarkdown('light')).render('# Title', true, 80)
  assert.notEqual(dark, light)
  assert.equal(stripAnsi(dark), stripAnsi(light))
})

test('a streaming answer renders as it grows: an open code block shows its code, a table forms when complete', async () => {
  const md = await loadMarkdown('dark')
  assert.equal(stripAnsi(md.render('Intro.\n\n```python\nprint(1)', false, 80)), 'Intro.\n\n  print(1)')
  const half = stripAnsi(md.render('| a | b |', false, 80))
  assert.doesNotMatch(half, /│/)
  assert.match(stripAnsi(md.render('| a | b |\n|---|---|\n| 1 | 2 |', false, 80)), /│ 1 +│ 2 +│/)
})

test('a table wider than the terminal wraps inside its columns, borders straight', async () => {
  await wordWrapReady()
  const md = await loadMarkdown('dark')
  const source = '| name | what it does |\n|---|---|\n| alpha | reads the configuration file and checks every key against its schema |\n| beta | 2 |'
  const wide = stripAnsi(md.render(source, true, 120)).split('\n')
  assert.equal(wide.length, 6, 'one line per row at 120 columns')
  const narrow = stripAnsi(md.render(source, true, 40)).split('\n')
  assert.ok(narrow.length > 6, narrow.join('\n'))
  for (const line of narrow) assert.ok(textWidth(line) <= 40, `${textWidth(line)}: ${line}`)
  // Every line is a box line: borders at both ends, the column borders aligned.
  const bar = narrow[1]!.indexOf('│', 1)
  for (const line of narrow) assert.match(line, /^[│┌├└].*[│┐┤┘]$/)
  for (const line of narrow.filter((l) => l.startsWith('│'))) assert.equal(line.indexOf('│', 1), bar, line)
  assert.ok(narrow.join(' ').includes('configuration'), 'words are wrapped whole')
})

test('escape sequences and control characters from the model never reach the terminal', async () => {
  const md = await loadMarkdown('dark')
  const hostile = 'title\x1b]0;pwned\x07 and \x1b[2J clear \x9b31m'
  assert.doesNotMatch(md.render(hostile, true, 80), /\x1b\]|\x1b\[2J|\x07|\x9b/)
})
