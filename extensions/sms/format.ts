// SMS replies are plain text: markdown is stripped (snake_case survives: underscores count only at
// word boundaries) and long text is split into parts of at most 1600 characters.

import { splitText, stripMarkdown } from 'agent/sdk'

export { stripMarkdown }

export const MAX_SMS_LENGTH = 1600

export function smsParts(text: string): string[] {
  return splitText(stripMarkdown(text), MAX_SMS_LENGTH)
}
