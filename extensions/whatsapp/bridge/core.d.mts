// Types of core.mjs for the TypeScript side (tests).

import type { Me, Mode, SentIds } from './filter.mjs'
import type { BridgeHandlers, MessageQueue } from './server.mjs'
export declare function mediaContent(data: Buffer, media: { mimetype?: string; fileName?: string }, caption?: string): Record<string, unknown>
export interface BridgeCore {
  queue: MessageQueue
  sent: SentIds
  attach(sock: { sendMessage(jid: string, content: any): Promise<any>; sendPresenceUpdate(state: string, jid: string): Promise<void> }): void
  opened(me: Me | undefined): void
  setStatus(status: string): void
  readonly status: string
  receive(messages: unknown[]): Promise<Array<{ ok: boolean; reason?: string }>>
  handlers: BridgeHandlers
}
export declare function createBridgeCore(options: { mode: Mode; prefix: string; log?: (line: string) => void; verbose?: boolean; mediaDir?: string; download?: (raw: any) => Promise<Buffer> }): BridgeCore
