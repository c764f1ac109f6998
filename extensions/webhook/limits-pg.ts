// Rate limits shared by every gateway instance on PostgreSQL: one counter per route and fixed window
// (a minute), taken with one atomic upsert, so two instances together let through at most the
// route's limit per window. Refused hits are not counted (the counter stops one past the limit).

import type { PostgresService } from 'agent/sdk'
import { migratedPostgres } from './ledger-pg.ts'
import type { RateLimit } from './limits.ts'

export class PgRateLimiter implements RateLimit {
  readonly #pg: () => Promise<PostgresService>

  constructor(
    postgres: () => PostgresService,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {
    this.#pg = migratedPostgres(postgres)
  }

  async take(key: string, limit: number): Promise<number> {
    const now = this.now()
    const window = Math.floor(now / this.windowMs) * this.windowMs
    const [row] = await (await this.#pg()).query<{ hits: number }>(
      `INSERT INTO webhook_rate_limits (key, window_start, hits) VALUES ($1, $2, 1)
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN webhook_rate_limits.window_start >= EXCLUDED.window_start THEN LEAST(webhook_rate_limits.hits + 1, $3 + 1) ELSE 1 END,
         window_start = GREATEST(webhook_rate_limits.window_start, EXCLUDED.window_start)
       RETURNING hits`,
      [key, window, limit],
    )
    if (Number(row!.hits) <= limit) return 0
    return Math.max(1, Math.ceil((window + this.windowMs - now) / 1000))
  }
}
