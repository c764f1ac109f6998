// Per-route rate limiting, counting only signed requests: in memory on SQLite (one gateway per
// home: a sliding window of one minute), shared on PostgreSQL by every instance (limits-pg.ts: a
// counter per route and window). Seen deliveries are kept in the database: ledger.ts.

export interface RateLimit {
  /** Records a hit; resolves with 0 when allowed, else the seconds until a slot frees up. */
  take(key: string, limit: number): Promise<number>
}

export class RateLimiter implements RateLimit {
  private readonly hits = new Map<string, number[]>()

  constructor(private readonly windowMs = 60_000) {}

  async take(key: string, limit: number, now = Date.now()): Promise<number> {
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
