// Cron tests on either storage backend: a kernel on a fresh test database, cron's store as the
// extension itself picks it, and raw SQL for moving a job's plan (written with `?` placeholders,
// numbered for PostgreSQL).

import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type StorageBackend, type StorageService } from 'agent/sdk'
import type { TestContext } from 'node:test'
import { testStorage, type TestKernel, type TestStorage } from 'agent/sdk/testing'
import { cronStoreFor } from '../../../extensions/cron/pick-store.ts'
import type { CronStore } from '../../../extensions/cron/store.ts'

/** testStorage for a describe's before/after hooks: the returned `drop` ends it. */
export async function suiteStorage(backend: StorageBackend): Promise<TestStorage & { drop(): Promise<void> }> {
  const cleanups: Array<() => unknown> = []
  const hooks = { after: (fn: () => unknown) => void cleanups.push(fn) } as unknown as Pick<TestContext, 'after'>
  const storage = await testStorage(hooks, backend)
  return { ...storage, drop: async () => void (await Promise.all(cleanups.map((fn) => fn()))) }
}

/** Cron's store in this kernel, on the backend its storage uses. */
export const storeOf = (t: TestKernel): CronStore => cronStoreFor(t.kernel.services)()

/** Runs one statement of SQL on the kernel's backend. */
export async function execSql(t: TestKernel, text: string, ...params: unknown[]): Promise<void> {
  const storage = t.kernel.services.require<StorageService>(STORAGE_SERVICE)
  if (storage.backend === 'sqlite') {
    t.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().prepare(text).run(...params)
    return
  }
  let n = 0
  await storage.postgres().query(text.replace(/\?/g, () => `$${++n}`), params)
}

/** Makes a job due at `at` (default now). */
export const makeDue = (t: TestKernel, id: string, at = Date.now()) => execSql(t, 'UPDATE cron_jobs SET next_run_at = ?, anchor_at = ? WHERE id = ?', at, at, id)
