// The adapter's side of the bridge protocol: JSON over loopback HTTP with the per-start bearer
// token. Every call is bounded; a failure is one line without the token.

import { AgentError, errorMessage, linkAbortWithTimeout } from 'agent/sdk'
import type { Incoming as BridgeMessage } from './bridge/filter.mjs'

/** One message of the receive queue, as the bridge's filter produced it. */
export type { Incoming as BridgeMessage } from './bridge/filter.mjs'

export interface BridgeHealth {
  status: 'open' | 'connecting' | 'needs_pairing' | 'logged_out' | string
  mode?: string
  me?: { id: string; lid?: string } | null
  queued?: number
}

export class BridgeClient {
  constructor(
    readonly port: number,
    private readonly token: string,
  ) {}

  /** One request of the protocol (the methods below, and any route a bridge adds). */
  async request<T>(method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number, signal?: AbortSignal): Promise<T> {
    const link = linkAbortWithTimeout(timeoutMs, signal)
    try {
      const response = await fetch(`http://127.0.0.1:${this.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: link.signal,
      })
      const text = await response.text()
      const parsed = text ? (JSON.parse(text) as T & { error?: string }) : ({} as T & { error?: string })
      if (!response.ok) throw new AgentError('E_UNAVAILABLE', `the WhatsApp bridge answered ${response.status} to ${path}${parsed.error ? `: ${parsed.error}` : ''}`)
      return parsed
    } catch (error) {
      if (AgentError.isInstance(error)) throw error
      throw new AgentError('E_UNAVAILABLE', `the WhatsApp bridge did not answer ${path}: ${errorMessage(error)}`, { cause: error })
    } finally {
      link.dispose()
    }
  }

  health(timeoutMs = 5000): Promise<BridgeHealth> {
    return this.request('GET', '/health', undefined, timeoutMs)
  }
  async poll(waitMs: number, signal: AbortSignal): Promise<BridgeMessage[]> {
    return (await this.request<{ messages?: BridgeMessage[] }>('GET', `/messages?timeout_ms=${waitMs}`, undefined, waitMs + 10_000, signal)).messages ?? []
  }
  send(chatId: string, text: string): Promise<{ id?: string }> {
    return this.request('POST', '/send', { chatId, text }, 60_000)
  }
  typing(chatId: string, state: 'composing' | 'paused'): Promise<unknown> {
    return this.request('POST', '/typing', { chatId, state }, 10_000)
  }
  edit(chatId: string, id: string, text: string): Promise<unknown> {
    return this.request('POST', '/edit', { chatId, id, text }, 30_000)
  }
  media(chatId: string, media: { path: string; mimetype?: string; caption?: string; fileName?: string }): Promise<{ id?: string }> {
    return this.request('POST', '/media', { chatId, ...media }, 120_000)
  }
}
