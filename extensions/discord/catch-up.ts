// What Discord does not replay: discord.js gets missed events only when a session resumes. After a new
// session (a start, a restart, a session Discord refused to resume with op 9) the messages of the
// channels the bot was answering in are read back over REST, after the last message handed to the
// gateway there. That position is the adapter's resume point: channel id → last message id, for the
// most recently active channels. A DM channel never seen before cannot be found this way (Discord
// lists no DM channels to bots).

/** Channels whose position is kept (the most recent ones). */
export const CHANNELS_KEPT = 50
/** Messages read per channel when catching up (the gateway's backlog bound then applies). */
export const READ_PER_CHANNEL = 50

export type Positions = Map<string, string>

/** The saved positions; anything unreadable counts as none (never a reason not to start). */
export function parsePositions(text: string | undefined): Positions {
  const positions: Positions = new Map()
  if (!text) return positions
  try {
    const value = JSON.parse(text) as unknown
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const [channel, id] of Object.entries(value)) if (/^\d{15,22}$/.test(channel) && typeof id === 'string' && /^\d{15,22}$/.test(id)) positions.set(channel, id)
    }
  } catch {}
  return positions
}

/** Moves a channel's position forward (never back), most recent channel last, at most CHANNELS_KEPT. */
export function advance(positions: Positions, channelId: string, messageId: string): boolean {
  const current = positions.get(channelId)
  if (current !== undefined && BigInt(current) >= BigInt(messageId)) return false
  positions.delete(channelId)
  positions.set(channelId, messageId)
  while (positions.size > CHANNELS_KEPT) positions.delete(positions.keys().next().value!)
  return true
}

export const serialisePositions = (positions: Positions) => JSON.stringify(Object.fromEntries(positions))

/** Snowflakes in time order. */
export const bySnowflake = (a: { id: string }, b: { id: string }) => (BigInt(a.id) < BigInt(b.id) ? -1 : BigInt(a.id) > BigInt(b.id) ? 1 : 0)
