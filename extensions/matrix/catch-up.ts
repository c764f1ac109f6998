// Catching up after a reconnect, a re-login or a restart: the SDK always starts with a small initial
// sync (its events are history, never answered), so what arrived since the saved sync token (the
// adapter's resume point in state.db) is read here with one incremental /sync from that token, no
// long-poll. The gateway then answers it within the backlog bound (GatewayService.catchUp).

import type { MatrixClient } from 'matrix-js-sdk'
import type { Sdk } from './client.ts'

export interface RawEvent {
  type: string
  event_id: string
  sender: string
  origin_server_ts: number
  content: Record<string, unknown>
  room_id?: string
  state_key?: string
  unsigned?: Record<string, unknown>
}

export interface Gap {
  /** Timeline events of joined rooms, oldest first per room, with their room id. */
  events: Array<RawEvent & { room_id: string }>
  /** Rooms whose gap held more events than were read (older ones are not seen). */
  limited: string[]
  nextBatch: string
}

interface SyncResponse {
  next_batch?: string
  rooms?: { join?: Record<string, { timeline?: { events?: RawEvent[]; limited?: boolean } }> }
}

/** Reads the timeline events since `since` (at most `limit` per room). Throws the homeserver's error. */
export async function readGap(sdk: Sdk, client: MatrixClient, since: string, limit: number): Promise<Gap> {
  const filter = JSON.stringify({
    room: { timeline: { limit, types: ['m.room.message', 'm.room.encrypted'] }, state: { lazy_load_members: true }, ephemeral: { types: [] }, account_data: { types: [] } },
    presence: { types: [] },
    account_data: { types: [] },
  })
  const response = (await client.http.authedRequest(sdk.Method.Get, '/sync', { since, timeout: '0', filter })) as SyncResponse
  const events: Gap['events'] = []
  const limited: string[] = []
  for (const [roomId, room] of Object.entries(response.rooms?.join ?? {})) {
    if (room.timeline?.limited) limited.push(roomId)
    for (const event of room.timeline?.events ?? []) if (event?.event_id && event.state_key === undefined) events.push({ ...event, room_id: roomId })
  }
  events.sort((a, b) => a.origin_server_ts - b.origin_server_ts)
  return { events, limited, nextBatch: response.next_batch ?? since }
}
