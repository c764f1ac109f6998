// `agent skills search|install|inspect|check|update|list|remove`: the command-line face of the hub.
// Lists take --json (one document); a refused install exits 1 with the policy's reason.

import { join } from 'node:path'
import { AgentError, errorMessage, UsageError, type CliContext, type CliSubcommand } from 'agent/sdk'
import { install, prepare, resolve, search, type HubContext, type InstallOutcome, type Prepared } from './operations.ts'
import { decide } from './policy.ts'
import { scanFiles } from './scan.ts'
import { audit, contentHash, readFolder, readLock, removeFolder, writeLock } from './store.ts'

const json = { type: 'boolean' as const, describe: 'Print one JSON document' }

function findingLines(prepared: Pick<Prepared, 'scan'>): string[] {
  return prepared.scan.findings.map((f) => `  ${f.severity.padEnd(9)} ${f.file}${f.line ? `:${f.line}` : ''}  ${f.message}  [${f.rule}] ${f.excerpt}`)
}

function preparedJson(p: Prepared) {
  return {
    name: p.name,
    identifier: p.offer.identifier,
    description: p.description,
    version: p.version ?? null,
    origin: p.offer.origin,
    trust: p.offer.trust,
    files: [...p.files.keys()].sort(),
    sha256: p.sha256,
    verdict: p.scan.verdict,
    findings: p.scan.findings,
  }
}

function reportInstall(ctx: CliContext, outcome: InstallOutcome): number {
  const p = outcome.prepared
  if (ctx.argv.json) {
    ctx.json({ ...preparedJson(p), installed: outcome.installed, updated: outcome.updated, path: outcome.path ?? null, decision: outcome.decision })
    return outcome.installed ? 0 : 1
  }
  const lines = findingLines(p)
  if (!outcome.installed) {
    ctx.err(`agent: ${p.name}: ${outcome.decision.reason}`)
    if (lines.length) ctx.err(['findings:', ...lines].join('\n'))
    return 1
  }
  ctx.out(`${outcome.updated ? 'updated' : 'installed'} ${p.name}${p.version ? ` ${p.version}` : ''} from ${p.offer.identifier} (trust: ${p.offer.trust}, scan: ${p.scan.verdict}${outcome.decision.action === 'allow' && outcome.decision.forced ? ', forced' : ''}) → ${outcome.path}`)
  if (lines.length) ctx.out(['findings:', ...lines].join('\n'))
  return 0
}

export function skillsSubcommands(hub: () => HubContext): Record<string, CliSubcommand> {
  return {
    search: {
      description: 'Search the configured hubs (or a site\'s well-known index with --site)',
      args: '[query]',
      options: {
        hub: { type: 'string', describe: 'Only this hub' },
        site: { type: 'array', describe: 'Also search https://<site>/.well-known/skills/index.json' },
        json,
      },
      async run(ctx) {
        const h = hub()
        const sites = ((ctx.argv.site as unknown[] | undefined) ?? []).filter((s): s is string => typeof s === 'string' && s !== '')
        if (h.hubs.length === 0 && sites.length === 0) throw new UsageError('no skill hubs are configured (skills.hub.hubs in config.yaml); pass --site <url> to search a site')
        const result = await search(h, String(ctx.argv.query ?? ''), { hub: ctx.argv.hub as string | undefined, sites })
        const installed = readLock(h.skills.userDir).skills
        const rows = result.offers.map((o) => ({ identifier: o.identifier, name: o.entry.name, description: o.entry.description, version: o.entry.version ?? null, tags: o.entry.tags, trust: o.trust, installed: Boolean(installed[o.entry.name]) }))
        if (ctx.argv.json) return void ctx.json({ results: rows, errors: result.errors })
        for (const e of result.errors) ctx.err(`warning: ${e.source}: ${e.reason}`)
        if (rows.length === 0) return void ctx.out('no skills found')
        for (const r of rows) ctx.out(`${r.identifier}${r.version ? ` ${r.version}` : ''}  [${r.trust}]${r.installed ? ' (installed)' : ''}\n    ${r.description}`)
        return result.offers.length === 0 && result.errors.length > 0 ? 1 : 0
      },
    },
    inspect: {
      description: 'Fetch a skill and show its metadata, files and scan findings without installing',
      args: '<identifier>',
      options: { json },
      async run(ctx) {
        const h = hub()
        const prepared = await prepare(h, await resolve(h, String(ctx.argv.identifier)))
        const decision = decide(prepared.offer.trust, prepared.scan.verdict, false)
        if (ctx.argv.json) return void ctx.json({ ...preparedJson(prepared), policy: decision })
        ctx.out(
          [
            `${prepared.name}${prepared.version ? ` ${prepared.version}` : ''}  (${prepared.offer.identifier})`,
            `  ${prepared.description}`,
            `  trust: ${prepared.offer.trust}   scan: ${prepared.scan.verdict}   policy: ${decision.action === 'allow' ? 'allowed' : decision.overridable ? 'blocked (--force allowed)' : 'blocked'}`,
            `  files: ${[...prepared.files.keys()].sort().join(', ')}`,
            ...(prepared.scan.findings.length ? ['findings:', ...findingLines(prepared)] : []),
          ].join('\n'),
        )
      },
    },
    install: {
      description: 'Install a skill from a hub or a well-known site (scanned first; --force overrides only what the trust policy allows)',
      args: '<identifier>',
      options: { force: { type: 'boolean', describe: 'Install a community skill with a "caution" verdict anyway' }, json },
      examples: [
        ['agent skills install pdf-tools', 'the first configured hub that has it'],
        ['agent skills install official/pdf-tools', 'from the hub named official'],
        ['agent skills install well-known:https://example.com/.well-known/skills/deploy', 'from a site'],
      ],
      async run(ctx) {
        const h = hub()
        const prepared = await prepare(h, await resolve(h, String(ctx.argv.identifier)))
        return reportInstall(ctx, await install(h, prepared, { force: Boolean(ctx.argv.force) }))
      },
    },
    check: {
      description: 'Check installed hub skills for updates and local changes',
      args: '[name]',
      options: { json },
      async run(ctx) {
        const rows = await checkAll(hub(), ctx.argv.name as string | undefined)
        if (ctx.argv.json) return void ctx.json({ skills: rows })
        if (rows.length === 0) return void ctx.out('no skills installed from hubs')
        for (const r of rows) ctx.out(`${r.name.padEnd(24)} ${r.status}${r.detail ? `  (${r.detail})` : ''}`)
      },
    },
    update: {
      description: 'Re-install hub skills whose source changed (scanned and checked against the policy again)',
      args: '[name]',
      options: { force: { type: 'boolean', describe: 'As for install' }, json },
      async run(ctx) {
        const h = hub()
        const rows = await checkAll(h, ctx.argv.name as string | undefined)
        const outcomes: unknown[] = []
        let code = 0
        for (const row of rows) {
          if (row.status !== 'update available') continue
          try {
            const prepared = await prepare(h, await resolve(h, row.identifier))
            const outcome = await install(h, prepared, { force: Boolean(ctx.argv.force) })
            if (ctx.argv.json) outcomes.push({ name: row.name, installed: outcome.installed, verdict: outcome.prepared.scan.verdict, decision: outcome.decision })
            else code = Math.max(code, reportInstall(ctx, outcome))
            if (!outcome.installed) code = 1
          } catch (error) {
            code = 1
            if (ctx.argv.json) outcomes.push({ name: row.name, installed: false, error: errorMessage(error) })
            else ctx.err(`agent: ${row.name}: ${errorMessage(error)}`)
          }
        }
        if (ctx.argv.json) ctx.json({ updates: outcomes })
        else if (outcomes.length === 0 && code === 0 && !rows.some((r) => r.status === 'update available')) ctx.out('everything is up to date')
        return code
      },
    },
    list: {
      description: 'Installed skills: bundled, your own, and from hubs (with trust and scan verdict)',
      options: { json },
      run(ctx) {
        const h = hub()
        const lock = readLock(h.skills.userDir).skills
        const rows = h.skills.list().map((s) => ({ ...s, trust: lock[s.name]?.trust ?? (s.source === 'bundled' ? 'builtin' : 'local'), verdict: lock[s.name]?.verdict ?? null, identifier: lock[s.name]?.identifier ?? null }))
        const problems = h.skills.problems()
        if (ctx.argv.json) return void ctx.json({ skills: rows, problems })
        if (rows.length === 0) ctx.out('no skills')
        for (const r of rows) ctx.out(`${r.name.padEnd(24)} ${(r.version ?? '').padEnd(8)} ${r.source.padEnd(8)} ${r.trust.padEnd(9)} ${r.description}`)
        for (const p of problems) ctx.err(`skipped ${p.dir}: ${p.reason}`)
      },
    },
    remove: {
      description: 'Remove an installed skill (hub-installed or your own; bundled skills stay)',
      args: '<name>',
      async run(ctx) {
        const h = hub()
        const name = String(ctx.argv.name)
        const skill = h.skills.get(name)
        const lock = readLock(h.skills.userDir)
        if (!skill && !lock.skills[name]) throw new UsageError(`no skill named "${name}"`)
        if (skill && (skill.source === 'bundled' || skill.source === 'external')) throw new UsageError(`"${name}" is a ${skill.source} skill (${skill.dir}); it cannot be removed here`)
        removeFolder(skill?.dir ?? join(h.skills.userDir, name))
        if (lock.skills[name]) {
          delete lock.skills[name]
          await writeLock(h.skills.userDir, lock)
        }
        audit(h.skills.userDir, { action: 'remove', name })
        ctx.out(`removed ${name}`)
      },
    },
  }
}

export interface CheckRow {
  name: string
  identifier: string
  status: 'up to date' | 'update available' | 'modified locally' | 'missing' | 'unreachable'
  detail?: string
}

async function checkAll(h: HubContext, only?: string): Promise<CheckRow[]> {
  const lock = readLock(h.skills.userDir).skills
  const names = only ? [only] : Object.keys(lock).sort()
  if (only && !lock[only]) throw new UsageError(`"${only}" was not installed from a hub`)
  const rows: CheckRow[] = []
  for (const name of names) {
    const entry = lock[name]!
    const local = readFolder(join(h.skills.userDir, name))
    if (local.size === 0) {
      rows.push({ name, identifier: entry.identifier, status: 'missing', detail: 'folder removed; install again' })
      continue
    }
    const localHash = contentHash(local)
    try {
      const prepared = await prepare(h, await resolve(h, entry.identifier))
      if (prepared.sha256 !== entry.sha256) {
        rows.push({ name, identifier: entry.identifier, status: 'update available', detail: `${entry.version ?? '?'} → ${prepared.version ?? '?'}, scan ${prepared.scan.verdict}` })
      } else if (localHash !== entry.sha256) {
        rows.push({ name, identifier: entry.identifier, status: 'modified locally', detail: `local scan ${scanFiles(local, { assess: await h.judge() }).verdict}` })
      } else {
        rows.push({ name, identifier: entry.identifier, status: 'up to date', detail: entry.version })
      }
    } catch (error) {
      if (AgentError.isInstance(error) && error.code === 'E_USAGE') throw error
      rows.push({ name, identifier: entry.identifier, status: 'unreachable', detail: errorMessage(error) })
    }
  }
  return rows
}
