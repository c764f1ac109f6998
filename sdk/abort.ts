// A signal that follows other signals for a bounded time (a run, a provider call), released by
// dispose(). Use it instead of AbortSignal.any with a long-lived source: on Node 20 a composite
// signal that has an abort listener (fetch clients add one and never remove it) is kept in a
// process-wide set until it aborts, and the source keeps a WeakRef per composite, so every call
// leaked its signal, listener and client controller (measured: ~10 KB a provider call).

export interface LinkedAbort {
  /** Aborted when any source aborts (with that source's reason) or abort() is called. */
  readonly signal: AbortSignal
  abort(reason?: unknown): void
  /** Stops following the sources. Call it when the work ends, success or not. */
  dispose(): void
}

interface Fan {
  followers: Set<() => void>
  listener: () => void
}

// One listener per source signal, shared by every link following it: a signal many concurrent runs
// follow (the runtime's own, a scheduler's) would otherwise pass Node's listener-leak warning.
// Keyed weakly by the signal; an entry goes away with its last follower.
const fans = new WeakMap<AbortSignal, Fan>()

function follow(source: AbortSignal, onAbort: () => void): () => void {
  let fan = fans.get(source)
  if (!fan) {
    const followers = new Set<() => void>()
    const listener = () => {
      fans.delete(source)
      for (const f of [...followers]) f()
    }
    fan = { followers, listener }
    fans.set(source, fan)
    source.addEventListener('abort', listener, { once: true })
  }
  const { followers, listener } = fan
  followers.add(onAbort)
  return () => {
    if (!followers.delete(onAbort) || followers.size > 0) return
    source.removeEventListener('abort', listener)
    if (fans.get(source)?.followers === followers) fans.delete(source)
  }
}

export function linkAbort(...sources: ReadonlyArray<AbortSignal | undefined>): LinkedAbort {
  const controller = new AbortController()
  const releases: Array<() => void> = []
  const dispose = () => {
    for (const release of releases) release()
    releases.length = 0
  }
  const abort = (reason: unknown) => {
    dispose()
    if (!controller.signal.aborted) controller.abort(reason)
  }
  for (const source of sources) {
    if (!source) continue
    if (source.aborted) {
      abort(source.reason)
      break
    }
    releases.push(follow(source, () => abort(source.reason)))
  }
  return { signal: controller.signal, abort, dispose }
}

/**
 * linkAbort plus a deadline: aborted with a `TimeoutError` (like AbortSignal.timeout) after `ms`.
 * Use it instead of `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 nothing keeps
 * that inner timeout signal alive, and when it is garbage-collected its timer is cleared, so the
 * deadline may never fire. Here the timer is held until dispose().
 */
export function linkAbortWithTimeout(ms: number, ...sources: ReadonlyArray<AbortSignal | undefined>): LinkedAbort {
  const link = linkAbort(...sources)
  const timer = setTimeout(() => link.abort(new DOMException(`The operation timed out after ${ms} ms`, 'TimeoutError')), ms)
  return {
    signal: link.signal,
    abort: link.abort,
    dispose() {
      clearTimeout(timer)
      link.dispose()
    },
  }
}
