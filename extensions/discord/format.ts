// Outgoing text for Discord: answers longer than a message (2,000 characters) become several
// messages through the sdk's markdown splitter (code fences balanced in every part).

import { markdownParts } from 'agent/sdk'

/** Discord's limit on a message's `content`. */
export const MAX_MESSAGE_LENGTH = 2000

/** Splits text into Discord messages of at most `max` characters. */
export function discordParts(text: string, max = MAX_MESSAGE_LENGTH): string[] {
  return markdownParts(text, max)
}
