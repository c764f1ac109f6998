// The storage backend in `agent doctor`: which one, and on PostgreSQL whether the server answers
// within the deadline, its version and round-trip time, and per owner the schema versions applied
// against those this agent declares. The URL is shown only with its password masked.

import { errorMessage, STORAGE_SERVICE, type CliContext, type PostgresService, type StorageService } from 'agent/sdk'
import type { Report } from './report.ts'

type Ctx = { services: Pick<CliContext['services'], 'get'> }

const S = 'Storage'

/** `promise`, or a rejection once `ms` have passed (the query itself is left to the pool's own timeout). */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(ms / 1000)} s`)), ms)))
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer))
}

/** Which backend; on PostgreSQL, the server and the schemas. */
export async function checkStorage(report: Report, ctx: Ctx, timeoutMs: number): Promise<void> {
  const storage = ctx.services.get<StorageService>(STORAGE_SERVICE)
  if (!storage) return report.add(S, 'backend', 'fail', 'the storage extension is not loaded (see Extensions above)', 'fix storage.url or AGENT_DATABASE_URL, or unset it for SQLite')
  if (storage.backend === 'sqlite') return report.add(S, 'backend', 'ok', 'SQLite (state.db); set storage.url to share one PostgreSQL among several instances')
  const pg = storage.postgres()
  report.add(S, 'backend', 'ok', `PostgreSQL at ${pg.label}`)
  try {
    // The first ping opens a connection (and may authenticate); the second is the round trip alone.
    const connect = await within(pg.ping(), timeoutMs)
    const { version, latencyMs } = await within(pg.ping(), timeoutMs)
    report.add(S, 'server', 'ok', `PostgreSQL ${version}, connected in ${Math.round(connect.latencyMs)} ms, round trip ${latencyMs.toFixed(1)} ms`)
  } catch (error) {
    return report.add(S, 'server', 'fail', `unreachable: ${errorMessage(error)}`, 'check that the server runs and that the URL, user and password are right')
  }
  await checkMigrations(report, pg, storage.declared(), timeoutMs)
}

async function checkMigrations(report: Report, pg: PostgresService, declared: ReadonlyMap<string, readonly { version: number }[]>, timeoutMs: number): Promise<void> {
  let applied: Map<string, number>
  try {
    const rows = await within(
      pg.query<{ owner: string; version: number }>('SELECT owner, max(version) AS version FROM schema_migrations GROUP BY owner'),
      timeoutMs,
    ).catch((error) => {
      // No such table yet: nothing was ever applied.
      if ((error as { pgCode?: string }).pgCode === '42P01') return []
      throw error
    })
    applied = new Map(rows.map((r) => [r.owner, Number(r.version)]))
  } catch (error) {
    return report.add(S, 'migrations', 'fail', `cannot read schema_migrations: ${errorMessage(error)}`)
  }
  for (const [owner, migrations] of [...declared].sort(([a], [b]) => a.localeCompare(b))) {
    const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0)
    const have = applied.get(owner) ?? 0
    if (have === latest) report.add(S, `schema ${owner}`, 'ok', `version ${latest}`)
    else if (have > latest) report.add(S, `schema ${owner}`, 'warn', `version ${have} in the database, this agent knows up to ${latest}`, 'a newer agent migrated it: update this one')
    else report.add(S, `schema ${owner}`, 'info', `version ${have} of ${latest}: the rest is applied on first use`)
  }
}
