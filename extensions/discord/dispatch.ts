// Discord messages handed to the gateway: the live ones, and after every new session those read back
// over REST (catch-up.ts), since Discord replays missed events only on a resume. Audio is transcribed
// first, for senders the gateway would answer; each message handed over moves its channel's resume
// point past it.

import { errorMessage, GATEWAY_AUTH_SERVICE, MAX_AUDIO_BYTES, transcribeAudio, type GatewayAuthService, type GatewayInbound } from 'agent/sdk'
import type { Message } from 'discord.js'
import { advance, bySnowflake, READ_PER_CHANNEL, serialisePositions } from './catch-up.ts'
import { reasonOf, type Session } from './connection.ts'
import { parseMessage, type Parsed } from './inbound.ts'
import { PLATFORM } from './settings.ts'

/** An attachment from Discord's CDN, at most 25 MB. */
async function fetchAudio(url: string): Promise<Uint8Array> {
  const response = await fetch(url, { signal: AbortSignal.timeout(60_000) })
  if (!response.ok) throw new Error(`HTTP ${response.status}`)
  const data = new Uint8Array(await response.arrayBuffer())
  if (data.byteLength > MAX_AUDIO_BYTES) throw new Error('larger than 25 MB')
  return data
}

export function onMessage(session: Session, message: Message): void {
  if (session.closed || !session.botId) return
  let parsed
  try {
    parsed = parseMessage(message, session.botId, session.behaviour, session.discord.cleanContent)
  } catch (error) {
    return session.log.warn(`ignored Discord message ${message.id}: ${session.redact(errorMessage(error))}`)
  }
  if (!parsed.ok) return session.log.debug(`ignored Discord message ${message.id}: ${parsed.reason}`)
  if (parsed.audio.length === 0) return dispatch(session, parsed.inbound)
  void withTranscripts(session, parsed).then((inbound) => dispatch(session, inbound))
}

/**
 * Voice messages and audio files transcribed before the agent sees them (sdk/voice.ts), each line
 * after the message's own; only for a sender the gateway would answer (a stranger's audio is
 * neither downloaded nor transcribed).
 */
async function withTranscripts(session: Session, parsed: Parsed & { ok: true }): Promise<GatewayInbound> {
  const { inbound, audio } = parsed
  if (audio.length === 0 || !(await session.services.get<GatewayAuthService>(GATEWAY_AUTH_SERVICE)?.authorize(inbound.source))?.allowed) return inbound
  const lines = await Promise.all(audio.map((a) => transcribeAudio(session.services, { filename: a.name, size: a.size, ...(a.contentType ? { mimeType: a.contentType } : {}), fetch: () => fetchAudio(a.url) }, session.log)))
  return { ...inbound, text: [inbound.text, ...lines].join('\n') }
}

function dispatch(session: Session, inbound: GatewayInbound): void {
  const { source } = inbound
  // Commas after the ids: the gateway's log redaction reads a run of digits, spaces and brackets as a phone number.
  session.log.debug(`Discord message ${inbound.messageId} from user ${source.userId}, ${source.chatType} ${source.chatId}, ${inbound.text.length} characters`)
  const dispatched = session.gateway.dispatch(inbound)
  // The gateway recorded the message id as it was called: the position may move past it.
  savePosition(session, source.threadId ?? source.chatId, inbound.messageId)
  dispatched
    .then((result) => session.log.debug(`Discord message ${inbound.messageId}: ${result.status}`))
    .catch((error) => session.log.error(`Discord message ${inbound.messageId} failed: ${session.redact(errorMessage(error))}`))
}

function savePosition(session: Session, channelId: string | undefined, messageId: string | undefined): void {
  if (!channelId || !messageId || !/^\d+$/.test(messageId) || !advance(session.positions, channelId, messageId)) return
  // Saved in the order asked (one commit queue), so the last position asked is the one kept.
  session.gateway
    .resumePoint(PLATFORM)
    .set(serialisePositions(session.positions))
    .catch((error) => session.log.warn(`cannot save the Discord resume point: ${errorMessage(error)}`))
}

/** Reads what each known channel got since its position and hands it to the gateway (bounded there). */
export function catchUp(session: Session): Promise<void> {
  session.catchingUp ??= readBack(session).finally(() => (session.catchingUp = undefined))
  return session.catchingUp
}

async function readBack(session: Session): Promise<void> {
  const found: GatewayInbound[] = []
  const newest = new Map<string, string>()
  for (const [channelId, after] of [...session.positions]) {
    if (session.closed) return
    try {
      const channel = await session.client.channels.fetch(channelId)
      if (!channel?.isTextBased()) continue
      const messages = [...(await channel.messages.fetch({ after, limit: READ_PER_CHANNEL })).values()].sort(bySnowflake)
      for (const message of messages) {
        newest.set(channelId, message.id)
        const parsed = parseMessage(message, session.botId!, session.behaviour, session.discord.cleanContent)
        if (parsed.ok) found.push(await withTranscripts(session, parsed))
      }
    } catch (error) {
      session.log.warn(`cannot read what Discord channel ${channelId}, got while the adapter was away: ${session.redact(reasonOf(error))}`)
    }
  }
  if (session.closed) return
  found.sort((a, b) => bySnowflake({ id: a.messageId! }, { id: b.messageId! }))
  const result = await session.gateway.catchUp(PLATFORM, found)
  for (const [channelId, id] of newest) savePosition(session, channelId, id)
  if (found.length > 0) session.log.info(`caught up on Discord: ${found.length} message(s) the gateway did not get live, ${result.dispatched} answered, ${result.summarised} summarised, ${result.duplicates} already seen`)
}
