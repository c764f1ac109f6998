// Observation events (metrics, session titles, dashboards) are for afterwards: they are delivered
// once the current turn of the event loop is over, in the order they were raised, so that no
// observer's work sits between a request and its answer. Measured on the API server: the run's and
// the request's events cost about 20 µs of every answer's latency when delivered at once.
// Not in the turn right after either, but after the event loop has polled for I/O once more: the
// work that must follow an answer at once (the session's commit) runs first, and a request that
// arrived meanwhile is read before the observers run, instead of waiting for them (about 15 µs of
// the next request's latency when a client sends it as soon as it has the answer).

import type { HookHandles, ObservedEvent } from './hooks.ts'

interface Observing {
  readonly hooks: HookHandles
}

interface Pending {
  queue: Array<{ api: Observing; event: ObservedEvent }>
}

// One queue per process, whichever copy of this module raised or delivers (the kernel and the
// extensions may load the sdk through different loaders).
const pending: Pending = ((globalThis as Record<symbol, Pending | undefined>)[Symbol.for('agent.observations')] ??= { queue: [] })

/** Delivers every event raised so far, now (the kernel does before its shutdown hooks run). */
export function deliverObservations(): void {
  const batch = pending.queue
  if (batch.length === 0) return
  pending.queue = []
  // The taps of the moment of delivery (an extension reloaded meanwhile gets its new ones);
  // observers never throw into the caller (the kernel reports them).
  for (const { api, event } of batch) {
    try {
      api.hooks.observe.promise(event).catch(() => undefined)
    } catch {
      // An extension unloaded meanwhile: its events have nobody to go to.
    }
  }
}

// An immediate queued from inside an immediate runs on the loop's next iteration, after its poll.
const afterNextPoll = () => void setImmediate(deliverObservations)

/** Raises `event` (stamped `at` now unless it has a time) for the `observe` hook's taps, after this turn and the next poll for I/O. */
export function observeLater(api: Observing, event: Omit<ObservedEvent, 'at'> & { at?: number }): void {
  if (pending.queue.push({ api, event: { at: Date.now(), ...event } as ObservedEvent }) === 1) setImmediate(afterNextPoll)
}
