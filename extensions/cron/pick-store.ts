// Which CronStore holds the jobs: PostgreSQL when the storage backend is (several instances share
// its jobs), else state.db. Chosen at first use, so setup opens nothing.

import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type Services, type StorageService } from 'agent/sdk'
import { PgCronStore } from './store-pg.ts'
import { SqliteCronStore } from './store-sqlite.ts'
import type { CronStore } from './store.ts'

export function cronStoreFor(services: Pick<Services, 'require'>): () => CronStore {
  let store: CronStore | undefined
  return () => {
    if (store) return store
    const storage = services.require<StorageService>(STORAGE_SERVICE)
    store = storage.backend === 'postgres' ? new PgCronStore(() => services.require<StorageService>(STORAGE_SERVICE).postgres()) : new SqliteCronStore(() => services.require<DatabaseService>(DATABASE_SERVICE))
    return store
  }
}
