// The `sessions` service (sessions and messages, titles, lineage, full-text search) and the
// `agent sessions` command. The store is SQLite's (state.db) or PostgreSQL's, by the storage
// backend, picked at first use; nothing is opened in setup: the schema is migrated on first use.

import { DATABASE_SERVICE, defineExtension, knownSecretsRedactor, SESSIONS_SERVICE, STORAGE_SERVICE, type DatabaseService, type SessionStore, type StorageService } from 'agent/sdk'
import { sessionsCli } from './cli.ts'
import { PG_MIGRATIONS } from './schema-pg.ts'

const METHODS = ['create', 'get', 'resolve', 'list', 'latest', 'append', 'messages', 'setTitle', 'titleIfUntitled', 'nextTitle', 'update', 'addUsage', 'end', 'reopen', 'tip', 'search', 'delete'] as const satisfies ReadonlyArray<keyof SessionStore>
// Fails to compile when SessionStore gains a method that the lazy service below would not forward.
const complete: Exclude<keyof SessionStore, (typeof METHODS)[number]> extends never ? true : never = true
void complete

export default defineExtension({
  name: 'sessions',
  version: '1.0.0',
  description: 'Stored sessions and messages with full-text search',
  dependsOn: ['state-db', 'storage'],
  setup(api) {
    const storage = () => api.services.require<StorageService>(STORAGE_SERVICE)
    // For `agent storage migrate-to`; nothing is opened here.
    storage().declare('sessions', PG_MIGRATIONS)
    const redactor = () => knownSecretsRedactor(api.settings)
    // The store's modules load on first use: every `agent` command sets this extension up.
    let loading: Promise<SessionStore> | undefined
    let loaded: SessionStore | undefined
    const open = async (): Promise<SessionStore> => {
      if (storage().backend === 'postgres') {
        const { PgSessionStore } = await import('./store-pg.ts')
        return new PgSessionStore(() => storage().postgres(), redactor)
      }
      const { SqliteSessionStore } = await import('./store.ts')
      return new SqliteSessionStore(() => api.services.require<DatabaseService>(DATABASE_SERVICE), redactor)
    }
    const load = () => (loading ??= open().then((store) => (loaded = store)))
    type Method = (...a: unknown[]) => Promise<unknown>
    // Once loaded, a call goes straight to the store (no extra async frame per stored message).
    const store = Object.fromEntries(METHODS.map((name) => [name, (...args: unknown[]) => (loaded ? (loaded[name] as Method).apply(loaded, args) : load().then((s) => (s[name] as Method).apply(s, args)))])) as unknown as SessionStore
    api.services.provide<SessionStore>(SESSIONS_SERVICE, Object.freeze(store))
    api.commands.register({
      name: 'sessions',
      category: 'Sessions',
      description: 'List, rename, search and show stored sessions',
      // .env looked at now: the agent may have added a secret since the messages were stored.
      cli: { subcommands: sessionsCli(() => api.services.require<SessionStore>(SESSIONS_SERVICE), () => knownSecretsRedactor(api.settings, { fresh: true })) },
    })
  },
})
