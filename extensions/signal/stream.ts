// The daemon's event stream, `GET /api/v1/events` (server-sent events, parsed by eventsource-parser),
// kept open: on a drop it reconnects with exponential backoff and jitter, resuming after the last
// event id it saw (signal-cli replays kept events after a Last-Event-ID); when the stream has been
// silent past a limit, the daemon is checked, and a failing check forces a reconnect. Events are
// handed over one at a time, in order.

import { setTimeout as sleep } from 'node:timers/promises'
import { backoffDelay, errorMessage, linkAbort, redactPhonesIn, type Logger } from 'agent/sdk'
import { createParser } from 'eventsource-parser'
import { checkDaemon } from './rpc.ts'
import type { Daemon } from './settings.ts'

export interface StreamOptions {
  daemon: Daemon
  log: Logger
  /** Called for each event's data (parsed JSON) and id, in order; a throw is logged, the stream goes on. */
  onEvent(data: unknown, id: string | undefined): Promise<void>
  /** Where to resume on the first connection (the last event id handled before a restart). */
  lastEventId?: string
  /** Called after each reconnect (not the first connection). */
  onReconnect?(): void
  initialDelayMs: number
  maxDelayMs: number
  staleAfterMs: number
  /** Aborted: the stream closes and run() settles. */
  signal: AbortSignal
}

export interface EventStream {
  /** Settles after the first connection attempt: resolves when connected, rejects when it failed. */
  connected: Promise<void>
  /** Settles when the stream has stopped (after the signal aborted). */
  done: Promise<void>
}

export function openEventStream(options: StreamOptions): EventStream {
  const { daemon, log, signal } = options
  const url = `${daemon.url}/api/v1/events?account=${encodeURIComponent(daemon.account)}`
  let lastEventId = options.lastEventId
  let settleFirst: { resolve(): void; reject(error: unknown): void } | undefined
  const connected = new Promise<void>((resolve, reject) => (settleFirst = { resolve, reject }))
  connected.catch(() => undefined)

  async function once(): Promise<boolean> {
    const attempt = linkAbort(signal)
    let lastActivity = Date.now()
    let received = false
    const touch = () => {
      lastActivity = Date.now()
      received = true
    }
    let checking = false
    const watchdog = setInterval(() => {
      if (checking || Date.now() - lastActivity < options.staleAfterMs) return
      checking = true
      checkDaemon(daemon, { signal: attempt.signal, timeoutMs: Math.min(10_000, options.staleAfterMs) }).then(
        () => {
          lastActivity = Date.now()
          log.debug(`the Signal event stream is quiet for ${options.staleAfterMs / 1000} s; the daemon answers its check`)
        },
        (error: unknown) => {
          if (attempt.signal.aborted) return
          log.warn(`the Signal event stream is silent and the daemon fails its check (${errorMessage(error)}); reconnecting`)
          attempt.abort(new Error('stale event stream'))
        },
      ).finally(() => (checking = false))
    }, Math.max(50, Math.min(options.staleAfterMs / 4, 15_000)))
    let queue = Promise.resolve()
    const parser = createParser({
      onEvent(event) {
        touch()
        if (event.id) lastEventId = event.id
        let data: unknown
        try {
          data = JSON.parse(event.data)
        } catch {
          return log.debug(`ignored a Signal event that is not JSON (${event.data.length} characters)`)
        }
        const id = event.id
        queue = queue.then(() => options.onEvent(data, id)).catch((error: unknown) => log.error(`a Signal event failed: ${redactPhonesIn(errorMessage(error))}`))
      },
      onComment: touch,
    })
    try {
      const response = await fetch(url, { headers: { accept: 'text/event-stream', ...(lastEventId ? { 'last-event-id': lastEventId } : {}) }, signal: attempt.signal })
      if (!response.ok || !response.body) {
        await response.arrayBuffer().catch(() => undefined)
        throw new Error(`HTTP ${response.status} on /api/v1/events`)
      }
      const first = settleFirst !== undefined
      settleFirst?.resolve()
      settleFirst = undefined
      log.info(first ? `event stream connected to ${daemon.url}` : `event stream reconnected to ${daemon.url}${lastEventId ? ` (resuming after event ${lastEventId})` : ''}`)
      if (!first) options.onReconnect?.()
      const decoder = new TextDecoder()
      for await (const chunk of response.body) parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
      throw new Error('the daemon closed the event stream')
    } catch (error) {
      if (signal.aborted) return received
      const reason = attempt.signal.aborted ? errorMessage(attempt.signal.reason) : errorMessage(error)
      if (settleFirst) {
        settleFirst.reject(new Error(`cannot open the signal-cli event stream at ${daemon.url}: ${redactPhonesIn(reason)}`))
        settleFirst = undefined
        throw error
      }
      log.warn(`the Signal event stream dropped (${redactPhonesIn(reason)})`)
      return received
    } finally {
      clearInterval(watchdog)
      attempt.abort(new Error('stream closed'))
      attempt.dispose()
      await queue
    }
  }

  async function run(): Promise<void> {
    let failures = 0
    while (!signal.aborted) {
      const healthy = await once()
      if (signal.aborted) break
      // A connection that delivered something was healthy: the backoff starts over.
      if (healthy) failures = 0
      const delay = backoffDelay(failures, { baseDelayMs: options.initialDelayMs, maxDelayMs: options.maxDelayMs })
      failures++
      log.info(`reconnecting the Signal event stream in ${(delay / 1000).toFixed(1)} s`)
      await sleep(delay, undefined, { signal }).catch(() => undefined)
    }
  }

  const done = run().catch(() => undefined)
  return { connected, done }
}
