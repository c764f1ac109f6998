// Chat routes in PostgreSQL, shared by every gateway on the database: the table gateway_routing as
// in state.db. Each call is one statement (an upsert, a delete), so instances never interleave a
// read and a write; setting a route after a turn goes through the group commit.

import type { PgMigration, PostgresService } from 'agent/sdk'
import type { Route, RoutingStore } from './routing.ts'

/** Its own owner: the gateway's other state.db tables (continuity-store.ts) are declared apart. */
export const ROUTING_PG_OWNER = 'gateway-routing'

export const ROUTING_PG_MIGRATIONS: PgMigration[] = [
  { version: 1, up: 'CREATE TABLE gateway_routing (session_key TEXT PRIMARY KEY, session_id TEXT NOT NULL, last_activity BIGINT NOT NULL)' },
]

export class PgRoutingStore implements RoutingStore {
  constructor(private readonly postgres: () => PostgresService) {}

  private async pg(): Promise<PostgresService> {
    const pg = this.postgres()
    await pg.migrate(ROUTING_PG_OWNER, ROUTING_PG_MIGRATIONS)
    return pg
  }

  async get(key: string): Promise<Route | undefined> {
    const [row] = await (await this.pg()).query<{ session_id: string; last_activity: string }>('SELECT session_id, last_activity FROM gateway_routing WHERE session_key = $1', [key])
    return row ? { sessionId: row.session_id, lastActivity: Number(row.last_activity) } : undefined
  }

  async set(key: string, route: Route): Promise<void> {
    await (await this.pg()).write((c) =>
      c.query(
        'INSERT INTO gateway_routing (session_key, session_id, last_activity) VALUES ($1, $2, $3) ON CONFLICT (session_key) DO UPDATE SET session_id = excluded.session_id, last_activity = excluded.last_activity',
        [key, route.sessionId, route.lastActivity],
      ),
    )
  }

  async delete(key: string): Promise<void> {
    await (await this.pg()).query('DELETE FROM gateway_routing WHERE session_key = $1', [key])
  }
}
