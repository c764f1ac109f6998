// WhatsApp ids as the gateway sees them. A chat id is a WhatsApp jid (`15551234567@s.whatsapp.net`,
// `…@lid`, `…@g.us`); a phone number (`+15551234567`) is accepted wherever a chat id is. A sender
// can have two stable ids, its phone and its LID (WhatsApp's privacy alias): the one an allowlist
// names is the one the gateway authorises, so listing either works.

import { AgentError, redactPhone, type Settings } from 'agent/sdk'

const JID = /^[0-9A-Za-z.:_-]+@(s\.whatsapp\.net|lid|g\.us)$/
const PHONE = /^\+?[1-9][\d\s().-]{5,}$/

/** The jid to send to; a phone number becomes its jid. Anything else is refused. */
export function jidOf(chatId: string): string {
  const id = chatId.trim()
  if (JID.test(id)) return id
  if (PHONE.test(id)) return `${id.replace(/\D/g, '')}@s.whatsapp.net`
  throw new AgentError('E_DELIVERY', 'not a WhatsApp chat id: expected a phone number (+15551234567) or a jid (…@s.whatsapp.net, …@lid, …@g.us)')
}

const normalised = (id: string) => (PHONE.test(id.trim()) ? `+${id.replace(/\D/g, '')}` : id.trim())

function listed(settings: Settings, names: string[]): Set<string> {
  const ids = new Set<string>()
  for (const name of names) for (const item of (settings.env(name) ?? '').split(',')) if (item.trim()) ids.add(normalised(item))
  return ids
}

/** The sender id to authorise: the first of its ids an allowlist names, else its primary id. */
export function authorisedId(settings: Settings, chatType: 'dm' | 'group', ids: string[]): string {
  const names = chatType === 'group' ? ['WHATSAPP_GROUP_ALLOWED_USERS'] : ['WHATSAPP_ALLOWED_USERS', 'GATEWAY_ALLOWED_USERS']
  const lists = listed(settings, names)
  return ids.find((id) => lists.has(normalised(id))) ?? ids[0]!
}

/** For log lines: phone numbers and phone jids redacted. */
export function redactedId(id: string): string {
  const match = /^\+?(\d{7,15})(@s\.whatsapp\.net)?$/.exec(id)
  return match ? `${redactPhone(`+${match[1]}`)}${match[2] ?? ''}` : id
}
