// Replies are DingTalk markdown messages ({msgtype: 'markdown', markdown: {title, text}}). Long text
// is split into parts of at most MAX_MARKDOWN_LENGTH characters, at a paragraph break, else a line
// break, else a space in the second half of each window (never a tiny first part); a code fence
// cut by a split is closed at the end of its part and reopened at the start of the next one.

/**
 * A chosen safe bound: DingTalk states its message limits in bytes (20,000 is the commonly cited
 * cap) and a CJK character is three bytes of UTF-8, so 5,000 characters fit in any script.
 */
export const MAX_MARKDOWN_LENGTH = 5000
const TITLE_LENGTH = 40
// Room for a closing fence and a reopened one (language names are cut to 20 characters).
const FENCE_ROOM = 32

export interface MarkdownMessage {
  msgtype: 'markdown'
  markdown: { title: string; text: string }
}

/** The title DingTalk shows in notifications and the chat list: the first line without markup. */
export function titleOf(text: string): string {
  const line = text.split('\n').map((l) => l.trim()).find((l) => l && !l.startsWith('```')) ?? ''
  const plain = line
    .replace(/^#{1,6}\s+/, '')
    .replace(/^>\s?/, '')
    .replace(/^[-*+]\s+/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`~]/g, '')
    .trim()
  if (!plain) return 'Reply'
  return plain.length > TITLE_LENGTH ? `${plain.slice(0, TITLE_LENGTH - 1)}…` : plain
}

/** Cuts text into pieces of at most `max` characters at the best break in the second half of each window. */
function cut(text: string, max: number): string[] {
  const pieces: string[] = []
  let rest = text
  while (rest.length > max) {
    const window = rest.slice(0, max + 1)
    const floor = Math.floor(max / 2)
    let at = max
    let skip = 0
    for (const separator of ['\n\n', '\n', ' ']) {
      const found = window.lastIndexOf(separator)
      if (found > floor) {
        at = found
        skip = separator.length
        break
      }
    }
    const piece = rest.slice(0, at).trimEnd()
    if (piece) pieces.push(piece)
    // Only the separator goes: the next line keeps its indentation (code).
    rest = rest.slice(at + skip)
  }
  if (rest.trim()) pieces.push(rest)
  return pieces
}

/** Splits markdown into parts, keeping code fences balanced in every part. */
export function splitMarkdown(text: string, max = MAX_MARKDOWN_LENGTH): string[] {
  if (text.length <= max) return text.trim() ? [text] : []
  const raw = cut(text, Math.max(1, max - FENCE_ROOM))
  const parts: string[] = []
  let reopen = ''
  for (const piece of raw) {
    let part = reopen ? `${reopen}\n${piece}` : piece
    reopen = ''
    let open: string | undefined
    for (const match of part.matchAll(/^[ \t]*```([^\n`]*)$/gm)) open = open === undefined ? `\`\`\`${match[1]!.trim().slice(0, 20)}` : undefined
    if (open !== undefined) {
      part += '\n```'
      reopen = open
    }
    parts.push(part)
  }
  return parts
}

/** The markdown messages of one reply; parts are numbered in their titles. */
export function markdownMessages(text: string, max = MAX_MARKDOWN_LENGTH): MarkdownMessage[] {
  const parts = splitMarkdown(text, max)
  const title = titleOf(text)
  return parts.map((part, i) => ({ msgtype: 'markdown', markdown: { title: parts.length > 1 ? `${title} (${i + 1}/${parts.length})` : title, text: part } }))
}
