// Types of server.mjs for the TypeScript side (tests).

import type { IncomingMessage } from 'node:http'
export declare class MessageQueue {
  constructor(log?: (line: string) => void)
  items: unknown[]
  push(message: unknown): void
  take(max: number, timeoutMs: number, signal?: AbortSignal): Promise<unknown[]>
  readonly size: number
}
export interface BridgeHandlers {
  health(): Promise<Record<string, unknown>> | Record<string, unknown>
  send(chatId: string, text: string): Promise<{ id: string }>
  typing(chatId: string, state: 'composing' | 'paused'): Promise<void>
  edit(chatId: string, id: string, text: string): Promise<void>
  media(chatId: string, media: { path: string; mimetype?: string; caption?: string; fileName?: string }): Promise<{ id: string }>
}
export declare function startBridgeServer(options: {
  token: string
  handlers: BridgeHandlers
  queue: MessageQueue
  routes?: Record<string, (body: any, req: IncomingMessage) => unknown>
  log?: (line: string) => void
}): Promise<{ port: number; close(): Promise<void> }>
