// Which session each chat continues (one session per chat), kept where `storage` says (state.db, or
// PostgreSQL shared by several gateways: routing-pg.ts), in memory when state.db is not loaded, so a
// restarted gateway, or another instance, picks the conversation up again; and the session reset
// policy: idle for 24 h, or past the daily hour (4 by default; null means default, 0 is valid).

import { STORAGE_SERVICE, type DatabaseService, type Services, type StorageService } from 'agent/sdk'
import { MIGRATIONS } from './continuity-store.ts'
import { PgRoutingStore, ROUTING_PG_MIGRATIONS, ROUTING_PG_OWNER } from './routing-pg.ts'

export interface ResetPolicy {
  mode: 'both' | 'idle' | 'daily' | 'none'
  atHour: number
  idleMinutes: number
}

export interface ResetPolicyConfig {
  mode?: ResetPolicy['mode']
  at_hour?: number | null
  idle_minutes?: number | null
}

export function resetPolicy(config: ResetPolicyConfig = {}): ResetPolicy {
  return { mode: config.mode ?? 'both', atHour: config.at_hour ?? 4, idleMinutes: config.idle_minutes ?? 1440 }
}

/** Why a chat's session should start afresh before a message at `now`, or undefined to continue it. */
export function resetReason(policy: ResetPolicy, lastActivity: number, now: number): 'idle' | 'daily' | undefined {
  if (policy.mode === 'none') return undefined
  if ((policy.mode === 'both' || policy.mode === 'idle') && now - lastActivity > policy.idleMinutes * 60_000) return 'idle'
  if (policy.mode === 'both' || policy.mode === 'daily') {
    const boundary = new Date(now)
    boundary.setHours(policy.atHour, 0, 0, 0)
    if (boundary.getTime() > now) boundary.setDate(boundary.getDate() - 1)
    if (lastActivity < boundary.getTime()) return 'daily'
  }
  return undefined
}

export interface Route {
  sessionId: string
  lastActivity: number
}

/** A chat's route by its session key (gatewaySessionKey); each call is one statement. */
export interface RoutingStore {
  get(key: string): Promise<Route | undefined>
  set(key: string, route: Route): Promise<void>
  delete(key: string): Promise<void>
}

/** The table gateway_routing of state.db (owner `gateway`, continuity-store.ts), or a map without it. */
export class SqliteRoutingStore implements RoutingStore {
  private readonly memory = new Map<string, Route>()

  constructor(private readonly database: () => DatabaseService | undefined) {}

  private db() {
    const service = this.database()
    if (!service) return undefined
    service.migrate('gateway', MIGRATIONS)
    return service.db()
  }

  async get(key: string): Promise<Route | undefined> {
    const db = this.db()
    if (!db) return this.memory.get(key)
    const row = db.prepare('SELECT session_id, last_activity FROM gateway_routing WHERE session_key = ?').get(key) as { session_id: string; last_activity: number } | undefined
    return row ? { sessionId: row.session_id, lastActivity: row.last_activity } : undefined
  }

  async set(key: string, route: Route): Promise<void> {
    const db = this.db()
    if (!db) return void this.memory.set(key, route)
    db.prepare('INSERT OR REPLACE INTO gateway_routing (session_key, session_id, last_activity) VALUES (?, ?, ?)').run(key, route.sessionId, route.lastActivity)
  }

  async delete(key: string): Promise<void> {
    const db = this.db()
    if (!db) return void this.memory.delete(key)
    db.prepare('DELETE FROM gateway_routing WHERE session_key = ?').run(key)
  }
}

/**
 * Call in setup: declares the PostgreSQL schema (no I/O) and returns the store of the `storage`
 * backend, chosen at the first call.
 */
export function openRoutingStore(services: Pick<Services, 'get' | 'require'>, database: () => DatabaseService | undefined): RoutingStore {
  services.require<StorageService>(STORAGE_SERVICE).declare(ROUTING_PG_OWNER, ROUTING_PG_MIGRATIONS)
  let chosen: RoutingStore | undefined
  const store = (): RoutingStore => {
    if (chosen) return chosen
    const storage = services.require<StorageService>(STORAGE_SERVICE)
    chosen = storage.backend === 'postgres' ? new PgRoutingStore(() => storage.postgres()) : new SqliteRoutingStore(database)
    return chosen
  }
  // async: a missing storage service rejects the call rather than throwing out of it.
  return {
    get: async (key) => store().get(key),
    set: async (key, route) => store().set(key, route),
    delete: async (key) => store().delete(key),
  }
}
