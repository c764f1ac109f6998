// The `database` service: one SQLite file, <agent_home>/state.db, shared by the extensions that keep
// state (sessions, stored API responses, pairing, cron). Opened on first use, closed on unload.

import { join } from 'node:path'
import { AgentError, DATABASE_SERVICE, defineExtension, type DatabaseService, type Migration, type SqliteDatabase } from 'agent/sdk'
import { GroupCommit } from './group-commit.ts'
import { applyMigrations } from './migrate.ts'
import { openDatabase, type SynchronousLevel } from './open.ts'

interface StateDbConfig {
  synchronous: SynchronousLevel
  busy_timeout_ms: number
}

export default defineExtension<StateDbConfig>({
  name: 'state-db',
  version: '1.0.0',
  description: 'The shared SQLite database <agent_home>/state.db (WAL)',
  configKey: 'state_db',
  config: {
    type: 'object',
    properties: {
      // normal: a killed process loses nothing acknowledged (WAL); full also survives a power cut, at an fsync per commit.
      synchronous: { enum: ['full', 'normal'], default: 'normal' },
      busy_timeout_ms: { type: 'integer', minimum: 0, default: 5000 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const path = join(api.settings.home, 'state.db')
    let handle: SqliteDatabase | undefined
    let closed = false
    // owner → highest version known applied in this process: later migrate() calls are free.
    const migrated = new Map<string, number>()

    const open = (): SqliteDatabase => {
      if (closed) throw new AgentError('E_STATE', 'state.db is closed (the agent is shutting down)')
      handle ??= openDatabase({ path, synchronous: api.config.synchronous, busyTimeoutMs: api.config.busy_timeout_ms })
      return handle
    }
    const group = new GroupCommit(open)
    const db = (): SqliteDatabase => {
      // Read-your-writes: whatever was queued lands before anyone looks.
      if (group.pending > 0) group.flush()
      return open()
    }

    const service: DatabaseService = {
      path,
      db,
      write: (write) => group.write(write),
      migrate(owner: string, migrations: readonly Migration[]) {
        const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0)
        if ((migrated.get(owner) ?? -1) >= latest) return
        const applied = applyMigrations(db(), owner, migrations)
        if (applied.length > 0) api.log.debug(`applied migrations of ${owner}: ${applied.join(', ')}`)
        migrated.set(owner, latest)
      },
    }
    api.services.provide<DatabaseService>(DATABASE_SERVICE, service)

    api.onDispose(() => {
      // Writes still queued are committed before the handle closes: nothing requested is lost.
      if (group.pending > 0) group.flush()
      closed = true
      if (handle?.open) handle.close()
      handle = undefined
    })
  },
})
