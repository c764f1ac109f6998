// A test's clean-up in the reverse order of its set-up, as `defer` has it. node:test runs a test's
// after-hooks in the order they were added: a home removed by the first hook is gone while the
// kernel or the gateway process started after it is still stopping, and writing into it.

import type { TestContext } from 'node:test'

/** Returns `defer(fn)`: each fn runs when the test ends, the last deferred first; all run even if one fails (the first failure is then thrown). */
export function deferrals(t: Pick<TestContext, 'after'>): (fn: () => unknown) => void {
  const stack: Array<() => unknown> = []
  t.after(async () => {
    let failure: { error: unknown } | undefined
    for (const fn of stack.splice(0).reverse()) {
      try {
        await fn()
      } catch (error) {
        failure ??= { error }
      }
    }
    if (failure) throw failure.error
  })
  return (fn) => void stack.push(fn)
}
