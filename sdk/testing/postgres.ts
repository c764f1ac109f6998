// Storage backends for tests: every test that exercises storage runs once per backend. PostgreSQL
// comes from AGENT_TEST_DATABASE_URL (an admin URL that may create databases; test/postgres.sh
// starts a loopback cluster and sets it); each test gets a database of its own, dropped after it.
// Without the variable the PostgreSQL runs are skipped, except under CI, where they fail instead.

import { createRequire } from 'node:module'
import type { TestContext } from 'node:test'
import { randomHex } from '../ids.ts'
import type { StorageBackend } from '../storage.ts'

export const TEST_DATABASE_VARIABLE = 'AGENT_TEST_DATABASE_URL'
export const STORAGE_BACKENDS: readonly StorageBackend[] = ['sqlite', 'postgres']

/** Why `backend` cannot run here (undefined: it can, or CI insists it must). */
export function backendSkip(backend: StorageBackend): string | undefined {
  if (backend === 'sqlite' || process.env[TEST_DATABASE_VARIABLE]) return undefined
  if (process.env.CI === 'true') return undefined
  return `PostgreSQL: ${TEST_DATABASE_VARIABLE} is not set (npm test starts a loopback cluster when PostgreSQL is installed)`
}

type PgModule = typeof import('pg')
const pgModule = () => createRequire(import.meta.url)('pg') as PgModule

async function admin<T>(fn: (client: import('pg').Client) => Promise<T>): Promise<T> {
  const url = process.env[TEST_DATABASE_VARIABLE]
  if (!url) throw new Error(`${TEST_DATABASE_VARIABLE} is not set: PostgreSQL tests need a server (see test/postgres.sh)`)
  const client = new (pgModule().Client)({ connectionString: url, connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

export interface TestDatabase {
  url: string
  name: string
  drop(): Promise<void>
}

/** A new empty database on the test server. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `agent_test_${randomHex(6)}`
  await admin((c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(process.env[TEST_DATABASE_VARIABLE]!)
  url.pathname = `/${name}`
  return {
    url: url.href,
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  }
}

export interface TestStorage {
  backend: StorageBackend
  /** The `storage` section for config.yaml ({} for SQLite). */
  config: Record<string, unknown>
  /** The database URL (PostgreSQL only). */
  url?: string
}

/** Storage for one test on `backend`: a fresh PostgreSQL database dropped when the test ends. */
export async function testStorage(t: Pick<TestContext, 'after'>, backend: StorageBackend): Promise<TestStorage> {
  if (backend === 'sqlite') return { backend, config: {} }
  const database = await createTestDatabase()
  t.after(() => void dropOnceIdle(database))
  return { backend, config: { storage: { url: database.url } }, url: database.url }
}

const IDLE_POLL_MS = 25
const IDLE_WAIT_MS = 10_000

/**
 * Drops the database once nothing is connected to it (or, at the latest, after IDLE_WAIT_MS, by
 * force). node:test runs a test's after-hooks in the order they were added, and the servers a test
 * starts on this storage add theirs later: dropped at once, the database went away under servers
 * still running, whose connections the server then terminated (an uncaught 57P01 now and then).
 * The test process stays up until the drop is done.
 */
async function dropOnceIdle(database: TestDatabase): Promise<void> {
  try {
    await admin(async (c) => {
      for (const until = Date.now() + IDLE_WAIT_MS; Date.now() < until; ) {
        const { rows } = await c.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [database.name])
        if (rows[0]!.n === 0) break
        await new Promise((resolve) => setTimeout(resolve, IDLE_POLL_MS))
      }
    })
    await database.drop()
  } catch (error) {
    process.stderr.write(`test database ${database.name} not dropped: ${String(error)}\n`)
  }
}
