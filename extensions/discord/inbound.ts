// What a Discord message means for the gateway: whether it is for us at all (not our own, not another
// bot's or a webhook's, in a server only when it mentions us, replies to us or is in a free-response
// channel), and the text the agent reads (our mention removed, other mentions readable, attachments
// and stickers described). Direct messages never need a mention.

import { isAudioAttachment, type GatewayInbound } from 'agent/sdk'
import type { Message } from 'discord.js'
import { PLATFORM, type Behaviour } from './settings.ts'

/** An audio attachment or voice message: the adapter transcribes it (sdk/voice.ts) before dispatching. */
export interface AudioAttachment { url: string; name: string; contentType?: string; size: number }

export type Parsed = { ok: true; inbound: GatewayInbound; audio: AudioAttachment[] } | { ok: false; reason: string }

/** discord.js's `cleanContent`: user, role and channel mentions as readable names. */
export type CleanContent = (text: string, channel: Message['channel']) => string

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`
}

/** Whether a server message is addressed to the bot: a mention of it or of its own role, or a reply to it. */
export function addressesBot(message: Message, botId: string): boolean {
  if (message.mentions.users.has(botId)) return true
  if (message.mentions.repliedUser?.id === botId) return true
  return message.mentions.roles.some((role) => role.tags?.botId === botId)
}

/**
 * Removes `<@id>`, `<@!id>` and the bot's own role mentions `<@&id>` (each with one space before it),
 * and a comma or colon left at the start ("@agent, do this"). Other spacing is kept (code blocks).
 */
export function stripBotMention(content: string, botId: string, botRoleIds: Iterable<string> = []): string {
  const ids = [`!?${botId}`, ...[...botRoleIds].map((role) => `&${role}`)]
  const text = content.replace(new RegExp(`[ \\t]?<@(?:${ids.join('|')})>`, 'g'), '')
  return text.trim().replace(/^[,:][ \t]*/, '').trim()
}

export function parseMessage(message: Message, botId: string, behaviour: Behaviour, cleanContent: CleanContent): Parsed {
  if (message.author.id === botId) return { ok: false, reason: 'our own message' }
  if (message.author.bot) return { ok: false, reason: `a bot's message (${message.author.id})` }
  if (message.webhookId) return { ok: false, reason: 'a webhook message' }
  if (message.system) return { ok: false, reason: `a system message (type ${message.type})` }

  const inGuild = message.inGuild()
  const channel = message.channel
  const thread = inGuild && channel.isThread() ? channel : undefined
  if (inGuild) {
    const free = behaviour.freeResponseChannels.has(channel.id) || Boolean(thread?.parentId && behaviour.freeResponseChannels.has(thread.parentId))
    if (behaviour.requireMention && !free && !addressesBot(message, botId)) return { ok: false, reason: 'a server message that does not mention the bot' }
  }

  const botRoles = inGuild ? message.mentions.roles.filter((role) => role.tags?.botId === botId).map((role) => role.id) : []
  const lines: string[] = []
  const text = cleanContent(stripBotMention(message.content, botId, botRoles), channel).trim()
  if (text) lines.push(text)
  const audio: AudioAttachment[] = []
  for (const attachment of message.attachments.values()) {
    if (isAudioAttachment(attachment.contentType, attachment.name)) audio.push({ url: attachment.url, name: attachment.name, size: attachment.size, ...(attachment.contentType ? { contentType: attachment.contentType } : {}) })
    const kind = attachment.contentType ? `${attachment.contentType}, ` : ''
    lines.push(`[attachment: ${attachment.name} (${kind}${size(attachment.size)}) ${attachment.url}]`)
  }
  for (const sticker of message.stickers.values()) lines.push(`[sticker: ${sticker.name}]`)
  if (lines.length === 0) return { ok: false, reason: 'no text' }

  const userName = message.member?.displayName ?? message.author.globalName ?? message.author.username
  return {
    ok: true,
    audio,
    inbound: {
      source: {
        platform: PLATFORM,
        userId: message.author.id,
        ...(userName ? { userName } : {}),
        // Chat ids are channel ids; a thread is its own channel (replies and typing go there) and its
        // own conversation.
        chatId: channel.id,
        chatType: inGuild ? 'group' : 'dm',
        ...(thread ? { threadId: thread.id } : {}),
      },
      text: lines.join('\n'),
      messageId: message.id,
      receivedAt: message.createdTimestamp || Date.now(),
    },
  }
}
