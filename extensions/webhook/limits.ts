// Per-route rate limiting (a sliding window of one minute, counting only signed requests) and the
// idempotency memory (a delivery seen in the last hour is answered, not run again). Both bounded.

export class RateLimiter {
  private readonly hits = new Map<string, number[]>()

  constructor(private readonly windowMs = 60_000) {}

  /** Records a hit; returns 0 when allowed, else the seconds until a slot frees up. */
  take(key: string, limit: number, now = Date.now()): number {
    const list = (this.hits.get(key) ?? []).filter((t) => now - t < this.windowMs)
    if (list.length >= limit) {
      this.hits.set(key, list)
      return Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000))
    }
    list.push(now)
    this.hits.set(key, list)
    return 0
  }
}

export class SeenDeliveries {
  private readonly seen = new Map<string, number>()

  constructor(
    private readonly ttlMs = 60 * 60_000,
    private readonly capacity = 100_000,
  ) {}

  has(key: string, now = Date.now()): boolean {
    this.prune(now)
    return this.seen.has(key)
  }

  add(key: string, now = Date.now()): void {
    this.seen.delete(key)
    this.seen.set(key, now)
    while (this.seen.size > this.capacity) this.seen.delete(this.seen.keys().next().value!)
  }

  private prune(now: number): void {
    for (const [key, at] of this.seen) {
      if (now - at < this.ttlMs) break
      this.seen.delete(key)
    }
  }
}
