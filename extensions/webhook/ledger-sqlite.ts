// The delivery ledger in state.db (one gateway per home). Check and record happen in one write of
// the group commit (one IMMEDIATE transaction, in order): two copies racing cannot both pass.

import type BetterSqlite3 from 'better-sqlite3'
import { AgentError, type DatabaseService, type SqliteDatabase } from 'agent/sdk'
import { MIGRATIONS, PRUNE_EVERY_MS, REPLAY_WINDOW_MS, type Claim, type ClaimResult, type DeliveryLedger, type DeliveryStatus } from './ledger.ts'

type Statement = BetterSqlite3.Statement

interface Prepared {
  db: SqliteDatabase
  prune: Statement
  findKey: Statement
  findHeader: Statement
  insert: Statement
  settle: Statement
}

export class SqliteDeliveryLedger implements DeliveryLedger {
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
