// Which session each chat continues (one session per chat), kept in state.db when it is available
// (so a restarted gateway picks the conversation up again) and in memory otherwise; and the session
// reset policy: idle for 24 h, or past the daily hour (4 by default; null means default, 0 is valid).

import type { DatabaseService } from 'agent/sdk'
import { MIGRATIONS } from './continuity-store.ts'

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


export class RoutingStore {
  private readonly memory = new Map<string, Route>()

  constructor(private readonly database: () => DatabaseService | undefined) {}

  private db() {
    const service = this.database()
    if (!service) return undefined
    service.migrate('gateway', MIGRATIONS)
    return service.db()
  }

  get(key: string): Route | undefined {
    const db = this.db()
    if (!db) return this.memory.get(key)
    const row = db.prepare('SELECT session_id, last_activity FROM gateway_routing WHERE session_key = ?').get(key) as { session_id: string; last_activity: number } | undefined
    return row ? { sessionId: row.session_id, lastActivity: row.last_activity } : undefined
  }

  set(key: string, route: Route): void {
    const db = this.db()
    if (!db) return void this.memory.set(key, route)
    db.prepare('INSERT OR REPLACE INTO gateway_routing (session_key, session_id, last_activity) VALUES (?, ?, ?)').run(key, route.sessionId, route.lastActivity)
  }

  delete(key: string): void {
    const db = this.db()
    if (!db) return void this.memory.delete(key)
    db.prepare('DELETE FROM gateway_routing WHERE session_key = ?').run(key)
  }
}
