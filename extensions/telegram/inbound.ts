// What a Telegram message means for the gateway: whether it is for us at all (a person's, in a private
// chat or a group; in a group only when it mentions us, replies to us, names us in a command or sits
// in a free-response chat), and the text the agent reads (our mention removed, a menu command mapped
// back to its registry name, attachments described). Voice notes and audio files are pointed out for
// transcription.

import { isAudioAttachment, type GatewayInbound } from 'agent/sdk'
import type { Message, MessageEntity } from 'grammy/types'
import { commandAddress } from './menu.ts'
import { PLATFORM, type Behaviour } from './settings.ts'

export interface Bot {
  id: number
  username: string
}

export interface InboundRules {
  bot: Bot
  behaviour: Behaviour
  /** Sanitised menu names → registry names. */
  renamed: ReadonlyMap<string, string>
  /** Whether `/name …` is a gateway command (a bare command in a group counts as addressed to us). */
  isCommand(text: string): boolean
}

/** A voice note or audio file a user sent: transcribed (sdk transcribeAudio) before the agent reads it. */
export interface AudioFile {
  fileId: string
  filename: string
  mimeType?: string
  size?: number
}

export type Parsed =
  | {
      ok: true
      /** Its text may be empty when `audio` is set (a voice note without a caption). */
      inbound: GatewayInbound
      command: boolean
      audio?: AudioFile
    }
  | {
      ok: false
      reason: string
      /** Addressed to the bot, but nothing in it the agent can read (reported as dropped). */
      unreadable?: boolean
    }

function size(bytes: number | undefined): string {
  if (bytes === undefined) return ''
  if (bytes < 1024) return `, ${bytes} B`
  if (bytes < 1024 * 1024) return `, ${Math.round(bytes / 1024)} KB`
  return `, ${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

const mentionsUs = (text: string, entity: MessageEntity, bot: Bot) =>
  (entity.type === 'mention' && text.slice(entity.offset + 1, entity.offset + entity.length).toLowerCase() === bot.username.toLowerCase()) ||
  (entity.type === 'text_mention' && entity.user.id === bot.id)

/** The text with our @mentions (by entity) removed, and a comma or colon left at the start. */
export function stripBotMention(text: string, entities: readonly MessageEntity[], bot: Bot): string {
  let out = text
  for (const entity of [...entities].sort((a, b) => b.offset - a.offset)) {
    if (entity.type === 'mention' && mentionsUs(text, entity, bot)) out = out.slice(0, entity.offset) + out.slice(entity.offset + entity.length)
  }
  return out.replace(/[ \t]{2,}/g, ' ').trim().replace(/^[,:][ \t]*/, '').trim()
}

/** The voice note, audio file or audio document of a message, if any. */
export function audioOf(message: Message): AudioFile | undefined {
  const id = message.message_id
  const size = (bytes: number | undefined) => (bytes !== undefined ? { size: bytes } : {})
  if (message.voice) return { fileId: message.voice.file_id, filename: `voice-${id}.ogg`, mimeType: message.voice.mime_type ?? 'audio/ogg', ...size(message.voice.file_size) }
  if (message.audio) return { fileId: message.audio.file_id, filename: message.audio.file_name ?? `audio-${id}.mp3`, ...(message.audio.mime_type ? { mimeType: message.audio.mime_type } : {}), ...size(message.audio.file_size) }
  const document = message.document
  if (document && isAudioAttachment(document.mime_type, document.file_name)) {
    return { fileId: document.file_id, filename: document.file_name ?? `audio-${id}`, ...(document.mime_type ? { mimeType: document.mime_type } : {}), ...size(document.file_size) }
  }
  return undefined
}

function attachments(message: Message, audio: AudioFile | undefined): string[] {
  const lines: string[] = []
  if (message.photo?.length) lines.push('[photo]')
  if (message.video_note) lines.push(`[video note${message.video_note.duration ? `: ${message.video_note.duration} s` : ''}]`)
  if (message.document && !audio) lines.push(`[document: ${message.document.file_name ?? 'file'} (${message.document.mime_type ?? 'unknown type'}${size(message.document.file_size)})]`)
  if (message.video) lines.push(`[video${message.video.duration ? `: ${message.video.duration} s` : ''}]`)
  if (message.sticker) lines.push(`[sticker${message.sticker.emoji ? `: ${message.sticker.emoji}` : ''}]`)
  if (message.location) lines.push(`[location: ${message.location.latitude}, ${message.location.longitude}]`)
  if (message.contact) lines.push(`[contact: ${message.contact.first_name}]`)
  return lines
}

export function parseMessage(message: Message, rules: InboundRules): Parsed {
  const { bot, behaviour } = rules
  const from = message.from
  if (!from) return { ok: false, reason: 'no sender' }
  if (from.id === bot.id) return { ok: false, reason: 'our own message' }
  if (from.is_bot) return { ok: false, reason: `a bot's message (${from.id})` }
  const chat = message.chat
  if (chat.type !== 'private' && chat.type !== 'group' && chat.type !== 'supergroup') return { ok: false, reason: `a ${chat.type} post` }
  const group = chat.type !== 'private'
  const raw = message.text ?? message.caption ?? ''
  const entities = message.entities ?? message.caption_entities ?? []

  let text = raw
  let command = false
  let addressed = !group || behaviour.freeResponseChats.has(String(chat.id)) || !behaviour.requireMention
  const address = commandAddress(raw, bot.username, rules.renamed)
  if (address.kind === 'other-bot') return { ok: false, reason: 'a command for another bot' }
  if (address.kind === 'ours') {
    text = address.text
    // Telegram's clients send /start when someone opens the bot: unless the registry has a /start, it
    // is the help (a deep link's payload is dropped).
    if (/^\/start(\s|$)/i.test(text) && !rules.isCommand(text)) text = '/help'
    command = rules.isCommand(text)
    if (address.addressed || command) addressed = true
  }
  if (!addressed && entities.some((e) => mentionsUs(raw, e, bot))) addressed = true
  if (!addressed && message.reply_to_message?.from?.id === bot.id) addressed = true
  if (!addressed) return { ok: false, reason: 'a group message that does not mention the bot' }

  const thread = message.is_topic_message && message.message_thread_id ? String(message.message_thread_id) : undefined
  const userName = [from.first_name, from.last_name].filter(Boolean).join(' ') || from.username
  const source = {
    platform: PLATFORM,
    userId: String(from.id),
    ...(userName ? { userName } : {}),
    chatId: String(chat.id),
    chatType: group ? ('group' as const) : ('dm' as const),
    // A forum topic is its own conversation, answered in the topic.
    ...(thread ? { threadId: thread } : {}),
  }
  const audio = audioOf(message)
  const lines: string[] = []
  const body = command ? text.trim() : stripBotMention(raw, entities, bot)
  if (body) lines.push(body)
  lines.push(...attachments(message, audio))
  // In a private chat it was surely meant for the agent; in groups these are mostly service messages.
  if (lines.length === 0 && !audio) return { ok: false, reason: 'a message without text or a readable attachment (a poll, dice, a game …)', unreadable: !group }
  return {
    ok: true,
    command: command && !audio,
    ...(audio ? { audio } : {}),
    inbound: {
      source,
      text: lines.join('\n'),
      // Message ids count per chat: the chat makes them unique for the gateway's duplicate check.
      messageId: `${chat.id}:${message.message_id}`,
      receivedAt: message.date ? message.date * 1000 : Date.now(),
    },
  }
}
