// The PostgreSQL service over a pg connection pool (node-postgres: the maintained, pure-JavaScript
// client every Node PostgreSQL stack builds on). The module is loaded on first use so commands that
// never touch storage do not pay for it; an idle client's error is logged, never thrown at the
// process (a database restart must not take the gateway down).

import { createRequire } from 'node:module'
import type pg from 'pg'
import { AgentError, errorMessage, type PgMigration, type PgQuery, type PostgresService } from 'agent/sdk'
import { PgGroupCommit } from './pg-group-commit.ts'
import { applyPgMigrations } from './pg-migrate.ts'

export interface PostgresOptions {
  url: string
  label: string
  poolSize: number
  connectTimeoutMs: number
  log: { warn(text: string): void; debug(text: string): void }
}

export interface OpenPostgres extends PostgresService {
  close(): Promise<void>
}

const wrap = (run: (text: string, params?: readonly unknown[]) => Promise<pg.QueryResult>): PgQuery => ({
  async query<R>(text: string, params?: readonly unknown[]) {
    return (await run(text, params)).rows as R[]
  },
})

export function openPostgres(options: PostgresOptions): OpenPostgres {
  let pool: pg.Pool | undefined
  let closed = false
  const migrated = new Map<string, number>()
  const migrating = new Map<string, Promise<void>>()

  const getPool = (): pg.Pool => {
    if (closed) throw new AgentError('E_STATE', 'the database is closed (the agent is shutting down)')
    if (pool) return pool
    const { Pool } = createRequire(import.meta.url)('pg') as typeof import('pg')
    pool = new Pool({ connectionString: options.url, max: options.poolSize, connectionTimeoutMillis: options.connectTimeoutMs, idleTimeoutMillis: 30_000 })
    pool.on('error', (error) => options.log.warn(`database connection lost: ${errorMessage(error)}`))
    return pool
  }
  const failure = (error: unknown): never => {
    if (error instanceof AgentError) throw error
    // pg's own messages name the server and the problem, never the password.
    const code = (error as { code?: string }).code
    throw Object.assign(new AgentError('E_STORAGE', `${options.label}: ${errorMessage(error)}`, { cause: error }), code ? { pgCode: code } : {})
  }
  const query: PgQuery['query'] = async (text, params) => {
    try {
      return (await getPool().query(text, params as unknown[])).rows
    } catch (error) {
      return failure(error)
    }
  }
  const transaction = async <T>(fn: (client: PgQuery) => Promise<T>): Promise<T> => {
    let client: pg.PoolClient
    try {
      client = await getPool().connect()
    } catch (error) {
      return failure(error)
    }
    let broken = false
    // A checked-out client has no listener of the pool's: a connection lost between two queries of the
    // transaction (a database restart) would be thrown at the process. Its next query fails instead.
    const lost = (error: Error) => {
      broken = true
      options.log.warn(`database connection lost: ${errorMessage(error)}`)
    }
    client.on('error', lost)
    try {
      await client.query('BEGIN')
      const value = await fn(wrap((text, params) => client.query(text, params as unknown[])))
      await client.query('COMMIT')
      return value
    } catch (error) {
      await client.query('ROLLBACK').catch(() => (broken = true))
      throw error
    } finally {
      client.off('error', lost)
      client.release(broken)
    }
  }
  const group = new PgGroupCommit(transaction)

  const service: OpenPostgres = {
    label: options.label,
    query,
    transaction,
    write: (fn) => group.write(fn),
    migrate(owner: string, migrations: readonly PgMigration[]) {
      const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0)
      if ((migrated.get(owner) ?? -1) >= latest) return Promise.resolve()
      // Callers arriving while it runs share the run; a failure is forgotten, so the next call tries again.
      let running = migrating.get(owner)
      if (!running) {
        running = transaction((client) => applyPgMigrations(client, owner, migrations))
          .then((applied) => {
            if (applied.length > 0) options.log.debug(`applied migrations of ${owner}: ${applied.join(', ')}`)
            migrated.set(owner, latest)
          })
          .finally(() => migrating.delete(owner))
        migrating.set(owner, running)
      }
      return running
    },
    async locked(key, fn, { wait = true } = {}) {
      return transaction(async (client) => {
        if (wait) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
        else {
          const [row] = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS ok', [key])
          if (!row?.ok) return undefined
        }
        return fn(client)
      })
    },
    async ping() {
      const started = performance.now()
      const [row] = await query<{ version: string }>("SELECT current_setting('server_version') AS version")
      return { version: row?.version ?? 'unknown', latencyMs: performance.now() - started }
    },
    async close() {
      await group.drain()
      closed = true
      const open = pool
      pool = undefined
      await open?.end()
    },
  }
  return service
}
