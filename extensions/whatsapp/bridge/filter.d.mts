// Types of filter.mjs for the TypeScript side (adapter and tests).

export type Mode = 'self-chat' | 'bot'
export interface Me { id?: string; lid?: string }
export interface Incoming {
  id: string
  chatId: string
  chatType: 'dm' | 'group'
  senderId: string
  senderAliases: string[]
  senderName?: string
  fromMe: boolean
  selfChat: boolean
  text: string
  timestamp: number
}
export interface FilterContext { mode: Mode; prefix: string; me: Me; sent: SentIds }
export declare function normaliseJid(jid: unknown): string | undefined
export declare function isGroupJid(jid: unknown): boolean
export declare function isLidJid(jid: unknown): boolean
export declare function isPhoneJid(jid: unknown): boolean
export declare function isBroadcastJid(jid: unknown): boolean
export declare function stableId(jid: unknown): string | undefined
export declare function resolveReplyPrefix(raw: string | undefined | null, agentName?: string): string
export declare function unwrap(message: unknown): any
export declare function textOf(message: unknown): { text: string; media: string[] }
export declare class SentIds {
  constructor(capacity?: number)
  remember(id: string | undefined | null): void
  has(id: string | undefined | null): boolean
  readonly size: number
}
export declare function isOwnChat(jid: unknown, me: Me | undefined): boolean
export declare function outgoingText(text: string, chatId: string, ctx: { mode: Mode; prefix: string; me: Me }): string
export declare function readIncoming(raw: unknown, ctx: FilterContext): { ok: true; message: Incoming } | { ok: false; reason: string }
export declare function mediaOf(message: unknown): { kind: string; mimetype?: string; fileName?: string; size?: number } | undefined
export declare function mediaFileName(id: string, mimetype?: string): string
