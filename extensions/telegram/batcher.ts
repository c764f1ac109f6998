// Text sent in quick succession becomes one turn: Telegram clients cut a long paste into several
// 4,096-character messages, and people type a thought in two or three lines. Messages of one sender
// in one chat (and topic) are held for a short window after the last one, then handed to the gateway
// as one message. A fragment near the client's cut size waits longer: its continuation is on the way.
// The poller confirms no update to Telegram from the first one held (heldFrom): a crash while
// fragments wait loses nothing, Telegram delivers them again.

import type { GatewayInbound } from 'agent/sdk'

/** A message this long was probably cut by the client: the next part follows. */
const CLIENT_CUT = 3500
const CONTINUATION_WAIT_MS = 2000

interface Pending {
  inbound: GatewayInbound
  texts: string[]
  /** The first Telegram update id held: Telegram is not told it was handled before it is delivered. */
  firstUpdate: number
  timer: NodeJS.Timeout
}

export class FragmentBatcher {
  private readonly pending = new Map<string, Pending>()

  constructor(
    private readonly windowMs: number,
    private readonly deliver: (inbound: GatewayInbound) => void,
  ) {}

  private static key(inbound: GatewayInbound): string {
    const { chatId, threadId, userId } = inbound.source
    return `${chatId}\n${threadId ?? ''}\n${userId ?? ''}`
  }

  /** Holds a text message (update `updateId`) for the window, or delivers it at once when batching is off. */
  add(inbound: GatewayInbound, updateId: number): void {
    if (this.windowMs <= 0) return this.deliver(inbound)
    const key = FragmentBatcher.key(inbound)
    const held = this.pending.get(key)
    if (held) clearTimeout(held.timer)
    const entry = held ?? { inbound, texts: [], firstUpdate: updateId, timer: undefined as unknown as NodeJS.Timeout }
    entry.texts.push(inbound.text)
    const wait = inbound.text.length >= CLIENT_CUT ? Math.max(this.windowMs, CONTINUATION_WAIT_MS) : this.windowMs
    entry.timer = setTimeout(() => this.flush(key), wait)
    entry.timer.unref?.()
    this.pending.set(key, entry)
  }

  /** The lowest update id still held (the poller confirms nothing from there on), or undefined. */
  heldFrom(): number | undefined {
    let lowest: number | undefined
    for (const entry of this.pending.values()) if (lowest === undefined || entry.firstUpdate < lowest) lowest = entry.firstUpdate
    return lowest
  }

  /** Delivers what the sender of `inbound` has pending now (before their command runs). */
  flushFor(inbound: GatewayInbound): void {
    this.flush(FragmentBatcher.key(inbound))
  }

  flushAll(): void {
    for (const key of [...this.pending.keys()]) this.flush(key)
  }

  private flush(key: string): void {
    const entry = this.pending.get(key)
    if (!entry) return
    clearTimeout(entry.timer)
    this.pending.delete(key)
    // Clients cut a paste at a line break or space and drop it: a newline is the safe joint.
    this.deliver({ ...entry.inbound, text: entry.texts.join('\n') })
  }
}
