// One start at a time for a gateway adapter: the gateway may call start() again (a retry, a restart)
// while a connection is still being made, and stop() must not race a start under way. Every platform
// adapter guards its start() this way.

export interface StartOnce<C> {
  /** Starts, or joins the start under way. */
  run(ctx: C): Promise<void>
  /** Resolves when no start is under way (a failed start counts as settled). */
  settled(): Promise<void>
  /** Whether a start is under way. */
  readonly busy: boolean
}

export function startOnce<C>(start: (ctx: C) => Promise<void>): StartOnce<C> {
  let current: Promise<void> | undefined
  return {
    run(ctx) {
      current ??= start(ctx).finally(() => (current = undefined))
      return current
    },
    async settled() {
      await current?.catch(() => undefined)
    },
    get busy() {
      return current !== undefined
    },
  }
}
