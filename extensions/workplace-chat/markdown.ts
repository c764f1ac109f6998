// Replies are DingTalk markdown messages ({msgtype: 'markdown', markdown: {title, text}}). Long text
// is split into parts of at most MAX_MARKDOWN_LENGTH characters by the sdk's markdown splitter (at a
// paragraph, line or word break; a code fence cut by a split is closed and reopened).

import { markdownParts } from 'agent/sdk'

/**
 * A chosen safe bound: DingTalk states its message limits in bytes (20,000 is the commonly cited
 * cap) and a CJK character is three bytes of UTF-8, so 5,000 characters fit in any script.
 */
export const MAX_MARKDOWN_LENGTH = 5000
const TITLE_LENGTH = 40

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

/** Splits markdown into parts of at most `max` characters, code fences balanced (the sdk's splitter). */
export function splitMarkdown(text: string, max = MAX_MARKDOWN_LENGTH): string[] {
  return markdownParts(text, max)
}

/** The markdown messages of one reply; parts are numbered in their titles. */
export function markdownMessages(text: string, max = MAX_MARKDOWN_LENGTH): MarkdownMessage[] {
  const parts = splitMarkdown(text, max)
  const title = titleOf(text)
  return parts.map((part, i) => ({ msgtype: 'markdown', markdown: { title: parts.length > 1 ? `${title} (${i + 1}/${parts.length})` : title, text: part } }))
}
