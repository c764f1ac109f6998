// Polling with a bound: the tests' one way to wait for something that happens elsewhere (another
// process, a socket, a timer) without a fixed sleep.

import { setTimeout as sleep } from 'node:timers/promises'

/** Polls `check` every 20 ms; `what` (a function: evaluated on failure) names what was awaited. */
export async function until(check: () => boolean, ms = 10_000, what: string | (() => string) = 'a condition'): Promise<void> {
  const end = Date.now() + ms
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`)
    await sleep(20)
  }
}

/** Polls `probe` (which may answer a promise) every 50 ms until it returns a value (truthy), and resolves with that value. */
export async function untilValue<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const value = await probe()
    if (value) return value
    await sleep(50)
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Polls `check` every 20 ms for up to `ms`; resolves whether it held (the loopback fakes' `until`). */
export async function pollUntil(check: () => boolean, ms = 10_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await sleep(20)
  }
  return check()
}

/** Whether a process with this pid exists (signal 0 checks without sending anything): to wait for one to end. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
