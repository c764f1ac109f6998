// The `sessions` service (sessions and messages in state.db, titles, lineage, FTS search) and the
// `agent sessions` command. Nothing is opened in setup: the schema is migrated on first use.

import { DATABASE_SERVICE, defineExtension, knownSecretsRedactor, SESSIONS_SERVICE, type DatabaseService, type SessionStore } from 'agent/sdk'
import { sessionsCli } from './cli.ts'

const METHODS = ['create', 'get', 'resolve', 'list', 'latest', 'append', 'messages', 'setTitle', 'titleIfUntitled', 'nextTitle', 'update', 'addUsage', 'end', 'reopen', 'tip', 'search', 'delete'] as const satisfies ReadonlyArray<keyof SessionStore>
// Fails to compile when SessionStore gains a method that the lazy service below would not forward.
const complete: Exclude<keyof SessionStore, (typeof METHODS)[number]> extends never ? true : never = true
void complete

export default defineExtension({
  name: 'sessions',
  version: '1.0.0',
  description: 'Stored sessions and messages with full-text search',
  dependsOn: ['state-db'],
  setup(api) {
    // The store's modules load on first use: every `agent` command sets this extension up.
    let loading: Promise<SessionStore> | undefined
    let loaded: SessionStore | undefined
    const load = () => (loading ??= import('./store.ts').then(({ SqliteSessionStore }) => (loaded = new SqliteSessionStore(() => api.services.require<DatabaseService>(DATABASE_SERVICE), () => knownSecretsRedactor(api.settings)))))
    type Method = (...a: unknown[]) => Promise<unknown>
    // Once loaded, a call goes straight to the store (no extra async frame per stored message).
    const store = Object.fromEntries(METHODS.map((name) => [name, (...args: unknown[]) => (loaded ? (loaded[name] as Method).apply(loaded, args) : load().then((s) => (s[name] as Method).apply(s, args)))])) as unknown as SessionStore
    api.services.provide<SessionStore>(SESSIONS_SERVICE, Object.freeze(store))
    api.commands.register({
      name: 'sessions',
      category: 'Sessions',
      description: 'List, rename, search and show stored sessions',
      cli: { subcommands: sessionsCli(() => api.services.require<SessionStore>(SESSIONS_SERVICE)) },
    })
  },
})
