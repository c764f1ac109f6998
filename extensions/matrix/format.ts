// Outgoing text: the answer's markdown is the plain `body`; `formatted_body` is that markdown rendered
// to the small HTML subset Matrix clients display (org.matrix.custom.html). No markdown library is a
// dependency, so this renderer is written here, escape-first: every piece of user or model text goes
// through escapeHtml, tags are only ever produced by this file, and links keep http(s)/mailto targets
// only. Raw HTML in the markdown is shown as text, never passed through. Long answers are split into
// parts by the sdk's markdown splitter (code fences kept balanced in every part).

import { markdownParts } from 'agent/sdk'

/** Characters per message part: what Matrix clients render well (events are capped at 64 KiB). */
export const MAX_MESSAGE_LENGTH = 4000
/** Upper bound of the configurable length: body + HTML of a part stay far below the 64 KiB event cap. */
export const MAX_MESSAGE_LENGTH_LIMIT = 6000
const MAX_DEPTH = 4

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')
}

/** A link target that may go into an href: http(s) and mailto only, no control characters. */
export function safeHref(url: string): string | undefined {
  const trimmed = url.trim()
  if (/[\u0000-\u001f\u007f\s]/.test(trimmed)) return undefined
  if (/^https?:\/\/[^/]/i.test(trimmed) || /^mailto:[^\s@]+@[^\s@]+$/i.test(trimmed)) return trimmed
  return undefined
}

// ------------------------------------------------------------------------------------------------
// Inline markup

const HOLE = '\u0000'
const hole = (index: number) => `${HOLE}${index}${HOLE}`

function renderInline(text: string): string {
  const saved: string[] = []
  const keep = (html: string) => hole(saved.push(html) - 1)
  let out = text
  // Backslash escapes: the character stays literal.
  out = out.replace(/\\([\\`*_{}[\]()#+\-.!~>|<])/g, (_m, ch: string) => keep(escapeHtml(ch)))
  // Code spans: contents are literal.
  out = out.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _ticks: string, code: string) => keep(`<code>${escapeHtml(code.replace(/^ (.*) $/s, '$1'))}</code>`))
  // Autolinks <https://…>.
  out = out.replace(/<((?:https?:\/\/|mailto:)[^\s<>]+)>/gi, (m, url: string) => {
    const href = safeHref(url)
    return href ? keep(`<a href="${escapeHtml(href)}">${escapeHtml(url)}</a>`) : m
  })
  // Links [label](url "title"): unsafe targets keep only the label.
  out = out.replace(/\[([^\]\n]+)\]\(\s*<?((?:[^\s()<>]|\([^\s()<>]*\))+)>?(?:\s+"[^"\n]*")?\s*\)/g, (_m, label: string, url: string) => {
    const href = safeHref(url)
    const inner = renderEmphasis(escapeHtml(label))
    return keep(href ? `<a href="${escapeHtml(href)}">${inner}</a>` : inner)
  })
  out = renderEmphasis(escapeHtml(out))
  // Holes are restored last; a link label may hold a code span's hole, hence the (bounded) repeat.
  const marker = new RegExp(`${HOLE}(\\d+)${HOLE}`, 'g')
  for (let round = 0; round <= saved.length && out.includes(HOLE); round++) out = out.replace(marker, (_m, index: string) => saved[Number(index)] ?? '')
  return out
}

/** Emphasis on already-escaped text (the markers are not special characters in HTML). */
function renderEmphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^\w])__(?=\S)([\s\S]*?\S)__(?!\w)/g, '$1<strong>$2</strong>')
    .replace(/(^|[^*\w])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![*\w])/g, '$1<em>$2</em>')
    .replace(/(^|[^\w])_(?=[^\s_])([^_\n]*?[^\s_])_(?!\w)/g, '$1<em>$2</em>')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '<del>$1</del>')
}

// ------------------------------------------------------------------------------------------------
// Blocks

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\s]*)[^`]*$/
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/
const RULE = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/
const QUOTE = /^ {0,3}>[ \t]?(.*)$/
const ITEM = /^([ \t]*)([-*+]|\d{1,9}[.)])[ \t]+(.*)$/

function isBlockStart(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || RULE.test(line) || QUOTE.test(line) || ITEM.test(line)
}

function renderBlocks(lines: string[], depth: number): string {
  const html: string[] = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]!
    if (!line.trim()) {
      i++
      continue
    }
    const fence = line.match(FENCE)
    if (fence) {
      const marker = fence[1]!
      const code: string[] = []
      i++
      while (i < lines.length && !new RegExp(`^ {0,3}${marker[0] === '`' ? '`' : '~'}{${marker.length},}[ \\t]*$`).test(lines[i]!)) code.push(lines[i++]!)
      i++ // the closing fence (or the end of the text)
      const language = fence[2] && /^[\w+#.-]{1,30}$/.test(fence[2]) ? ` class="language-${escapeHtml(fence[2])}"` : ''
      html.push(`<pre><code${language}>${escapeHtml(code.join('\n'))}</code></pre>`)
      continue
    }
    const heading = line.match(HEADING)
    if (heading) {
      const level = heading[1]!.length
      html.push(`<h${level}>${renderInline(heading[2]!)}</h${level}>`)
      i++
      continue
    }
    if (RULE.test(line)) {
      html.push('<hr>')
      i++
      continue
    }
    if (QUOTE.test(line)) {
      const inner: string[] = []
      while (i < lines.length && QUOTE.test(lines[i]!)) inner.push(lines[i++]!.match(QUOTE)![1]!)
      html.push(depth < MAX_DEPTH ? `<blockquote>${renderBlocks(inner, depth + 1)}</blockquote>` : `<blockquote>${inner.map(renderInline).join('<br>')}</blockquote>`)
      continue
    }
    const item = line.match(ITEM)
    if (item) {
      const ordered = /\d/.test(item[2]!)
      const indent = item[1]!.length
      const items: string[][] = []
      while (i < lines.length) {
        const current = lines[i]!
        const next = current.match(ITEM)
        if (next && next[1]!.length <= indent + 1) {
          if (/\d/.test(next[2]!) !== ordered) break
          items.push([next[3]!])
          i++
        } else if (items.length === 0) {
          break
        } else if (!current.trim()) {
          // A blank line belongs to the item only when more indented item content follows.
          if (!/^[ \t]{2,}\S/.test(lines[i + 1] ?? '')) break
          items.at(-1)!.push('')
          i++
        } else if (/^[ \t]{2,}/.test(current) || (!isBlockStart(current) && lines[i - 1]!.trim())) {
          // An indented line (a nested list, more text) or a lazy paragraph line.
          items.at(-1)!.push(current.replace(new RegExp(`^[ \\t]{0,${indent + 4}}`), ''))
          i++
        } else break
      }
      const start = ordered ? Number.parseInt(item[2]!, 10) : 1
      const tag = ordered ? 'ol' : 'ul'
      const rendered = items.map((content) => {
        const simple = content.length === 1 || depth >= MAX_DEPTH
        return `<li>${simple ? content.map(renderInline).join('<br>') : renderBlocks(content, depth + 1).replace(/^<p>([\s\S]*?)<\/p>/, '$1')}</li>`
      })
      html.push(`<${tag}${ordered && start !== 1 ? ` start="${start}"` : ''}>${rendered.join('')}</${tag}>`)
      continue
    }
    const paragraph: string[] = []
    while (i < lines.length && lines[i]!.trim() && (paragraph.length === 0 || !isBlockStart(lines[i]!))) paragraph.push(lines[i++]!.trim())
    html.push(`<p>${paragraph.map(renderInline).join('<br>')}</p>`)
  }
  return html.join('')
}

/** Markdown → the HTML subset of org.matrix.custom.html; one plain paragraph loses its <p>. */
export function renderMarkdown(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').replace(/\u0000/g, '').split('\n')
  const html = renderBlocks(lines, 0)
  const single = html.match(/^<p>([\s\S]*)<\/p>$/)
  return single && !single[1]!.includes('<p>') ? single[1]! : html
}

// ------------------------------------------------------------------------------------------------
// Splitting

/** Splits markdown into parts of at most `max` characters, code fences balanced (the sdk's splitter). */
export function splitMarkdown(text: string, max = MAX_MESSAGE_LENGTH): string[] {
  return markdownParts(text, max)
}

export interface TextContent {
  msgtype: 'm.text' | 'm.notice'
  body: string
  format: 'org.matrix.custom.html'
  formatted_body: string
  /** Empty: an answer never pings anyone (no @room, no user pills from model text). */
  'm.mentions': Record<string, never>
  'm.relates_to'?: { rel_type: 'm.thread'; event_id: string; is_falling_back: true; 'm.in_reply_to': { event_id: string } }
}

/** The m.room.message contents of one answer, in order. */
export function messageContents(text: string, options: { max?: number; msgtype?: 'm.text' | 'm.notice'; thread?: { root: string; replyTo: string } } = {}): TextContent[] {
  return splitMarkdown(text, options.max ?? MAX_MESSAGE_LENGTH).map((part) => ({
    msgtype: options.msgtype ?? 'm.text',
    body: part,
    format: 'org.matrix.custom.html',
    formatted_body: renderMarkdown(part),
    'm.mentions': {},
    ...(options.thread ? { 'm.relates_to': { rel_type: 'm.thread', event_id: options.thread.root, is_falling_back: true, 'm.in_reply_to': { event_id: options.thread.replyTo } } } : {}),
  }))
}
