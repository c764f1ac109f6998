// The `sessions` service (sessions and messages in state.db, titles, lineage, FTS search) and the
// `agent sessions` command. Nothing is opened in setup: the schema is migrated on first use.

import { DATABASE_SERVICE, defineExtension, SESSIONS_SERVICE, type DatabaseService, type SessionStore } from 'agent/sdk'
import { sessionsCli } from './cli.ts'
import { SqliteSessionStore } from './store.ts'

export default defineExtension({
  name: 'sessions',
  version: '1.0.0',
  description: 'Stored sessions and messages with full-text search',
  dependsOn: ['state-db'],
  setup(api) {
    const store = new SqliteSessionStore(() => api.services.require<DatabaseService>(DATABASE_SERVICE))
    api.services.provide<SessionStore>(SESSIONS_SERVICE, store)
    api.commands.register({
      name: 'sessions',
      category: 'Sessions',
      description: 'List, rename, search and show stored sessions',
      cli: { subcommands: sessionsCli(() => api.services.require<SessionStore>(SESSIONS_SERVICE)) },
    })
  },
})
