// Signal chat ids as the gateway sees them: a contact is its phone number (else its UUID), a group
// is `group.<base64 id>`. A raw base64 group id is accepted wherever a chat id is (home channel,
// delivery targets) and means the same group. redacted() is how a chat appears in log lines.

import { AgentError, redactPhone } from 'agent/sdk'
import { E164, UUID } from './settings.ts'

const GROUP_PREFIX = 'group.'
/** signal-cli group ids: base64 of 32 bytes (v2 groups) or 16 bytes (v1), standard or URL alphabet. */
const BASE64_ID = /^[A-Za-z0-9+/_-]{20,}={0,2}$/

export type Target = { recipient: string } | { groupId: string }

export const groupChatId = (groupId: string) => `${GROUP_PREFIX}${groupId}`

/** Where send/sendTyping go for a chat id; a value that is none of the three forms is refused. */
export function targetOf(chatId: string): Target {
  const id = chatId.trim()
  if (id.startsWith(GROUP_PREFIX) && BASE64_ID.test(id.slice(GROUP_PREFIX.length))) return { groupId: id.slice(GROUP_PREFIX.length) }
  const compact = id.replace(/[\s().-]/g, '')
  if (E164.test(compact)) return { recipient: compact }
  if (UUID.test(id)) return { recipient: id.toLowerCase() }
  if (BASE64_ID.test(id)) return { groupId: id }
  throw new AgentError('E_DELIVERY', 'not a Signal chat id: expected a phone number (+15551234567), a UUID, or a group id (group.<base64> or the raw base64 id)')
}

/** The gateway's chat id of a target (groups always in the prefixed form). */
export const chatIdOf = (target: Target) => ('groupId' in target ? groupChatId(target.groupId) : target.recipient)

/** For log lines: phone numbers redacted, group ids shortened. */
export function redacted(id: string | undefined): string {
  if (!id) return '?'
  if (id.startsWith(GROUP_PREFIX)) return `${GROUP_PREFIX}${id.slice(GROUP_PREFIX.length, GROUP_PREFIX.length + 6)}…`
  return E164.test(id) ? redactPhone(id) : id
}
