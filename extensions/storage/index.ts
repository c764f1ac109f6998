// The `storage` service: which backend holds the shared state (the local SQLite state.db, or
// PostgreSQL when `storage.url` / AGENT_DATABASE_URL is set), the PostgreSQL pool, and leases.
// An invalid URL fails this extension, and with it every store that depends on it: fail closed.

import { AgentError, DATABASE_SERVICE, defineExtension, STORAGE_SERVICE, type DatabaseService, type PgMigration, type StorageService } from 'agent/sdk'
import { newHolderId, PG_MIGRATIONS, postgresLeases, sqliteLeases } from './leases.ts'
import { openPostgres, type OpenPostgres } from './postgres.ts'
import { resolveStorage } from './url.ts'

interface StorageConfig {
  url?: string
  pool_size: number
  connect_timeout_seconds: number
}

export default defineExtension<StorageConfig>({
  name: 'storage',
  version: '1.0.0',
  description: 'Shared storage: SQLite state.db, or PostgreSQL for several instances',
  configKey: 'storage',
  dependsOn: ['state-db'],
  config: {
    type: 'object',
    properties: {
      url: { type: 'string', description: 'postgres://user:password@host:5432/database; unset: the local SQLite state.db' },
      pool_size: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
      connect_timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: 300, default: 10 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const resolved = resolveStorage(api.config.url, api.settings.env('AGENT_DATABASE_URL'))
    let postgres: OpenPostgres | undefined
    const pg = (): OpenPostgres => {
      if (resolved.backend !== 'postgres') throw new AgentError('E_STORAGE', 'the storage backend is SQLite (storage.url is not set)')
      postgres ??= openPostgres({
        url: resolved.url!,
        label: resolved.label!,
        poolSize: api.config.pool_size,
        connectTimeoutMs: api.config.connect_timeout_seconds * 1000,
        log: api.log,
      })
      return postgres
    }
    const holder = newHolderId()
    const schemas = new Map<string, readonly PgMigration[]>([['storage', PG_MIGRATIONS]])
    const service: StorageService = {
      backend: resolved.backend,
      declare: (owner, migrations) => void schemas.set(owner, migrations),
      declared: () => schemas,
      postgres: pg,
      leases: resolved.backend === 'postgres' ? postgresLeases(pg, holder) : sqliteLeases(() => api.services.require<DatabaseService>(DATABASE_SERVICE), holder),
    }
    api.services.provide<StorageService>(STORAGE_SERVICE, service)
    api.commands.register({
      name: 'storage',
      category: 'Configuration',
      description: 'Shared storage: copy this home to PostgreSQL',
      cli: {
        subcommands: {
          'migrate-to': {
            description: 'Copy state.db into a PostgreSQL database (idempotent, resumable, verified by counts); the URL as given, - from standard input, or AGENT_DATABASE_URL',
            args: '[url]',
            options: {
              json: { type: 'boolean', describe: 'Print one JSON document' },
              'dry-run': { type: 'boolean', describe: 'Say what would be created and copied; write nothing' },
              timeout: { type: 'number', default: 10, describe: 'Seconds to wait for the server to answer' },
            },
            examples: [
              ['agent storage migrate-to postgres://agent:secret@db:5432/agent', 'copy sessions, responses, cron… into PostgreSQL'],
              ['agent storage migrate-to - < db-url.txt', 'the URL from standard input: no password in the process list or shell history'],
              ['AGENT_DATABASE_URL=postgres://… agent storage migrate-to', 'no URL: the one the gateway will use'],
            ],
            async run(ctx) {
              const { runMigrateTo } = await import('./migrate-cli.ts')
              return runMigrateTo(ctx, { database: api.services.require<DatabaseService>(DATABASE_SERVICE), schemas })
            },
          },
        },
      },
    })
    api.onDispose(async () => {
      await postgres?.close()
      postgres = undefined
    })
  },
})
