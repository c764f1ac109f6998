// Markdown as the model writes it, rewritten in Telegram's MarkdownV2: bold, italic, strikethrough,
// inline code, fenced code blocks (with language), links, headings (bold), block quotes and list
// bullets; every other character Telegram reserves is escaped. What cannot be expressed is kept as
// escaped text, so the output is always well formed or, at worst, rejected by Telegram and resent
// as plain text by the adapter.

/** Characters MarkdownV2 reserves outside code: each needs a backslash. */
const RESERVED = /[_*[\]()~`>#+\-=|{}.!\\]/g
const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)[^`]*$/

export const escapeText = (text: string) => text.replace(RESERVED, '\\$&')
/** Inside `code` and ```pre```: only the backtick and the backslash. */
export const escapeCode = (text: string) => text.replace(/[`\\]/g, '\\$&')
/** Inside a link's (url): only the closing parenthesis and the backslash. */
const escapeUrl = (text: string) => text.replace(/[)\\]/g, '\\$&')

const WORD = /[\p{L}\p{N}]/u

/** Index of the closing `marker` for an emphasis opened at `from`, or -1. */
function closing(line: string, from: number, marker: string): number {
  let at = line.indexOf(marker, from)
  while (at !== -1) {
    const content = line.slice(from, at)
    const after = line[at + marker.length]
    // The content must not start or end with a space; `_` closes only at a word's end (snake_case stays).
    if (content.trim() === content && content.length > 0 && !(marker[0] === '_' && after !== undefined && WORD.test(after))) return at
    at = line.indexOf(marker, at + 1)
  }
  return -1
}

/** A code span opened by the backtick run at `at`: [content start, content end, span end], or undefined. */
function codeSpan(line: string, at: number): [number, number, number] | undefined {
  let run = 0
  while (line[at + run] === '`') run++
  const ticks = '`'.repeat(run)
  let close = line.indexOf(ticks, at + run)
  while (close !== -1 && line[close + run] === '`') close = line.indexOf(ticks, close + run + 1)
  return close === -1 ? undefined : [at + run, close, close + run]
}

/** Whether `text` ends with an italic marker (an unescaped `_`). */
const endsWithMarker = (text: string) => /(^|[^\\])(\\\\)*_$/.test(text)

/**
 * One line (or a piece of one) of inline markdown as MarkdownV2. `active`: the entities this piece is
 * inside (Telegram refuses an entity nested in one of its own kind: such markup stays text).
 */
export function inlineV2(line: string, active: ReadonlySet<string> = new Set()): string {
  let out = ''
  // Two italic markers in a row would read as underline (`__`): Telegram ignores a \r between them.
  const mark = (marker: string) => {
    out += (marker === '_' && endsWithMarker(out) ? '\r' : '') + marker
  }
  let i = 0
  while (i < line.length) {
    const c = line[i]!
    const rest = line.slice(i)
    if (c === '\\' && i + 1 < line.length && /[!-/:-@[-`{-~]/.test(line[i + 1]!)) {
      out += `\\${line[i + 1]}`
      i += 2
      continue
    }
    if (c === '`') {
      const span = codeSpan(line, i)
      if (span) {
        const content = line.slice(span[0], span[1])
        const trimmed = content.length > 2 && content.startsWith(' ') && content.endsWith(' ') ? content.slice(1, -1) : content
        out += `\`${escapeCode(trimmed)}\``
        i = span[2]
        continue
      }
      // A lone run of backticks is text.
      let run = 0
      while (line[i + run] === '`') run++
      out += '\\`'.repeat(run)
      i += run
      continue
    }
    // A URL may hold balanced parentheses (Wikipedia links).
    const link = /^\[([^\]\n]+)\]\(((?:[^()\s]|\([^()\s]*\))+)\)/.exec(rest)
    if (link) {
      out += `[${inlineV2(link[1]!, active)}](${escapeUrl(link[2]!)})`
      i += link[0].length
      continue
    }
    const emphasis = (['**', '__', '~~', '*', '_'] as const).find((m) => rest.startsWith(m))
    const marker = emphasis === '**' || emphasis === '__' ? '*' : emphasis === '~~' ? '~' : '_'
    if (emphasis && !active.has(marker) && !(emphasis[0] === '_' && i > 0 && WORD.test(line[i - 1]!))) {
      const end = closing(line, i + emphasis.length, emphasis)
      if (end !== -1) {
        mark(marker)
        out += inlineV2(line.slice(i + emphasis.length, end), new Set([...active, marker]))
        mark(marker)
        i = end + emphasis.length
        continue
      }
    }
    out += escapeText(c)
    i++
  }
  return out
}

/** A whole markdown text as MarkdownV2. */
export function markdownToV2(markdown: string): string {
  const out: string[] = []
  let fence: { marker: string } | undefined
  for (const line of markdown.split('\n')) {
    const match = FENCE.exec(line)
    if (fence) {
      if (match && match[1]![0] === fence.marker[0] && match[1]!.length >= fence.marker.length && !match[2]) {
        out.push('```')
        fence = undefined
      } else {
        out.push(escapeCode(line))
      }
      continue
    }
    if (match) {
      fence = { marker: match[1]! }
      // The language tag is the first word of the info string; Telegram takes [A-Za-z0-9_+-].
      const language = match[2]!.replace(/[^\w+-]/g, '')
      out.push(`\`\`\`${language}`)
      continue
    }
    out.push(blockLine(line))
  }
  // An unclosed fence (a cut answer) is closed: Telegram rejects an open one.
  if (fence) out.push('```')
  return out.join('\n')
}

function blockLine(line: string): string {
  const heading = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)
  if (heading) return heading[1] ? `*${inlineV2(heading[1], new Set(['*']))}*` : ''
  const quote = /^ {0,3}>\s?(.*)$/.exec(line)
  if (quote) return `>${inlineV2(quote[1]!)}`
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
  if (bullet && !/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return `${bullet[1]}• ${inlineV2(bullet[2]!)}`
  if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '──────────'
  return inlineV2(line)
}
