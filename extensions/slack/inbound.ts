// What a Slack message event means for the gateway: whether it is for us at all (not our own, not a
// bot's, not an edit or a join; in a channel only when it mentions us, is in a free-response channel
// or continues a thread we answer in), and the text the agent reads (our mention removed, Slack's
// markup made readable, files described). Direct messages never need a mention.

import { isAudioAttachment, type GatewayInbound } from 'agent/sdk'
import { PLATFORM, type Behaviour } from './settings.ts'

/** An audio file or clip: the adapter downloads and transcribes it (sdk/voice.ts) before dispatching. */
export interface SlackAudio { url: string; name: string; mimeType?: string; size?: number }

export type Parsed = { ok: true; inbound: GatewayInbound; mentioned: boolean; audio: SlackAudio[] } | { ok: false; reason: string }

/** The fields of a `message` or `app_mention` event this adapter reads. */
export interface SlackMessageEvent {
  type: string
  subtype?: string
  user?: string
  bot_id?: string
  text?: string
  ts?: string
  thread_ts?: string
  channel?: string
  channel_type?: string
  files?: Array<{ name?: string; mimetype?: string; size?: number; url_private?: string }>
  event_ts?: string
}

export interface Bot {
  userId: string
}

/** Subtypes that are still a person writing (anything else is an edit, a join, a topic change …). */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'me_message'])

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** Removes `<@BOT>` (and a comma or colon left at the start: "@agent, do this"). */
export function stripBotMention(text: string, botUserId: string): string {
  return text.replace(new RegExp(`[ \\t]?<@${botUserId}(\\|[^>]*)?>`, 'g'), '').trim().replace(/^[,:][ \t]*/, '').trim()
}

/**
 * Slack's markup made readable: `<@U1|name>` → `@name` (`@U1` without a name), `<#C1|general>` →
 * `#general`, `<!here>` → `@here`, `<url|label>` → `label (url)`, `<url>` → `url`, then the three
 * entities Slack escapes (&amp; last, so `&amp;lt;` stays `&lt;`).
 */
export function readableText(text: string): string {
  return text
    .replace(/<([@#!])([^>|]+)(?:\|([^>]*))?>/g, (_, sigil: string, id: string, label?: string) => {
      if (sigil === '!') return `@${(label || id).replace(/^subteam\^/, '')}`
      return `${sigil}${label || id}`
    })
    .replace(/<([^>|]+)\|([^>]*)>/g, (_, url: string, label: string) => (label && label !== url ? `${label} (${url})` : url))
    .replace(/<([^>]+)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}

export function mentions(text: string, botUserId: string): boolean {
  return new RegExp(`<@${botUserId}(\\|[^>]*)?>`).test(text)
}

/**
 * `engaged(channel, threadTs)` says whether the bot answers in that thread already (a follow-up there
 * needs no mention).
 */
export function parseMessage(event: SlackMessageEvent, bot: Bot, behaviour: Behaviour, engaged: (channel: string, thread: string) => boolean): Parsed {
  if (event.user === bot.userId) return { ok: false, reason: 'our own message' }
  if (event.bot_id) return { ok: false, reason: `a bot's message (${event.bot_id})` }
  if (event.subtype && !PERSON_SUBTYPES.has(event.subtype)) return { ok: false, reason: `a ${event.subtype} event` }
  if (!event.user || !event.channel || !event.ts) return { ok: false, reason: 'no user, channel or timestamp' }

  const raw = event.text ?? ''
  // app_mention events carry no channel_type: they only come from channels.
  const dm = event.channel_type === 'im'
  const mentioned = event.type === 'app_mention' || mentions(raw, bot.userId)
  if (!dm && behaviour.requireMention && !mentioned && !behaviour.freeResponseChannels.has(event.channel)) {
    if (!event.thread_ts || !engaged(event.channel, event.thread_ts)) return { ok: false, reason: 'a channel message that does not mention the bot' }
  }

  const lines: string[] = []
  const text = readableText(stripBotMention(raw, bot.userId)).trim()
  if (text) lines.push(text)
  const audio: SlackAudio[] = []
  for (const file of event.files ?? []) {
    if (file.url_private && isAudioAttachment(file.mimetype, file.name)) audio.push({ url: file.url_private, name: file.name ?? 'audio', ...(file.mimetype ? { mimeType: file.mimetype } : {}), ...(file.size !== undefined ? { size: file.size } : {}) })
    const kind = file.mimetype ? `${file.mimetype}, ` : ''
    lines.push(`[attachment: ${file.name ?? 'file'} (${kind}${size(file.size ?? 0)})${file.url_private ? ` ${file.url_private}` : ''}]`)
  }
  if (lines.length === 0) return { ok: false, reason: 'no text' }

  // In a channel every answer goes into a thread: the message's own, or one started under it. In a
  // direct message only a message already in a thread is answered there.
  const threadId = dm ? event.thread_ts : (event.thread_ts ?? event.ts)
  return {
    ok: true,
    mentioned,
    audio,
    inbound: {
      source: {
        platform: PLATFORM,
        userId: event.user,
        chatId: event.channel,
        chatType: dm ? 'dm' : 'group',
        ...(threadId ? { threadId } : {}),
      },
      text: lines.join('\n'),
      // One id for the `message` and `app_mention` events of the same message: the gateway drops the second.
      messageId: `${event.channel}:${event.ts}`,
      receivedAt: Math.round(Number(event.ts) * 1000) || Date.now(),
    },
  }
}
