// The delivery ledger in PostgreSQL, shared by every gateway instance: the same signed delivery
// sent to two of them is accepted by one and answered `duplicate` by the other. A claim runs in a
// transaction holding the advisory lock of its route, so the two look-ups (signed key, sender's
// delivery id) and the insert are one step across instances, as the SQLite write transaction is.

import type { PostgresService } from 'agent/sdk'
import { PG_MIGRATIONS, PRUNE_EVERY_MS, REPLAY_WINDOW_MS, type Claim, type ClaimResult, type DeliveryLedger, type DeliveryStatus } from './ledger.ts'

/** The pool once `webhook`'s schema is migrated. */
export function migratedPostgres(postgres: () => PostgresService): () => Promise<PostgresService> {
  return async () => {
    const pg = postgres()
    await pg.migrate('webhook', PG_MIGRATIONS)
    return pg
  }
}

export class PgDeliveryLedger implements DeliveryLedger {
  #prunedAt = 0
  readonly #pg: () => Promise<PostgresService>

  constructor(
    postgres: () => PostgresService,
    private readonly windowMs = REPLAY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.#pg = migratedPostgres(postgres)
  }

  async claim(c: Claim): Promise<ClaimResult> {
    const now = this.now()
    const since = now - this.windowMs
    const prune = now - this.#prunedAt >= PRUNE_EVERY_MS
    if (prune) this.#prunedAt = now
    const pg = await this.#pg()
    const result = await pg.locked(`webhook-ledger:${c.route}`, async (q): Promise<ClaimResult> => {
      if (prune) await q.query('DELETE FROM webhook_deliveries WHERE seen_at <= $1', [since])
      const [seen] =
        (await q.query<{ delivery_id: string }>('SELECT delivery_id FROM webhook_deliveries WHERE route = $1 AND signed_key = $2 AND seen_at > $3', [c.route, c.signedKey, since])).concat(
          c.headerId ? await q.query<{ delivery_id: string }>('SELECT delivery_id FROM webhook_deliveries WHERE route = $1 AND header_id = $2 AND seen_at > $3 LIMIT 1', [c.route, c.headerId, since]) : [],
        )
      if (seen) return { duplicate: true, deliveryId: seen.delivery_id }
      // An expired row not yet pruned may still hold the key.
      await q.query(
        `INSERT INTO webhook_deliveries (route, signed_key, header_id, delivery_id, seen_at, status) VALUES ($1, $2, $3, $4, $5, 'accepted')
         ON CONFLICT (route, signed_key) DO UPDATE SET header_id = EXCLUDED.header_id, delivery_id = EXCLUDED.delivery_id, seen_at = EXCLUDED.seen_at, status = EXCLUDED.status`,
        [c.route, c.signedKey, c.headerId ?? null, c.deliveryId, now],
      )
      return { duplicate: false }
    })
    return result!
  }

  async settle(route: string, signedKey: string, status: DeliveryStatus): Promise<void> {
    await (await this.#pg()).write((q) => q.query('UPDATE webhook_deliveries SET status = $1 WHERE route = $2 AND signed_key = $3', [status, route, signedKey]))
  }
}
