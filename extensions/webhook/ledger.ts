// Seen webhook deliveries, kept in state.db (table webhook_deliveries) for the replay window of one
// hour, so a restart forgets nothing. A delivery is a duplicate when its signed key (a hash of what
// the signature covers) or the delivery id its sender claimed was seen on the same route within the
// window. Check and record happen in one transaction: two copies racing cannot both pass.

import type BetterSqlite3 from 'better-sqlite3'
import { AgentError, type DatabaseService, type Migration, type SqliteDatabase } from 'agent/sdk'

export const REPLAY_WINDOW_MS = 60 * 60_000
/** Expired rows are deleted at most this often (on a claim), not on every request. */
const PRUNE_EVERY_MS = 60_000

const MIGRATIONS: readonly Migration[] = [
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
type Statement = BetterSqlite3.Statement

interface Prepared {
  db: SqliteDatabase
  prune: Statement
  findKey: Statement
  findHeader: Statement
  insert: Statement
  settle: Statement
}

export class DeliveryLedger {
  #prepared: Prepared | undefined
  #prunedAt = 0

  constructor(
    private readonly database: () => DatabaseService | undefined,
    private readonly windowMs = REPLAY_WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  #service(): DatabaseService {
    const service = this.database()
    if (!service) throw new AgentError('E_DEPENDENCY', 'replay protection needs state.db (the state-db extension is not loaded)')
    service.migrate('webhook', MIGRATIONS)
    return service
  }

  /** Statements for the handle a write runs on, prepared once per handle (a reloaded state-db hands out a new one). */
  #stmts(db: SqliteDatabase): Prepared {
    if (this.#prepared?.db === db) return this.#prepared
    this.#prepared = {
      db,
      prune: db.prepare('DELETE FROM webhook_deliveries WHERE seen_at <= ?'),
      // Two lookups, each on its own index (one query with OR scanned the whole route).
      findKey: db.prepare('SELECT delivery_id FROM webhook_deliveries WHERE route = ? AND signed_key = ? AND seen_at > ?'),
      findHeader: db.prepare('SELECT delivery_id FROM webhook_deliveries WHERE route = ? AND header_id = ? AND seen_at > ? LIMIT 1'),
      // OR REPLACE: an expired row not yet pruned may still hold the key.
      insert: db.prepare("INSERT OR REPLACE INTO webhook_deliveries (route, signed_key, header_id, delivery_id, seen_at, status) VALUES (?, ?, ?, ?, ?, 'accepted')"),
      settle: db.prepare('UPDATE webhook_deliveries SET status = ? WHERE route = ? AND signed_key = ?'),
    }
    return this.#prepared
  }

  /**
   * Records the delivery unless it was seen in the window; rejects when state.db cannot be used.
   * Runs in the database's group commit (one IMMEDIATE transaction shared by the writes of this turn
   * of the event loop, in order), so copies arriving together are told apart, and it resolves only
   * once the record is committed: an accepted delivery is on disk before its 202.
   */
  async claim(c: Claim): Promise<ClaimResult> {
    const now = this.now()
    return this.#service().write((db): ClaimResult => {
      const p = this.#stmts(db)
      if (now - this.#prunedAt >= PRUNE_EVERY_MS) {
        p.prune.run(now - this.windowMs)
        this.#prunedAt = now
      }
      const since = now - this.windowMs
      const seen = (p.findKey.get(c.route, c.signedKey, since) ?? (c.headerId ? p.findHeader.get(c.route, c.headerId, since) : undefined)) as { delivery_id: string } | undefined
      if (seen) return { duplicate: true, deliveryId: seen.delivery_id }
      p.insert.run(c.route, c.signedKey, c.headerId ?? null, c.deliveryId, now)
      return { duplicate: false }
    })
  }

  /** Marks how an accepted delivery ended (written in the next group commit). */
  async settle(route: string, signedKey: string, status: DeliveryStatus): Promise<void> {
    await this.#service().write((db) => this.#stmts(db).settle.run(status, route, signedKey))
  }
}
