// The extension watcher's lifecycle in one kernel. Its set-up takes turns of the event loop
// (chokidar scans the folders), and a stop meanwhile must still close it, or its file watches keep
// the process alive after the gateway says it stopped: stop() awaits a set-up under way, and a
// set-up that a stop overtook closes what it opened. Concurrent starts share one set-up.

export class ExtensionWatching {
  #close: (() => Promise<void>) | undefined
  #setup: Promise<void> | undefined
  #stops = 0
  #stopping = false

  /** `open` sets the watcher up and returns its close; `opened` runs once a watcher is kept. */
  constructor(
    private readonly open: () => Promise<() => Promise<void>>,
    private readonly opened: () => void,
  ) {}

  /** A watcher is running. */
  get running(): boolean {
    return this.#close !== undefined
  }

  /** How many stops there were: a caller that awaited something meanwhile sees whether one came. */
  get stops(): number {
    return this.#stops
  }

  /** Sets the watcher up (once; a failed set-up may be tried again). Nothing while a stop is under way. */
  start(): Promise<void> {
    if (this.#stopping) return Promise.resolve()
    const stops = this.#stops
    this.#setup ??= (async () => {
      const close = await this.open()
      if (stops !== this.#stops) return close()
      this.#close = close
      this.opened()
    })().catch((error: unknown) => {
      this.#setup = undefined
      throw error
    })
    return this.#setup
  }

  /** Closes the watcher, also one still being set up. */
  async stop(): Promise<void> {
    this.#stops++
    this.#stopping = true
    try {
      await this.#setup?.catch(() => undefined)
      this.#setup = undefined
      await this.#close?.()
      this.#close = undefined
    } finally {
      this.#stopping = false
    }
  }
}
