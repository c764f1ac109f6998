// Reading one event of signal-cli's stream (pure): which envelopes are messages for the agent, from
// whom, in which chat, with what text. Our own number is ignored, except "Note to Self" (a sync of a
// message we sent to ourselves) and group messages the owner wrote on a linked device; either is
// dropped when its timestamp is one this adapter just sent (the echo guard). Receipts, typing,
// calls and other sync events are ignored; stories, reactions and stickers are unsupported (the
// adapter reports them as dropped); edits are read as new messages; mentions (U+FFFC placeholders)
// are rendered as @name.

import { groupChatId } from './ids.ts'

export interface Mention { start?: number; length?: number; name?: string; number?: string; uuid?: string }
export interface Attachment { id?: string; contentType?: string; filename?: string | null; size?: number }
export interface GroupInfo { groupId?: string; groupName?: string; type?: string }

export interface DataMessage {
  timestamp?: number
  message?: string | null
  mentions?: Mention[]
  attachments?: Attachment[]
  groupInfo?: GroupInfo
  reaction?: unknown
  remoteDelete?: unknown
  sticker?: unknown
}

export interface SentMessage extends DataMessage {
  destination?: string | null
  destinationNumber?: string | null
  destinationUuid?: string | null
}

export interface Envelope {
  source?: string
  sourceNumber?: string | null
  sourceUuid?: string | null
  sourceName?: string
  timestamp?: number
  dataMessage?: DataMessage
  editMessage?: { targetSentTimestamp?: number; dataMessage?: DataMessage }
  syncMessage?: { sentMessage?: SentMessage; [other: string]: unknown }
  storyMessage?: unknown
  receiptMessage?: unknown
  typingMessage?: unknown
  callMessage?: unknown
}

/** The timestamps of messages this adapter sent, most recent last, bounded (oldest forgotten first). */
export class SentTimestamps {
  private readonly kept = new Set<number>()
  constructor(private readonly capacity = 500) {}
  remember(timestamp: number | undefined): void {
    if (typeof timestamp !== 'number') return
    this.kept.delete(timestamp)
    this.kept.add(timestamp)
    while (this.kept.size > this.capacity) this.kept.delete(this.kept.values().next().value as number)
  }
  /** true (and forgotten) when `timestamp` is one we sent. */
  consume(timestamp: number | undefined): boolean {
    return typeof timestamp === 'number' && this.kept.delete(timestamp)
  }
  get size(): number {
    return this.kept.size
  }
}

export interface Identity {
  /** SIGNAL_ACCOUNT. */
  account: string
  /** Our own UUID once learnt (from our own sync messages), lower case. */
  uuid?: string
}

export type MessageKind = 'message' | 'edit' | 'note-to-self' | 'linked-device'

export interface InboundMessage {
  kind: MessageKind
  /** Stable sender id: phone number, else UUID. */
  sender: string
  senderName?: string
  chatId: string
  chatType: 'dm' | 'group'
  groupName?: string
  text: string
  attachments: Attachment[]
  /** The envelope's timestamp (ms): ordering, resume point and message id. */
  timestamp: number
}

export type Reading =
  | { ok: true; message: InboundMessage }
  /** `unsupported`: a message someone sent that the agent cannot read (reported as dropped, not just ignored). */
  | { ok: false; reason: string; unsupported?: { chatId: string; sender: string } }

const skip = (reason: string): Reading => ({ ok: false, reason })

/** The envelope inside one stream event (`{envelope, account}`), or the event itself when it is one. */
export function envelopeOf(event: unknown): Envelope | undefined {
  if (!event || typeof event !== 'object') return undefined
  const inner = (event as { envelope?: unknown }).envelope
  if (inner && typeof inner === 'object') return inner as Envelope
  return 'timestamp' in event || 'source' in event ? (event as Envelope) : undefined
}

export function isSelf(id: string | null | undefined, me: Identity): boolean {
  if (!id) return false
  return id === me.account || (me.uuid !== undefined && id.toLowerCase() === me.uuid)
}

/** Replaces each U+FFFC placeholder a mention covers with `@name` (from the end, so offsets hold). */
export function renderMentions(text: string, mentions: Mention[] | undefined): string {
  if (!mentions?.length || !text.includes('\uFFFC')) return text
  let out = text
  for (const m of [...mentions].sort((a, b) => (b.start ?? 0) - (a.start ?? 0))) {
    const start = m.start ?? -1
    const length = m.length ?? 1
    if (start < 0 || start + length > out.length) continue
    const who = m.name?.trim() || m.number || m.uuid || 'someone'
    out = `${out.slice(0, start)}@${who}${out.slice(start + length)}`
  }
  return out
}

function content(data: DataMessage): { text: string; attachments: Attachment[] } | undefined {
  if (data.reaction || data.remoteDelete) return undefined
  const text = renderMentions(typeof data.message === 'string' ? data.message : '', data.mentions).trim()
  const attachments = (data.attachments ?? []).filter((a) => typeof a?.id === 'string')
  return text || attachments.length ? { text, attachments } : undefined
}

export function readEnvelope(envelope: Envelope, me: Identity, sent: SentTimestamps): Reading {
  if (envelope.receiptMessage) return skip('a receipt')
  if (envelope.typingMessage) return skip('a typing indicator')
  if (envelope.callMessage) return skip('a call')
  const sender = envelope.sourceNumber || envelope.sourceUuid || envelope.source
  if (!sender) return skip('no sender')
  const timestamp = envelope.timestamp
  if (typeof timestamp !== 'number') return skip('no timestamp')
  const fromSelf = isSelf(envelope.sourceNumber, me) || isSelf(envelope.sourceUuid, me) || isSelf(envelope.source, me)
  if (envelope.storyMessage) return fromSelf ? skip('a story') : { ok: false, reason: 'a story', unsupported: { chatId: sender, sender } }

  if (envelope.syncMessage) {
    const sentMessage = envelope.syncMessage.sentMessage
    if (!sentMessage) return skip('a sync event (read marks, contacts …)')
    if (!fromSelf) return skip('a sync message from another account')
    if (sent.consume(sentMessage.timestamp ?? timestamp)) return skip('the echo of a message we sent')
    const groupId = sentMessage.groupInfo?.groupId
    const destination = sentMessage.destinationNumber || sentMessage.destinationUuid || sentMessage.destination
    if (!groupId && !isSelf(destination, me)) return skip('our own message to a contact, sent from a linked device')
    const body = content(sentMessage)
    if (!body) return skip('no text or attachment')
    return {
      ok: true,
      message: {
        kind: groupId ? 'linked-device' : 'note-to-self',
        sender: me.account,
        ...(envelope.sourceName ? { senderName: envelope.sourceName } : {}),
        chatId: groupId ? groupChatId(groupId) : me.account,
        chatType: groupId ? 'group' : 'dm',
        ...(sentMessage.groupInfo?.groupName ? { groupName: sentMessage.groupInfo.groupName } : {}),
        ...body,
        timestamp,
      },
    }
  }

  if (fromSelf) return skip('our own number')
  const edit = envelope.editMessage?.dataMessage
  const data = envelope.dataMessage ?? edit
  if (!data) return skip('no message')
  const body = content(data)
  const groupId = data.groupInfo?.groupId
  if (!body && (data.reaction || data.sticker)) return { ok: false, reason: data.reaction ? 'a reaction' : 'a sticker', unsupported: { chatId: groupId ? groupChatId(groupId) : sender, sender } }
  if (!body) return skip(data.remoteDelete ? 'a deletion' : 'no text or attachment')
  return {
    ok: true,
    message: {
      kind: envelope.dataMessage ? 'message' : 'edit',
      sender,
      ...(envelope.sourceName ? { senderName: envelope.sourceName } : {}),
      chatId: groupId ? groupChatId(groupId) : sender,
      chatType: groupId ? 'group' : 'dm',
      ...(data.groupInfo?.groupName ? { groupName: data.groupInfo.groupName } : {}),
      ...body,
      timestamp,
    },
  }
}
