// Per-route rate limiting: a sliding window of one minute, counting only signed requests. (Seen
// deliveries are kept in state.db: ledger.ts.)

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
