// `agent storage migrate-to [url]`: opens the target (a postgres:// URL, shown only with its password
// masked; `-` reads it from standard input and no URL takes AGENT_DATABASE_URL, so the password
// stays out of the process list and the shell history), checks it answers, runs the migration and
// prints a table (or --json). Exit 0 when every table verified, 1 when the server cannot be used or
// a count falls short, 2 for a bad URL.

import { existsSync } from 'node:fs'
import { AgentError, errorMessage, UsageError, type CliContext, type DatabaseService, type PgMigration } from 'agent/sdk'
import { migrateTo, type MigrationReport } from './migrate-run.ts'
import { openPostgres } from './postgres.ts'
import { parsePostgresUrl, redactUrl } from './url.ts'

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'])

/** A first failure to talk to the server, said the way an operator can act on it. */
export function connectionError(error: unknown, label: string): AgentError {
  const cause = (error as { cause?: unknown }).cause ?? error
  const code = String((cause as { code?: string }).code ?? '')
  const message = errorMessage(cause)
  if (code === '28P01' || code === '28000') return new AgentError('E_STORAGE', `authentication failed for ${label}: check the user and password (${message})`, { cause })
  if (code === '3D000') return new AgentError('E_STORAGE', `${label}: ${message}; create it first (e.g. createdb)`, { cause })
  if (UNREACHABLE.has(code) || /timeout|timed out|terminated/i.test(message)) return new AgentError('E_STORAGE', `cannot reach ${label}: ${message}`, { cause })
  return new AgentError('E_STORAGE', `${label}: ${message}`, { cause })
}

export interface MigrateCliDeps {
  database: DatabaseService
  schemas: ReadonlyMap<string, readonly PgMigration[]>
}

const MAX_STDIN_URL = 64 * 1024

/** The target URL: as given, read from standard input (`-`), or AGENT_DATABASE_URL. */
async function targetUrl(ctx: CliContext): Promise<string> {
  // yargs hands a lone `-` over as `true`.
  const given = ctx.argv.url === true ? '-' : ctx.argv.url === undefined || ctx.argv.url === null ? '' : String(ctx.argv.url)
  if (given && given !== '-') return given
  if (given === '-') {
    let text = ''
    process.stdin.setEncoding('utf8')
    for await (const chunk of process.stdin) {
      text += chunk as string
      if (text.length > MAX_STDIN_URL) throw new UsageError('standard input is too long for a URL')
    }
    const url = text.trim()
    if (!url) throw new UsageError('standard input held no URL (migrate-to - reads the target URL from it)')
    return url
  }
  const fromEnv = ctx.settings.env('AGENT_DATABASE_URL')?.trim()
  if (fromEnv) return fromEnv
  throw new UsageError('no target: give the postgres:// URL, - to read it from standard input, or set AGENT_DATABASE_URL')
}

export async function runMigrateTo(ctx: CliContext, deps: MigrateCliDeps): Promise<number> {
  let target: { url: string }
  try {
    target = parsePostgresUrl(await targetUrl(ctx), 'the target URL')
  } catch (error) {
    throw new UsageError(errorMessage(error))
  }
  const label = redactUrl(new URL(target.url))
  const seconds = Number(ctx.argv.timeout ?? 10)
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 300) throw new UsageError(`--timeout must be between 0 and 300 seconds (got ${String(ctx.argv.timeout)})`)
  // Never create an empty state.db just to copy nothing from it.
  if (!existsSync(deps.database.path)) throw new AgentError('E_NOT_FOUND', `no ${deps.database.path}: nothing to migrate`)

  const pg = openPostgres({ url: target.url, label, poolSize: 2, connectTimeoutMs: seconds * 1000, log: { warn: (t) => ctx.err(`agent: ${t}`), debug: () => undefined } })
  try {
    try {
      await pg.ping()
    } catch (error) {
      throw connectionError(error, label)
    }
    const dryRun = Boolean(ctx.argv['dry-run'] ?? ctx.argv.dryRun)
    if (!ctx.argv.json) ctx.err(`${dryRun ? 'Dry run: ' : ''}${deps.database.path} → ${label}`)
    let shown = 0
    const report = await migrateTo(deps.database.db(), pg, deps.schemas, {
      dryRun,
      progress(table, done, total) {
        // Long tables say how far they are, about once a second.
        if (total < 5000 || (done < total && Date.now() - shown < 1000)) return
        shown = Date.now()
        ctx.err(`  ${table}: ${done}/${total}`)
      },
    })
    if (ctx.argv.json) ctx.json({ target: label, ...toJson(report) })
    else print(ctx, report)
    return report.verified === false ? 1 : 0
  } finally {
    await pg.close()
  }
}

function toJson(r: MigrationReport) {
  return {
    dry_run: r.dryRun,
    verified: r.verified,
    schemas: r.schemas,
    tables: r.tables.map((t) => ({ table: t.table, source: t.source, copied: t.copied, target: t.target, ...(t.dropped.length ? { dropped_columns: t.dropped } : {}), ...(t.note ? { note: t.note } : {}) })),
    skipped: r.skipped,
  }
}

function print(ctx: CliContext, r: MigrationReport): void {
  const pending = r.schemas.filter((s) => s.applied.length)
  ctx.out(`Schemas: ${r.schemas.length} declared${pending.length ? `; ${r.dryRun ? 'would apply' : 'applied'} ${pending.map((s) => `${s.owner} ${s.applied.join(',')}`).join('; ')}` : ', all up to date'}`)
  const rows = r.tables.map((t) => [t.table, String(t.source), t.copied === null ? '-' : String(t.copied), String(t.target), t.target < t.source && !r.dryRun ? '✗' : ''])
  const head = ['table', 'source', r.dryRun ? 'copied (dry run)' : 'copied', 'target', '']
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
  for (const row of [head, ...rows]) ctx.out(row.map((cell, i) => (i === 0 ? cell.padEnd(width[i]!) : cell.padStart(width[i]!))).join('  ').trimEnd())
  for (const t of r.tables) {
    if (t.dropped.length) ctx.out(`  ${t.table}: not in PostgreSQL, not copied: ${t.dropped.join(', ')}`)
    if (t.note) ctx.out(`  ${t.table}: ${t.note}`)
  }
  if (r.skipped.length) ctx.out(`Skipped: ${r.skipped.map((s) => `${s.table} (${s.reason})`).join(', ')}`)
  if (r.dryRun) ctx.out('Dry run: nothing was written')
  else if (r.verified) ctx.out(`✓ verified: every table has at least as many rows in PostgreSQL as in state.db`)
  else ctx.out(`✗ some tables have fewer rows in PostgreSQL than in state.db (marked ✗); run the command again, then check the server's log`)
}
