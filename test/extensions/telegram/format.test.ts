// Markdown → MarkdownV2 and the 4,096-character parts: every rendering parses as Telegram parses it
// (the fake's checker) and reads as the model meant; escapes; code spans and fences left alone;
// parts never cut inside a code span or fence, fences closed and reopened, both forms within the limit.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { codeSpanStart, markdownParts } from '../../../sdk/index.ts'
import { MAX_MESSAGE_LENGTH, telegramParts } from '../../../extensions/telegram/format.ts'
import { escapeText, markdownToV2 } from '../../../extensions/telegram/markdown-v2.ts'
import { parseMarkdownV2 } from './markdown-v2-check.ts'

const plainOf = (v2: string) => {
  const parsed = parseMarkdownV2(v2)
  assert.ok(parsed.ok, `${JSON.stringify(v2)}: ${!parsed.ok && parsed.error}`)
  return parsed.plain
}

test('markdown becomes MarkdownV2 that Telegram parses', () => {
  const cases: Array<[string, string, string]> = [
    ['Hello. (1+1=2) #tag | {x} !', 'Hello\\. \\(1\\+1\\=2\\) \\#tag \\| \\{x\\} \\!', 'Hello. (1+1=2) #tag | {x} !'],
    ['**bold** and *italic* and ~~gone~~', '*bold* and _italic_ and ~gone~', 'bold and italic and gone'],
    ['__also bold__ and _also italic_', '*also bold* and _also italic_', 'also bold and also italic'],
    ['a snake_case_name stays', 'a snake\\_case\\_name stays', 'a snake_case_name stays'],
    ['2 * 3 * 4 = 24', '2 \\* 3 \\* 4 \\= 24', '2 * 3 * 4 = 24'],
    ['use `a_b*c` here', 'use `a_b*c` here', 'use a_b*c here'],
    ['path `C:\\dir` ok', 'path `C:\\\\dir` ok', 'path C:\\dir ok'],
    ['a [link](https://example.com/a_(b)) end', 'a [link](https://example.com/a_(b\\)) end', 'a link end'],
    ['[the docs](https://example.com/x?a=1)', '[the docs](https://example.com/x?a=1)', 'the docs'],
    ['# Title!', '*Title\\!*', 'Title!'],
    ['> quoted.', '>quoted\\.', 'quoted.'],
    ['- one\n- two', '• one\n• two', '• one\n• two'],
    ['1. first', '1\\. first', '1. first'],
    ['an \\*escaped\\* star', 'an \\*escaped\\* star', 'an *escaped* star'],
    ['lone ` tick', 'lone \\` tick', 'lone ` tick'],
    ['**unclosed bold', '\\*\\*unclosed bold', '**unclosed bold'],
  ]
  for (const [markdown, v2, plain] of cases) {
    assert.equal(markdownToV2(markdown), v2, markdown)
    assert.equal(plainOf(v2), plain, markdown)
  }
})

test('fenced code keeps its text and language; only ` and \\ are escaped inside', () => {
  const markdown = 'Run:\n\n```python\nprint("a_b*c") # 1.0\npath = "C:\\\\x"\n```\n\nDone.'
  const v2 = markdownToV2(markdown)
  assert.equal(v2, 'Run:\n\n```python\nprint("a_b*c") # 1.0\npath = "C:\\\\\\\\x"\n```\n\nDone\\.')
  assert.equal(plainOf(v2), 'Run:\n\nprint("a_b*c") # 1.0\npath = "C:\\\\x"\n\n\nDone.')
  assert.equal(markdownToV2('```\nopen fence'), '```\nopen fence\n```', 'an unclosed fence is closed')
})

test('text that only looks like markup is escaped, never sent as broken MarkdownV2', () => {
  for (const text of ['*a _b* c_', 'x_y_ z', '[not a link]', '~~ spaced ~~', '||spoiler||', 'a > b', '***', '![img](x.png)', '`', '**', '<b>html</b>', 'emoji 👍🏽 and ünïcödé.']) {
    plainOf(markdownToV2(text))
  }
  assert.equal(escapeText('_*[]()~`>#+-=|{}.!\\'), '\\_\\*\\[\\]\\(\\)\\~\\`\\>\\#\\+\\-\\=\\|\\{\\}\\.\\!\\\\')
})

test('any mix of markup characters becomes MarkdownV2 Telegram parses (5,000 generated texts)', () => {
  const pieces = ['*', '_', '~', '`', '[', ']', '(', ')', '\\', 'a', 'b', ' ', '\n', '> ', '# ', '- ', '.', '|', '**', '__', '~~', '```', '***', '[x](http://e.x/a_(b))', 'http://x.y', '!', 'é', '👍']
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  for (let n = 0; n < 5000; n++) {
    let text = ''
    for (let i = 1 + Math.floor(random() * 16); i > 0; i--) text += pieces[Math.floor(random() * pieces.length)]
    plainOf(markdownToV2(text))
  }
  assert.equal(markdownToV2('_a_ _b_'), '_a_ _b_')
  assert.equal(markdownToV2('*a*_b_'), '_a_\r_b_', 'adjacent italics are not read as underline')
  assert.equal(plainOf(markdownToV2('*a _b_ c*')), 'a _b_ c', 'italic inside italic stays text')
})

test('a code span is never a cut point', () => {
  const text = `${'word '.repeat(30)}\`a code span with many spaces inside it\` tail`
  const spanAt = text.indexOf('`')
  assert.equal(codeSpanStart(text, spanAt + 5), spanAt)
  assert.equal(codeSpanStart(text, spanAt - 2), -1)
  assert.equal(codeSpanStart('a ` b', 3), -1, 'an unclosed backtick opens no span')
  for (const max of [160, 170, 180, 190]) {
    for (const part of markdownParts(text, max)) assert.equal((part.match(/`/g) ?? []).length % 2, 0, `max ${max}: ${part}`)
  }
})

test('a long answer is split under 4,096 characters, fences balanced, both forms within the limit', () => {
  const prose = Array.from({ length: 50 }, (_, i) => `Paragraph ${i}: **bold** text with \`code_${i}\` and (parentheses). ${'more words here. '.repeat(6)}`).join('\n\n')
  const code = Array.from({ length: 300 }, (_, i) => `    value_${i} = compute(${i}) * 2  # item.${i}`).join('\n')
  const answer = `# Report\n\n${prose}\n\n\`\`\`python\ndef main():\n${code}\n\`\`\`\n\nThe end.`
  const parts = telegramParts(answer)
  assert.ok(parts.length >= 4, `${parts.length} parts`)
  let read = ''
  for (const part of parts) {
    assert.ok(part.markdown.length <= MAX_MESSAGE_LENGTH && part.plain.length <= MAX_MESSAGE_LENGTH)
    assert.equal((part.plain.match(/^```/gm) ?? []).length % 2, 0, 'fences balanced in the plain form')
    read += plainOf(part.markdown)
  }
  assert.ok(read.includes('value_299 = compute(299) * 2  # item.299'))
  assert.ok(parts.at(-1)!.plain.endsWith('The end.'))
  assert.ok(parts.some((p) => p.plain.startsWith('```python\n')), 'the fence is reopened with its language')
})

test('escape-heavy text is split again so the MarkdownV2 still fits', () => {
  const dots = '.'.repeat(4000)
  const parts = telegramParts(dots)
  assert.ok(parts.length >= 2)
  for (const part of parts) assert.ok(part.markdown.length > 0 && part.markdown.length <= MAX_MESSAGE_LENGTH)
  assert.equal(parts.map((p) => p.plain).join(''), dots)
})
