// Outgoing text for Telegram: the answer's markdown split into parts by the sdk's splitter (code
// fences balanced, never cut inside an inline code span), each part rendered as MarkdownV2 and kept
// as plain text for the resend when Telegram rejects the entities. Escaping makes a part longer: the
// split allows for the text's average growth, and a part whose MarkdownV2 still passes the
// 4,096-character limit is split again, smaller.

import { markdownParts } from 'agent/sdk'
import { markdownToV2 } from './markdown-v2.ts'

/** Telegram's limit on a message's text (after entity parsing; the marked-up text is held to it too). */
export const MAX_MESSAGE_LENGTH = 4096
const MIN_BUDGET = 200

export interface Part {
  /** The part in MarkdownV2. */
  markdown: string
  /** The same part as the model wrote it, sent without parse_mode when Telegram refuses the markup. */
  plain: string
}

/** Splits markdown into Telegram messages whose MarkdownV2 and plain forms both fit `max`. */
export function telegramParts(text: string, max = MAX_MESSAGE_LENGTH): Part[] {
  const parts: Part[] = []
  const fit = (source: string, budget: number): void => {
    for (const plain of markdownParts(source, budget)) {
      const markdown = markdownToV2(plain)
      if (markdown.length <= max || budget <= MIN_BUDGET) {
        parts.push({ markdown: markdown.length <= max ? markdown : '', plain })
        continue
      }
      // Shrink in proportion to the growth, with a margin for escapes that cluster.
      fit(plain, Math.max(MIN_BUDGET, Math.floor((budget * max) / markdown.length) - 64))
    }
  }
  // Escapes spread over the text make every part longer: the first split already allows for them.
  const growth = text.length > 0 ? markdownToV2(text).length / text.length : 1
  fit(text, growth > 1 ? Math.max(MIN_BUDGET, Math.floor(max / growth) - 32) : max)
  return parts
}
