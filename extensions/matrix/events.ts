// Reading one inbound m.room.message: what is answered and with which text. Edits, notices (other
// bots' replies), attachments other than audio (m.audio, transcribed by the adapter) and empty bodies are skipped; a reply's quoted fallback is removed; in
// group rooms a message is answered only when it mentions the bot (m.mentions, its user id, its
// display name, a matrix.to link), replies to the bot, or is a known command, unless mentions are
// not required; `!command` is accepted for `/command` (Matrix clients keep `/` for themselves).

export interface InboundContent {
  msgtype?: unknown
  body?: unknown
  formatted_body?: unknown
  'm.mentions'?: { user_ids?: unknown; room?: unknown }
  /** m.audio: the media (mxc://) and what the sender's client says about it. */
  url?: unknown
  info?: { mimetype?: unknown; size?: unknown }
  'm.relates_to'?: { rel_type?: unknown; event_id?: unknown; 'm.in_reply_to'?: { event_id?: unknown }; is_falling_back?: unknown }
}

export interface ReadContext {
  /** The bot's user id. */
  me: string
  /** The bot's display name in the room, if it has one. */
  displayName?: string
  direct: boolean
  /** Whether group messages need a mention (false in free-response rooms). */
  requireMention: boolean
  /** Names and aliases of the gateway's commands. */
  commands: ReadonlySet<string>
  /** The message replies to one of the bot's own messages. */
  repliesToMe: boolean
}

export type ReadResult =
  | { ok: true; text: string; threadId?: string; replyTo?: string; mentioned: boolean; audio?: MatrixAudio }
  /** `dropped`: content the agent cannot take (reported as a drop, not just skipped by design). */
  | { ok: false; reason: string; dropped?: true }

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Removes the `> <@user> quoted` lines a reply starts with (the fallback for clients without replies). */
export function stripReplyFallback(body: string): string {
  if (!body.startsWith('>')) return body
  const lines = body.split('\n')
  let i = 0
  while (i < lines.length && lines[i]!.startsWith('>')) i++
  if (i < lines.length && lines[i] === '') i++
  const rest = lines.slice(i).join('\n')
  return rest.trim() ? rest : body
}

/** Whether the message addresses the bot: m.mentions, its id, @localpart, a matrix.to pill, its display name. */
export function mentionsMe(content: InboundContent, body: string, me: string, displayName?: string): boolean {
  const ids = content['m.mentions']?.user_ids
  if (Array.isArray(ids) && ids.some((id) => typeof id === 'string' && id.toLowerCase() === me.toLowerCase())) return true
  const lower = body.toLowerCase()
  if (lower.includes(me.toLowerCase())) return true
  const localpart = me.slice(1).split(':')[0] ?? ''
  if (localpart && new RegExp(`(^|[^\\w@])@${escapeRegExp(localpart)}(?![\\w:-])`, 'i').test(body)) return true
  const html = typeof content.formatted_body === 'string' ? content.formatted_body : ''
  if (html && (html.includes(`matrix.to/#/${me}`) || html.includes(`matrix.to/#/${encodeURIComponent(me)}`))) return true
  const name = displayName?.trim()
  if (name && name.length >= 2 && new RegExp(`(^|[^\\w])${escapeRegExp(name)}(?!\\w)`, 'i').test(body)) return true
  return false
}

/** Removes explicit mentions of the bot: its id, @localpart, and a leading `Name:` (a pill's text). */
export function stripMentions(body: string, me: string, displayName?: string): string {
  let out = body.replace(new RegExp(escapeRegExp(me), 'gi'), '')
  const localpart = me.slice(1).split(':')[0] ?? ''
  if (localpart) out = out.replace(new RegExp(`(^|[^\\w@])@${escapeRegExp(localpart)}(?![\\w:-])`, 'gi'), '$1')
  const name = displayName?.trim()
  if (name) out = out.replace(new RegExp(`^\\s*${escapeRegExp(name)}\\s*[:,]`, 'i'), '')
  out = out.replace(/^\s*[:,]\s*/, '').replace(/[ \t]{2,}/g, ' ').replace(/\s+([,.;:!?])/g, '$1')
  return out.trim()
}

/** `/name args` or `!name args` for a known command → `/name args`; anything else → undefined. */
export function asCommand(text: string, commands: ReadonlySet<string>): string | undefined {
  const match = text.match(/^([!/])([A-Za-z][\w-]*)(?=\s|$)([\s\S]*)$/)
  if (!match) return undefined
  const name = match[2]!.toLowerCase()
  if (!commands.has(name) && !commands.has(name.replace(/_/g, '-'))) return undefined
  return `/${commands.has(name) ? name : name.replace(/_/g, '-')}${match[3]}`
}

/** A voice message or audio file (m.audio): the adapter downloads and transcribes it (sdk/voice.ts). */
export interface MatrixAudio { mxc: string; filename: string; mimeType?: string; size?: number }

/** m.audio: in a group room only in reply to the bot or where no mention is needed (a voice note cannot mention). */
function readAudio(content: InboundContent, context: ReadContext): ReadResult {
  if (typeof content.url !== 'string' || !content.url.startsWith('mxc://')) return { ok: false, reason: 'an audio message without plain media (encrypted media is not supported)', dropped: true }
  if (!context.direct && context.requireMention && !context.repliesToMe) return { ok: false, reason: 'a group voice message that does not reply to the bot' }
  const relation = content['m.relates_to']
  const threadId = relation?.rel_type === 'm.thread' && typeof relation.event_id === 'string' ? relation.event_id : undefined
  const info = content.info
  const audio: MatrixAudio = {
    mxc: content.url,
    filename: typeof content.body === 'string' && content.body.trim() ? content.body.trim().slice(0, 200) : 'voice message',
    ...(typeof info?.mimetype === 'string' ? { mimeType: info.mimetype } : {}),
    ...(typeof info?.size === 'number' ? { size: info.size } : {}),
  }
  return { ok: true, text: '', mentioned: false, audio, ...(threadId ? { threadId } : {}) }
}

export function readMessage(content: InboundContent, context: ReadContext): ReadResult {
  const relation = content['m.relates_to']
  if (relation?.rel_type === 'm.replace') return { ok: false, reason: 'an edit' }
  const msgtype = content.msgtype
  if (msgtype === 'm.notice') return { ok: false, reason: 'a notice (bots answer with notices)' }
  if (msgtype === 'm.audio') return readAudio(content, context)
  if (msgtype !== 'm.text' && msgtype !== 'm.emote') return { ok: false, reason: `msgtype ${String(msgtype)} is not supported`, dropped: true }
  if (typeof content.body !== 'string' || !content.body.trim()) return { ok: false, reason: 'an empty body' }

  const replyTo = typeof relation?.['m.in_reply_to']?.event_id === 'string' ? relation['m.in_reply_to'].event_id : undefined
  const threadId = relation?.rel_type === 'm.thread' && typeof relation.event_id === 'string' ? relation.event_id : undefined
  // In a thread, m.in_reply_to is only the fallback for thread-unaware clients: no quote to strip.
  let body = replyTo && !(threadId && relation?.is_falling_back === true) ? stripReplyFallback(content.body) : content.body
  const mentioned = mentionsMe(content, body, context.me, context.displayName)
  if (mentioned) body = stripMentions(body, context.me, context.displayName)
  const command = asCommand(body.trim(), context.commands)
  if (!context.direct && context.requireMention && !mentioned && !context.repliesToMe && !command) {
    return { ok: false, reason: 'a group message that does not mention the bot' }
  }
  const text = command ?? body.trim()
  if (!text) return { ok: false, reason: 'nothing left after the mention' }
  return { ok: true, text: msgtype === 'm.emote' && !command ? `* ${text}` : text, mentioned, ...(threadId ? { threadId } : {}), ...(replyTo ? { replyTo } : {}) }
}
