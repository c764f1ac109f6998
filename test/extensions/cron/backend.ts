// Cron tests on either storage backend: a kernel on a fresh test database, cron's store as the
// extension itself picks it, and raw SQL for moving a job's plan (written with `?` placeholders,
// numbered for PostgreSQL).

import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type StorageBackend, type StorageService } from 'agent/sdk'
import type { TestContext } from 'node:test'
import { testStorage, type TestKernel, type TestStorage } from 'agent/sdk/testing'
import { cronStoreFor } from '../../../extensions/cron/pick-store.ts'
import type { CronStore } from '../../../extensions/cron/store.ts'

/**
 * Cleanups run last-registered first (node:test runs a test's `after` hooks in the order they were
 * registered): the processes and kernels on a database stop before it is dropped.
 */
export function cleanupStack(t?: Pick<TestContext, 'after'>): Pick<TestContext, 'after'> & { run(): Promise<void> } {
  const fns: Array<() => unknown> = []
  const run = async () => {
    for (const fn of fns.splice(0).reverse()) await fn()
  }
  t?.after(run)
  return { after: ((fn: () => unknown) => void fns.push(fn)) as Pick<TestContext, 'after'>['after'], run }
}

/** testStorage for a describe's before/after hooks: the returned `drop` ends it. */
export async function suiteStorage(backend: StorageBackend): Promise<TestStorage & { drop(): Promise<void> }> {
  const stack = cleanupStack()
  const storage = await testStorage(stack, backend)
  return { ...storage, drop: stack.run }
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
