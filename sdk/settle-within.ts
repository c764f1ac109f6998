// Shutdown waits that cannot hang: a library's close or destroy may never settle (a half-open
// socket), and an adapter's stop() must still finish. The timer is cleared either way, so nothing
// keeps the process alive.

/** Waits for `promise` to settle (resolved or rejected: both end the wait), at most `ms`; never rejects. */
export function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    promise.then(() => undefined, () => undefined),
    new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer))
}
