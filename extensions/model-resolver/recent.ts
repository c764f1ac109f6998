// Model clients built in the last moments, reused. Every agent run resolves its client; on a busy
// API server the plan (settings, environment) and the provider's own client lookup cost about 2 % of
// a request's CPU, for the same answer each time. The key carries the settings' revision, so a
// changed config or .env is used at once; REUSE_MS bounds what the key cannot see (a provider
// reloaded). A build that failed is not kept (the next run tries again and reports its own error).

export const REUSE_MS = 250
const KEPT = 32

interface Entry<T> {
  at: number
  value: Promise<T>
}

export class RecentBuilds<T> {
  readonly #entries = new Map<string, Entry<T>>()

  /** `build()`'s promise for `key`, shared with calls within REUSE_MS of the first. */
  get(key: string, build: () => Promise<T>): Promise<T> {
    const now = Date.now()
    const hit = this.#entries.get(key)
    if (hit && now - hit.at < REUSE_MS) return hit.value
    const value = build()
    const entry = { at: now, value }
    this.#entries.delete(key)
    this.#entries.set(key, entry)
    if (this.#entries.size > KEPT) this.#entries.delete(this.#entries.keys().next().value!)
    value.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key)
    })
    return value
  }

  clear(): void {
    this.#entries.clear()
  }
}
