// The pure parts of the matrix adapter: markdown rendered to safe HTML (nothing from the text becomes
// markup unless this renderer made it), splitting into parts with balanced code fences, and reading
// inbound messages (mentions, stripping, reply fallbacks, threads, commands, skipped kinds).

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readMessage, stripReplyFallback, type ReadContext } from '../../../extensions/matrix/events.ts'
import { messageContents, renderMarkdown, safeHref, splitMarkdown } from '../../../extensions/matrix/format.ts'

const ME = '@agent:example.org'

test('markdown renders to the Matrix HTML subset', () => {
  const cases: Array<[string, string]> = [
    ['plain text', 'plain text'],
    ['**bold**, *em*, _em_, ~~gone~~ and `code`', '<strong>bold</strong>, <em>em</em>, <em>em</em>, <del>gone</del> and <code>code</code>'],
    ['snake_case_name and 2 * 3 * 4 stay as they are', 'snake_case_name and 2 * 3 * 4 stay as they are'],
    ['# Title\n\nfirst line\nsecond line', '<h1>Title</h1><p>first line<br>second line</p>'],
    ['- a\n- b\n  - nested\n\n3. three\n4. four', '<ul><li>a</li><li>b<ul><li>nested</li></ul></li></ul><ol start="3"><li>three</li><li>four</li></ol>'],
    ['> quoted **text**\n> more\n\nafter', '<blockquote><p>quoted <strong>text</strong><br>more</p></blockquote><p>after</p>'],
    ['```python\nprint("<hi>")\n```', '<pre><code class="language-python">print(&quot;&lt;hi&gt;&quot;)</code></pre>'],
    ['[docs](https://example.org/a?b=1&c=2) and <https://example.org>', '<a href="https://example.org/a?b=1&amp;c=2">docs</a> and <a href="https://example.org">https://example.org</a>'],
    ['[`x` label](https://e.org)', '<a href="https://e.org"><code>x</code> label</a>'],
    ['\\*literal\\* stars', '*literal* stars'],
    ['---', '<hr>'],
  ]
  for (const [markdown, html] of cases) assert.equal(renderMarkdown(markdown), html, markdown)
})

test('nothing in the text becomes markup: raw HTML is escaped, unsafe link targets dropped', () => {
  const hostile = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '[click](javascript:alert(1))',
    '[click](data:text/html;base64,PHNjcmlwdD4=)',
    '[x](https://ok.org" onmouseover="alert(1))',
    '<a href="javascript:alert(1)">x</a>',
    '**<b>bold</b>**',
    '```\n</code></pre><script>x</script>\n```',
    '`</code><script>`',
    '> <iframe src=//evil>',
    '- <svg onload=alert(1)>',
    '# <style>body{}</style>',
    'a\u0000b <b>',
  ]
  for (const text of hostile) {
    const html = renderMarkdown(text)
    // Every tag is one this renderer makes, with only its own attributes; text is escaped.
    for (const [tag, name, attributes] of html.matchAll(/<\/?([a-z0-9]+)([^>]*)>/gi)) {
      assert.ok(['p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'hr'].includes(name!), `${tag} from ${JSON.stringify(text)}: ${html}`)
      assert.match(attributes!, /^(| href="(https?:\/\/|mailto:)[^"<>]*"| class="language-[\w+#.-]+"| start="\d+")$/, `${tag} from ${JSON.stringify(text)}`)
    }
    assert.equal(html.replace(/<[^>]*>/g, '').match(/[<>"]/), null, `unescaped markup characters in ${html}`)
    assert.ok(!html.includes('\u0000'))
  }
  assert.equal(renderMarkdown('[click](javascript:alert(1))'), 'click')
  assert.equal(safeHref('https://example.org/x'), 'https://example.org/x')
  assert.equal(safeHref('mailto:a@b.org'), 'mailto:a@b.org')
  for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:x', 'data:text/html,x', 'vbscript:x', '//evil.org', '/relative', 'https://a.org/\nx']) assert.equal(safeHref(bad), undefined, bad)
})

test('long text splits into parts within the bound, at paragraph breaks, with code fences closed and reopened', () => {
  assert.deepEqual(splitMarkdown('short'), ['short'])
  assert.deepEqual(splitMarkdown('   '), [])
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i}: ${'words '.repeat(40).trim()}`).join('\n\n')
  const parts = splitMarkdown(paragraphs, 1000)
  assert.ok(parts.length > 1)
  for (const part of parts) {
    assert.ok(part.length <= 1000)
    assert.match(part, /^Paragraph \d+:/, 'each part starts at a paragraph')
  }
  const code = `intro\n\n\`\`\`js\n${Array.from({ length: 200 }, (_, i) => `  const line${i} = ${i}`).join('\n')}\n\`\`\`\n\noutro`
  const codeParts = splitMarkdown(code, 800)
  for (const part of codeParts) {
    assert.ok(part.length <= 800, `${part.length}`)
    assert.equal((part.match(/^```/gm) ?? []).length % 2, 0, 'balanced fences')
  }
  assert.match(codeParts[1]!, /^```js\n  const line/, 'the fence reopened with its language, indentation kept')
  assert.deepEqual(codeParts.join('\n').match(/const line\d+/g)!.length, 200, 'no line lost')
})

test('message contents: plain body, HTML, no mentions, the thread relation when asked', () => {
  const [content] = messageContents('**hi**', { thread: { root: '$root', replyTo: '$last' } })
  assert.deepEqual(content, {
    msgtype: 'm.text',
    body: '**hi**',
    format: 'org.matrix.custom.html',
    formatted_body: '<strong>hi</strong>',
    'm.mentions': {},
    'm.relates_to': { rel_type: 'm.thread', event_id: '$root', is_falling_back: true, 'm.in_reply_to': { event_id: '$last' } },
  })
  assert.equal(messageContents('x'.repeat(9000), { max: 4000 }).length, 3)
})

const context = (over: Partial<ReadContext> = {}): ReadContext => ({ me: ME, displayName: 'Helper Bot', direct: false, requireMention: true, commands: new Set(['help', 'new', 'reset']), repliesToMe: false, ...over })

test('reading messages: DMs need no mention; group messages need one unless free or a command', () => {
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: 'hello' }, context({ direct: true })), { ok: true, text: 'hello', mentioned: false })
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: 'hello' }, context()), { ok: false, reason: 'a group message that does not mention the bot' })
  assert.equal(readMessage({ msgtype: 'm.text', body: 'hello' }, context({ requireMention: false })).ok, true)
  assert.equal(readMessage({ msgtype: 'm.text', body: 'hello' }, context({ repliesToMe: true })).ok, true)
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: '!help' }, context()), { ok: true, text: '/help', mentioned: false })
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: '/new topic' }, context()), { ok: true, text: '/new topic', mentioned: false })
  assert.equal(readMessage({ msgtype: 'm.text', body: '!nope' }, context()).ok, false)
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: '!nope' }, context({ direct: true })), { ok: true, text: '!nope', mentioned: false })
})

test('reading messages: every way of mentioning the bot, and the mention removed from the text', () => {
  const expect = (content: Record<string, unknown>, text: string) => {
    const read = readMessage({ msgtype: 'm.text', ...content }, context())
    assert.ok(read.ok, JSON.stringify(content))
    assert.equal(read.text, text, JSON.stringify(content))
  }
  expect({ body: 'status please', 'm.mentions': { user_ids: [ME] } }, 'status please')
  expect({ body: `${ME}: status please` }, 'status please')
  expect({ body: 'hey @agent, status please' }, 'hey, status please')
  expect({ body: 'Helper Bot: status please', formatted_body: `<a href="https://matrix.to/#/${ME}">Helper Bot</a>: status please` }, 'status please')
  expect({ body: 'what does helper bot think?' }, 'what does helper bot think?')
  expect({ body: `${ME} !help` }, '/help')
  for (const body of ['the agency is closed', 'email agent@example.org', '@agents assemble', 'helper botany']) assert.equal(readMessage({ msgtype: 'm.text', body }, context()).ok, false, body)
  assert.equal(readMessage({ msgtype: 'm.text', body: 'hi', 'm.mentions': { room: true } }, context()).ok, false, '@room is not a mention of the bot')
})

test('reading messages: edits, notices, attachments and empty bodies are skipped; emotes and threads kept', () => {
  const direct = context({ direct: true })
  assert.equal(readMessage({ msgtype: 'm.text', body: '* fixed', 'm.relates_to': { rel_type: 'm.replace', event_id: '$e' } }, direct).ok, false)
  assert.equal(readMessage({ msgtype: 'm.notice', body: 'bot output' }, direct).ok, false)
  assert.equal(readMessage({ msgtype: 'm.image', body: 'cat.png' }, direct).ok, false)
  assert.equal(readMessage({ msgtype: 'm.text', body: '   ' }, direct).ok, false)
  assert.equal(readMessage({ msgtype: 'm.text' }, direct).ok, false)
  assert.deepEqual(readMessage({ msgtype: 'm.emote', body: 'waves' }, direct), { ok: true, text: '* waves', mentioned: false })
  assert.deepEqual(readMessage({ msgtype: 'm.text', body: 'in a thread', 'm.relates_to': { rel_type: 'm.thread', event_id: '$root', is_falling_back: true, 'm.in_reply_to': { event_id: '$root' } } }, direct), { ok: true, text: 'in a thread', mentioned: false, threadId: '$root', replyTo: '$root' })
  assert.equal(readMessage({ msgtype: 'm.text', body: `${ME}`, 'm.mentions': { user_ids: [ME] } }, context()).ok, false, 'a bare mention leaves nothing to answer')
})

test('reply fallbacks are removed; a quote that is the whole message stays', () => {
  assert.equal(stripReplyFallback('> <@bob:x> earlier words\n> more\n\nmy reply'), 'my reply')
  assert.equal(stripReplyFallback('no quote here'), 'no quote here')
  assert.equal(stripReplyFallback('> only a quote'), '> only a quote')
  const read = readMessage({ msgtype: 'm.text', body: '> <@bob:x> q\n\nanswer this', 'm.relates_to': { 'm.in_reply_to': { event_id: '$q' } } }, context({ direct: true }))
  assert.deepEqual(read, { ok: true, text: 'answer this', mentioned: false, replyTo: '$q' })
})
