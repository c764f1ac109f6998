// The bridge's message rules, pure (no socket, no I/O), shared by the real bridge and the tests:
// which WhatsApp Web messages go to the agent, the stable ids of a sender (phone and LID aliases),
// the text inside the message wrappers, the reply header, and the echo guard of recently sent ids.
//
// Modes: `self-chat` (the agent lives in the owner's own account): the owner's messages to
// themselves are input, except our own answers, recognised by their header (the reply prefix) and
// by the ids of recently sent messages (so an empty prefix does not reopen the loop); the owner's
// messages in other chats are never input. `bot` (a dedicated number): every message from the
// account itself is dropped. Messages from other people are input in both modes.

/** `15551234567:3@s.whatsapp.net` → `15551234567@s.whatsapp.net`; LIDs and groups keep their server. */
export function normaliseJid(jid) {
  if (typeof jid !== 'string' || !jid.includes('@')) return undefined
  const [user, server] = jid.split('@')
  const bare = (user ?? '').split(':')[0]
  return bare && server ? `${bare}@${server}` : undefined
}

export const isGroupJid = (jid) => typeof jid === 'string' && jid.endsWith('@g.us')
export const isLidJid = (jid) => typeof jid === 'string' && jid.endsWith('@lid')
export const isPhoneJid = (jid) => typeof jid === 'string' && jid.endsWith('@s.whatsapp.net')
/** Status updates, broadcast lists and channels (newsletters) are never conversations with the agent. */
export const isBroadcastJid = (jid) => typeof jid === 'string' && (jid.endsWith('@broadcast') || jid.endsWith('@newsletter'))

/** The stable id the gateway authorises: `+<digits>` for a phone jid, the LID jid itself for a LID. */
export function stableId(jid) {
  const bare = normaliseJid(jid)
  if (!bare) return undefined
  if (isPhoneJid(bare)) return `+${bare.split('@')[0]}`
  return bare
}

/** The reply header from its configured form: unset → the default, '' → none, `\n` (two characters) → newline. */
export function resolveReplyPrefix(raw, agentName = 'Agent') {
  if (raw === undefined || raw === null) return `🤖 *${agentName}*\n`
  return String(raw).replace(/\\n/g, '\n')
}

/** Unwraps ephemeral, view-once, edit and captioned-document wrappers; returns the inner message. */
export function unwrap(message) {
  let m = message
  for (let i = 0; i < 5 && m && typeof m === 'object'; i++) {
    const inner =
      m.ephemeralMessage?.message ??
      m.viewOnceMessage?.message ??
      m.viewOnceMessageV2?.message ??
      m.viewOnceMessageV2Extension?.message ??
      m.documentWithCaptionMessage?.message ??
      m.editedMessage?.message ??
      (m.protocolMessage?.type === 14 || m.protocolMessage?.type === 'MESSAGE_EDIT' ? m.protocolMessage.editedMessage : undefined)
    if (!inner) break
    m = inner
  }
  return m
}

const MEDIA = { imageMessage: 'image', videoMessage: 'video', audioMessage: 'audio', documentMessage: 'document', stickerMessage: 'sticker' }

/** The text of a message and a note per media part (`[image: image/jpeg]`). */
export function textOf(message) {
  const m = unwrap(message)
  if (!m || typeof m !== 'object') return { text: '', media: [] }
  const text = m.conversation ?? m.extendedTextMessage?.text ?? m.imageMessage?.caption ?? m.videoMessage?.caption ?? m.documentMessage?.caption ?? ''
  const media = []
  for (const [key, kind] of Object.entries(MEDIA)) {
    const part = m[key]
    if (part) media.push(`[${kind}${part.mimetype ? `: ${part.mimetype}` : ''}${part.fileName ? `, ${part.fileName}` : ''}]`)
  }
  return { text: typeof text === 'string' ? text : '', media }
}

/** The first media part of a message: { kind, mimetype, fileName, size }, or undefined. */
export function mediaOf(message) {
  const m = unwrap(message)
  if (!m || typeof m !== 'object') return undefined
  for (const [key, kind] of Object.entries(MEDIA)) {
    const part = m[key]
    if (part) return { kind, mimetype: part.mimetype ?? undefined, fileName: part.fileName ?? undefined, size: Number(part.fileLength?.low ?? part.fileLength ?? 0) || undefined }
  }
  return undefined
}

/** Where a downloaded media part is kept: a plain file name from the message id and the type. */
export function mediaFileName(id, mimetype) {
  const ext = (mimetype ?? '').split(';')[0].split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin'
  return `${String(id).replace(/[^A-Za-z0-9_-]/g, '_')}.${ext}`
}

/** Ids of messages the bridge sent, most recent last, bounded (oldest forgotten first). */
export class SentIds {
  constructor(capacity = 500) {
    this.capacity = capacity
    this.kept = new Set()
  }
  remember(id) {
    if (typeof id !== 'string' || !id) return
    this.kept.delete(id)
    this.kept.add(id)
    while (this.kept.size > this.capacity) this.kept.delete(this.kept.values().next().value)
  }
  has(id) {
    return typeof id === 'string' && this.kept.has(id)
  }
  get size() {
    return this.kept.size
  }
}

/** Whether `jid` is the account's own chat ("Message yourself"), by phone jid or LID. */
export function isOwnChat(jid, me) {
  const bare = normaliseJid(jid)
  return Boolean(bare && (bare === normaliseJid(me?.id) || bare === normaliseJid(me?.lid)))
}

/** The header added to an outgoing message: only in self-chat mode, only in the owner's own chat. */
export function outgoingText(text, chatId, ctx) {
  if (ctx.mode !== 'self-chat' || !ctx.prefix || !isOwnChat(chatId, ctx.me)) return text
  return `${ctx.prefix}${text}`
}

/**
 * One raw WhatsApp Web message (`messages.upsert` entry) → `{ ok: true, message }` for the agent, or
 * `{ ok: false, reason }`. ctx: { mode: 'self-chat' | 'bot', prefix: string, me: { id, lid }, sent: SentIds }.
 */
export function readIncoming(raw, ctx) {
  const key = raw?.key
  const chat = normaliseJid(key?.remoteJid)
  if (!key || !chat) return { ok: false, reason: 'no chat' }
  if (isBroadcastJid(chat)) return { ok: false, reason: 'a status, broadcast or channel message' }
  if (raw.message?.protocolMessage && !unwrap(raw.message)?.conversation && !unwrap(raw.message)?.extendedTextMessage) return { ok: false, reason: 'a protocol message' }
  if (raw.message?.reactionMessage) return { ok: false, reason: 'a reaction' }
  const group = isGroupJid(chat)
  const fromMe = Boolean(key.fromMe)
  if (fromMe) {
    if (ctx.mode === 'bot') return { ok: false, reason: 'from the account itself (bot mode)' }
    if (group || !isOwnChat(chat, ctx.me)) return { ok: false, reason: "the owner's message in another chat" }
    if (ctx.sent.has(key.id)) return { ok: false, reason: 'the echo of a message we sent (id)' }
  }
  const { text, media } = textOf(raw.message)
  // Compared without surrounding blanks: a client may trim the header's trailing newline.
  const header = ctx.prefix.trim()
  if (fromMe && header && text.trimStart().startsWith(header)) return { ok: false, reason: 'the echo of a message we sent (prefix)' }
  const body = [text.trim(), ...media].filter(Boolean).join('\n')
  if (!body) return { ok: false, reason: 'no text' }
  // The sender: the participant in a group, the chat in a DM, the account itself for its own chat.
  const senderJid = fromMe ? normaliseJid(ctx.me?.id) ?? chat : normaliseJid(group ? key.participant : chat)
  if (!senderJid) return { ok: false, reason: 'no sender' }
  const aliases = [key.senderPn, key.senderLid, key.participantPn, key.participantLid, key.remoteJidAlt, key.participantAlt, ...(fromMe ? [ctx.me?.lid] : [])]
    .map(stableId)
    .filter((id) => id && id !== stableId(senderJid))
  const ts = Number(raw.messageTimestamp?.low ?? raw.messageTimestamp ?? 0)
  return {
    ok: true,
    message: {
      id: key.id,
      chatId: chat,
      chatType: group ? 'group' : 'dm',
      senderId: stableId(senderJid),
      senderAliases: [...new Set(aliases)],
      ...(raw.pushName ? { senderName: raw.pushName } : {}),
      fromMe,
      selfChat: !group && isOwnChat(chat, ctx.me),
      text: body,
      timestamp: ts > 0 ? ts * 1000 : Date.now(),
    },
  }
}
