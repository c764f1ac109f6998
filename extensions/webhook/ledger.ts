// Seen webhook deliveries, kept for the replay window of one hour (table webhook_deliveries), so a
// restart forgets nothing and, on PostgreSQL, a delivery sent to two gateway instances runs once. A
// delivery is a duplicate when its signed key (a hash of what the signature covers) or the delivery
// id its sender claimed was seen on the same route within the window. Check and record are one
// atomic step on either backend (ledger-sqlite.ts, ledger-pg.ts): copies racing cannot both pass.

import type { Migration, PgMigration } from 'agent/sdk'

export const REPLAY_WINDOW_MS = 60 * 60_000
/** Expired rows are deleted at most this often (on a claim), not on every request. */
export const PRUNE_EVERY_MS = 60_000

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE webhook_deliveries (
        route TEXT NOT NULL,
        signed_key TEXT NOT NULL,
        header_id TEXT,
        delivery_id TEXT NOT NULL,
        seen_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        PRIMARY KEY (route, signed_key)
      );
      CREATE INDEX webhook_deliveries_header ON webhook_deliveries (route, header_id);
      CREATE INDEX webhook_deliveries_seen ON webhook_deliveries (seen_at);
    `,
  },
]

/** The same table in PostgreSQL, and the rate-limit counters instances share there (SQLite counts in memory). */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE webhook_deliveries (
        route TEXT NOT NULL,
        signed_key TEXT NOT NULL,
        header_id TEXT,
        delivery_id TEXT NOT NULL,
        seen_at BIGINT NOT NULL,
        status TEXT NOT NULL,
        PRIMARY KEY (route, signed_key)
      );
      CREATE INDEX webhook_deliveries_header ON webhook_deliveries (route, header_id);
      CREATE INDEX webhook_deliveries_seen ON webhook_deliveries (seen_at);
    `,
  },
  {
    version: 2,
    up: `
      CREATE TABLE webhook_rate_limits (
        key TEXT PRIMARY KEY,
        window_start BIGINT NOT NULL,
        hits INTEGER NOT NULL
      );
    `,
  },
]

export interface Claim {
  route: string
  /** Hex hash of the bytes the signature covers (see signedKey). */
  signedKey: string
  /** The delivery id the sender put in a header, when it did: a retry re-signed by it is a duplicate too. */
  headerId?: string
  deliveryId: string
}

export type ClaimResult = { duplicate: false } | { duplicate: true; deliveryId: string }
export type DeliveryStatus = 'answered' | 'failed'

export interface DeliveryLedger {
  /**
   * Records the delivery unless it was seen in the window; rejects when the database cannot be
   * used. Resolves only once the record is committed: an accepted delivery is stored before its 202.
   */
  claim(c: Claim): Promise<ClaimResult>
  /** Marks how an accepted delivery ended. */
  settle(route: string, signedKey: string, status: DeliveryStatus): Promise<void>
}
