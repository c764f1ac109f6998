// Who may talk to the agent on a chat platform: allowlists from the environment (else
// platforms.<name>.extra in config.yaml), allow-all switches and group lists. Decisions use the stable platform user id only, never a display name.

import { envSwitchOn, platformEnvPrefix, platformSetting, type MessageSource, type Settings } from 'agent/sdk'

/** `api_server` → `API_SERVER`: the prefix of a platform's environment variables. */
export const envPrefix = platformEnvPrefix

/**
 * Ids compared as the platform gives them, except phone numbers, which lose their punctuation, and
 * Signal's `group.<id>` form of a group id, which compares equal to the raw id.
 */
export function normaliseId(id: string): string {
  const trimmed = id.trim()
  if (/^group\.[A-Za-z0-9+/_=-]{8,}$/.test(trimmed)) return trimmed.slice('group.'.length)
  return /^\+?[\d\s().-]{5,}$/.test(trimmed) ? trimmed.replace(/[^\d+]/g, '') : trimmed
}

export interface IdList {
  any: boolean
  ids: Set<string>
}

export function parseList(value: string | undefined): IdList | undefined {
  if (value === undefined) return undefined
  const items = value.split(',').map((s) => s.trim()).filter(Boolean)
  if (items.length === 0) return undefined
  return { any: items.includes('*'), ids: new Set(items.filter((i) => i !== '*').map(normaliseId)) }
}


export interface AllowlistVerdict {
  allowed: boolean
  reason: string
  /** Whether any allowlist applies to this platform (an unknown DM is then ignored, not paired). */
  configured: boolean
}

/** Whether the sender's stable id is listed in the platform's or the gateway's allowlist (a `*` names no one). */
export function namedInAllowlist(settings: Settings, source: MessageSource): boolean {
  if (!source.userId) return false
  const userId = normaliseId(source.userId)
  const lists = [parseList(platformSetting(settings, source.platform, 'ALLOWED_USERS')), parseList(settings.env('GATEWAY_ALLOWED_USERS'))]
  return lists.some((list) => list?.ids.has(userId) ?? false)
}

/** The allowlist part of the decision; pairing grants are checked by the caller. */
export function checkAllowlists(settings: Settings, source: MessageSource): AllowlistVerdict {
  const prefix = envPrefix(source.platform)
  const userId = source.userId ? normaliseId(source.userId) : undefined
  const platformList = parseList(platformSetting(settings, source.platform, 'ALLOWED_USERS'))
  const globalList = parseList(settings.env('GATEWAY_ALLOWED_USERS'))
  const configured = Boolean(platformList || globalList)
  const inList = (list: IdList | undefined) => Boolean(list && (list.any || (userId !== undefined && list.ids.has(userId))))

  if (source.chatType === 'group' || source.chatType === 'channel') {
    // Groups: unset disables them, `*` opens them, a list of ids allows those senders and those
    // groups (a group id in the list opens that group to its members).
    const groupList = parseList(platformSetting(settings, source.platform, 'GROUP_ALLOWED_USERS'))
    if (!groupList) return { allowed: false, reason: 'group chats are disabled (no group allowlist)', configured: true }
    if (inList(groupList)) return { allowed: true, reason: 'group allowlist', configured: true }
    if (source.chatId && groupList.ids.has(normaliseId(source.chatId))) return { allowed: true, reason: 'group allowlist (the group)', configured: true }
    return { allowed: false, reason: 'not in the group allowlist', configured: true }
  }
  if (envSwitchOn(platformSetting(settings, source.platform, 'ALLOW_ALL_USERS'))) return { allowed: true, reason: `${prefix}_ALLOW_ALL_USERS`, configured: true }
  if (envSwitchOn(settings.env('GATEWAY_ALLOW_ALL_USERS'))) return { allowed: true, reason: 'GATEWAY_ALLOW_ALL_USERS', configured: true }
  if (!userId) return { allowed: false, reason: 'no stable user id', configured }
  if (inList(platformList)) return { allowed: true, reason: `${prefix}_ALLOWED_USERS`, configured }
  if (inList(globalList)) return { allowed: true, reason: 'GATEWAY_ALLOWED_USERS', configured }
  return { allowed: false, reason: 'not in any allowlist', configured }
}
