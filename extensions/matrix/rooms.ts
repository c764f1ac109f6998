// Room facts the adapter decides on: whether a room is a direct chat (the account's m.direct data,
// else an unnamed room of exactly two members), who invited the bot and whether as a direct chat,
// and recording a joined direct chat in m.direct the way Matrix clients do.

import type { MatrixClient, Room } from 'matrix-js-sdk'

/** Matrix user ids compare case-insensitively here: a case mismatch must never make the bot answer itself. */
export const sameUser = (a: string | null | undefined, b: string | null | undefined) => Boolean(a && b && a.toLowerCase() === b.toLowerCase())

/** Appservice and bridge puppets use a localpart starting with `_` (e.g. @_telegram_42:server). */
export function bridgeLike(userId: string): boolean {
  const localpart = userId.replace(/^@/, '').split(':')[0] ?? ''
  return !localpart || localpart.startsWith('_')
}

function directRooms(client: MatrixClient): Set<string> {
  const content = client.getAccountData('m.direct')?.getContent() ?? {}
  const rooms = new Set<string>()
  for (const list of Object.values(content)) if (Array.isArray(list)) for (const id of list) if (typeof id === 'string') rooms.add(id)
  return rooms
}

/**
 * A direct chat: listed in the bot's m.direct account data, or (clients do not always record DMs on
 * the bot's side) a room with exactly two members, the bot and one other, that has no explicit name
 * (a named room is a group room, even when only two people are in it).
 */
export function isDirectRoom(client: MatrixClient, room: Room): boolean {
  if (directRooms(client).has(room.roomId)) return true
  const members = room.getJoinedMemberCount() + room.getInvitedMemberCount()
  const named = Boolean(room.currentState.getStateEvents('m.room.name', '')?.getContent()?.name)
  return members === 2 && !named
}

/** Who invited the bot to a room it is invited to, and whether the invite is for a direct chat. */
export function inviteOf(room: Room, me: string): { inviter?: string; direct: boolean } {
  const event = room.getMember(me)?.events.member
  if (!event || event.getContent().membership !== 'invite') return { direct: false }
  const inviter = event.getSender()
  return { ...(inviter ? { inviter } : {}), direct: event.getContent().is_direct === true }
}

/** Adds a room to the bot's m.direct data under the other user (what clients do for a DM). */
export async function markDirect(client: MatrixClient, roomId: string, userId: string): Promise<void> {
  const current = { ...(client.getAccountData('m.direct')?.getContent() ?? {}) } as Record<string, unknown>
  const rooms = Array.isArray(current[userId]) ? (current[userId] as unknown[]).filter((r): r is string => typeof r === 'string') : []
  if (rooms.includes(roomId)) return
  await client.setAccountData('m.direct', { ...current, [userId]: [...rooms, roomId] })
}
