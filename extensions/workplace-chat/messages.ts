// Robot messages as DingTalk delivers them on the stream (topic /v1.0/im/bot/messages/get): which
// ones reach the agent (text, rich text, recognised speech; direct chats, and group messages that
// @-mention the robot), what text the agent reads, and the reply address each one carries.

/** The JSON of one robot message (the `data` of a CALLBACK frame), as far as we read it. */
export interface RobotMessage {
  msgId?: string
  msgtype?: string
  conversationId?: string
  /** '1' direct chat, '2' group chat. */
  conversationType?: string
  conversationTitle?: string
  senderId?: string
  senderStaffId?: string
  senderNick?: string
  chatbotUserId?: string
  robotCode?: string
  isInAtList?: boolean
  atUsers?: Array<{ dingtalkId?: string; staffId?: string }>
  sessionWebhook?: string
  /** Epoch ms after which the session webhook no longer accepts replies. */
  sessionWebhookExpiredTime?: number
  createAt?: number
  text?: { content?: string }
  content?: { richText?: Array<{ text?: string; type?: string; downloadCode?: string; pictureDownloadCode?: string }>; recognition?: string }
}

export interface InboundRobotMessage {
  msgId: string
  text: string
  chatId: string
  chatType: 'dm' | 'group'
  /** senderStaffId (the organisation's stable user id), else senderId. */
  userId: string
  userName?: string
  /** Staff id of a direct-chat sender: proactive sends to that chat need it. */
  staffId?: string
  robotCode?: string
  webhook?: { url: string; expiresAt: number }
  receivedAt?: number
}

export type ParseResult = { ok: true; message: InboundRobotMessage } | { ok: false; reason: string }

export interface ParseOptions {
  /** Group messages must @-mention the robot (default true). */
  requireMention: boolean
  /** The robot's display name: a left-over `@<name>` is removed from group messages. */
  robotName?: string
}

/** Rich text: its text parts in order (they carry their own spacing), pictures as `[image]`. */
export function richTextOf(parts: NonNullable<RobotMessage['content']>['richText']): string {
  if (!Array.isArray(parts)) return ''
  let out = ''
  for (const part of parts) {
    if (!part || typeof part !== 'object') continue
    if (typeof part.text === 'string') out += part.text
    else if (part.type === 'picture' || part.downloadCode || part.pictureDownloadCode) out += `${out && !/\s$/.test(out) ? ' ' : ''}[image] `
  }
  return out
}

const SUPPORTED_TYPES = new Set(['text', 'richText', 'audio'])

function textOf(message: RobotMessage): string | undefined {
  switch (message.msgtype) {
    case 'text':
      return typeof message.text?.content === 'string' ? message.text.content : undefined
    case 'richText':
      return richTextOf(message.content?.richText)
    case 'audio':
      // DingTalk transcribes voice messages itself; the transcript is the message.
      return typeof message.content?.recognition === 'string' ? message.content.recognition : undefined
    default:
      return undefined
  }
}

/** Whether a group message addresses the robot: its flag, else the robot among the @-mentioned users. */
export function mentionsRobot(message: RobotMessage): boolean {
  if (typeof message.isInAtList === 'boolean') return message.isInAtList
  if (Array.isArray(message.atUsers)) return message.atUsers.some((u) => u?.dingtalkId !== undefined && u.dingtalkId === message.chatbotUserId)
  // Neither field: DingTalk pushes group messages to a robot only when it is mentioned.
  return true
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * DingTalk removes the robot's own mention from the text it delivers (leaving its space); when the
 * robot's name is configured, an `@<name>` still present (typed by hand, pasted) is removed too.
 * Other mentions, e-mail addresses and the like are left alone.
 */
export function stripMention(text: string, robotName?: string): string {
  let out = text
  const name = robotName?.trim()
  if (name) out = out.replace(new RegExp(`(^|\\s)@${escapeRegExp(name)}(?=\\s|$)`, 'gu'), '$1')
  return out.replace(/[ \t]{2,}/g, ' ').trim()
}

export function parseRobotMessage(message: RobotMessage, options: ParseOptions): ParseResult {
  if (!message || typeof message !== 'object') return { ok: false, reason: 'not a robot message' }
  const msgId = typeof message.msgId === 'string' && message.msgId ? message.msgId : undefined
  if (!msgId) return { ok: false, reason: 'no msgId' }
  const userId = message.senderStaffId || message.senderId
  if (!userId) return { ok: false, reason: 'no sender id' }
  const group = message.conversationType === '2'
  const chatId = message.conversationId || (group ? undefined : message.senderId)
  if (!chatId) return { ok: false, reason: 'no conversation id' }
  if (group && options.requireMention && !mentionsRobot(message)) return { ok: false, reason: 'a group message that does not mention the robot' }
  if (!SUPPORTED_TYPES.has(message.msgtype ?? '')) return { ok: false, reason: `unsupported message type "${message.msgtype ?? '?'}"` }
  const raw = textOf(message) ?? ''
  const text = group ? stripMention(raw, options.robotName) : raw.trim()
  if (!text) return { ok: false, reason: 'empty text' }
  const expiresAt = Number(message.sessionWebhookExpiredTime)
  return {
    ok: true,
    message: {
      msgId,
      text,
      chatId,
      chatType: group ? 'group' : 'dm',
      userId,
      ...(message.senderNick ? { userName: message.senderNick } : {}),
      ...(!group && message.senderStaffId ? { staffId: message.senderStaffId } : {}),
      ...(message.robotCode ? { robotCode: message.robotCode } : {}),
      ...(typeof message.sessionWebhook === 'string' && message.sessionWebhook ? { webhook: { url: message.sessionWebhook, expiresAt: Number.isFinite(expiresAt) && expiresAt > 0 ? expiresAt : 0 } } : {}),
      ...(typeof message.createAt === 'number' ? { receivedAt: message.createAt } : {}),
    },
  }
}

/** Message ids seen within a window (DingTalk redelivers unacknowledged or retried callbacks). Bounded. */
export class SeenMessages {
  private readonly seen = new Map<string, number>()

  constructor(
    private readonly windowMs = 5 * 60_000,
    private readonly capacity = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** true when `id` was already seen within the window; records it otherwise. */
  check(id: string): boolean {
    const now = this.now()
    // Insertion order is arrival order: expired entries are at the front.
    for (const [key, at] of this.seen) {
      if (now - at < this.windowMs && this.seen.size < this.capacity) break
      this.seen.delete(key)
    }
    if (this.seen.has(id)) return true
    this.seen.set(id, now)
    return false
  }

  get size(): number {
    return this.seen.size
  }
}
