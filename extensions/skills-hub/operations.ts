// The hub operations behind `agent skills …`: search across hubs and sites, resolve an identifier to
// one offer, fetch + validate + scan it (inspect), and install/update it under the trust policy.

import { join } from 'node:path'
import { AgentError, errorMessage, UsageError, type CommandAssessment, type Logger, type SkillsService } from 'agent/sdk'
import type { FetchLimits } from './fetch.ts'
import { decide, type Decision } from './policy.ts'
import { scanFiles, type ScanResult } from './scan.ts'
import { audit, contentHash, placeSkill, readLock, writeLock } from './store.ts'
import { fetchFiles, hubOffers, parseIdentifier, siteOffers, type HubConfig, type Offer } from './sources.ts'

export interface HubContext {
  hubs: readonly HubConfig[]
  limits: FetchLimits
  skills: SkillsService
  log: Logger
  /** The sdk's shell-command judge (sdk/shell-judge), which scan.ts runs on shell lines. */
  judge: () => Promise<(command: string) => CommandAssessment>
}

export interface SearchResult {
  offers: Offer[]
  errors: Array<{ source: string; reason: string }>
}

export async function search(ctx: HubContext, query: string, options: { hub?: string; sites?: string[] } = {}): Promise<SearchResult> {
  const hubs = options.hub ? ctx.hubs.filter((h) => h.name === options.hub) : options.sites?.length ? [] : ctx.hubs
  if (options.hub && hubs.length === 0) throw new UsageError(`no hub named "${options.hub}" (configured: ${ctx.hubs.map((h) => h.name).join(', ') || 'none'})`)
  const jobs: Array<{ source: string; run: () => Promise<Offer[]> }> = [
    ...hubs.map((hub) => ({ source: hub.name, run: () => hubOffers(hub, ctx.limits) })),
    ...(options.sites ?? []).map((site) => ({ source: site, run: () => siteOffers(site, ctx.limits) })),
  ]
  const settled = await Promise.allSettled(jobs.map((j) => j.run()))
  const q = query.trim().toLowerCase()
  const result: SearchResult = { offers: [], errors: [] }
  settled.forEach((outcome, i) => {
    if (outcome.status === 'rejected') return void result.errors.push({ source: jobs[i]!.source, reason: errorMessage(outcome.reason) })
    for (const offer of outcome.value) {
      const e = offer.entry
      if (!q || [e.name, e.description, ...e.tags].some((t) => t.toLowerCase().includes(q))) result.offers.push(offer)
    }
  })
  return result
}

/** The one offer an identifier names. A bare name is looked up in the hubs in their configured order. */
export async function resolve(ctx: HubContext, identifier: string): Promise<Offer> {
  const id = parseIdentifier(identifier)
  if (id.kind === 'well-known') {
    const offers = await siteOffers(id.site, ctx.limits)
    const offer = offers.find((o) => o.entry.name === id.name)
    if (!offer) throw new AgentError('E_NOT_FOUND', `${id.site} publishes no skill "${id.name}" (it has: ${offers.map((o) => o.entry.name).join(', ') || 'none'})`)
    return offer
  }
  if (ctx.hubs.length === 0) throw new UsageError('no skill hubs are configured (skills.hub.hubs in config.yaml); use a well-known:<site> identifier instead')
  const hubs = id.kind === 'hub' ? ctx.hubs.filter((h) => h.name === id.hub) : ctx.hubs
  if (hubs.length === 0) throw new UsageError(`no hub named "${id.kind === 'hub' ? id.hub : ''}" (configured: ${ctx.hubs.map((h) => h.name).join(', ')})`)
  const failures: string[] = []
  for (const hub of hubs) {
    try {
      const offer = (await hubOffers(hub, ctx.limits)).find((o) => o.entry.name === id.name)
      if (offer) return offer
    } catch (error) {
      failures.push(`${hub.name}: ${errorMessage(error)}`)
    }
  }
  const note = failures.length ? ` (unreachable: ${failures.join('; ')})` : ''
  throw new AgentError('E_NOT_FOUND', `no hub offers a skill "${id.name}"${note}`)
}

export interface Prepared {
  offer: Offer
  name: string
  description: string
  version?: string
  files: Map<string, Buffer>
  scan: ScanResult
  sha256: string
}

/** Fetches an offer's files into memory, checks SKILL.md and scans everything. Runs nothing. */
export async function prepare(ctx: HubContext, offer: Offer): Promise<Prepared> {
  const files = await fetchFiles(offer, ctx.limits)
  const text = files.get('SKILL.md')?.toString('utf8')
  if (text === undefined) throw new AgentError('E_INDEX', `${offer.identifier}: no SKILL.md`)
  let parsed
  try {
    parsed = ctx.skills.parse(text)
  } catch (error) {
    throw new AgentError('E_INVALID_SKILL', `${offer.identifier}: invalid SKILL.md: ${errorMessage(error)}`, { cause: error })
  }
  if (parsed.name !== offer.entry.name) throw new AgentError('E_INVALID_SKILL', `${offer.identifier}: SKILL.md names itself "${parsed.name}", but the index lists "${offer.entry.name}"`)
  return { offer, name: parsed.name, description: parsed.description, version: parsed.version ?? offer.entry.version, files, scan: scanFiles(files, { assess: await ctx.judge() }), sha256: contentHash(files) }
}

export interface InstallOutcome {
  prepared: Prepared
  decision: Decision
  installed: boolean
  path?: string
  updated: boolean
}

/** Applies the trust policy and installs (or refuses). Never touches a folder the hub did not create. */
export async function install(ctx: HubContext, prepared: Prepared, options: { force: boolean }): Promise<InstallOutcome> {
  const { offer, name } = prepared
  const userDir = ctx.skills.userDir
  const lock = readLock(userDir)
  const previous = lock.skills[name]
  const existing = ctx.skills.get(name)
  if (existing && !previous) {
    if (existing.source === 'user' || existing.dir === join(userDir, name)) {
      throw new AgentError('E_CONFLICT', `a skill "${name}" you wrote already exists (${existing.dir}); remove or rename it first`, { exitCode: 2 })
    }
    if (!options.force) throw new AgentError('E_CONFLICT', `a ${existing.source} skill "${name}" exists; installing would shadow it (--force to do so)`, { exitCode: 2 })
  }
  const decision = decide(offer.trust, prepared.scan.verdict, options.force)
  const base = { name, identifier: offer.identifier, trust: offer.trust, verdict: prepared.scan.verdict, findings: prepared.scan.findings.length }
  if (decision.action === 'block') {
    audit(userDir, { action: 'blocked', ...base, forced: options.force, reason: decision.reason })
    return { prepared, decision, installed: false, updated: false }
  }
  const path = placeSkill(userDir, name, prepared.files)
  const now = new Date().toISOString()
  lock.skills[name] = {
    identifier: offer.identifier,
    origin: offer.origin,
    trust: offer.trust,
    ...(prepared.version ? { version: prepared.version } : {}),
    verdict: prepared.scan.verdict,
    findings: prepared.scan.findings.length,
    forced: decision.forced,
    sha256: prepared.sha256,
    files: [...prepared.files.keys()].sort(),
    installed_at: previous?.installed_at ?? now,
    updated_at: now,
  }
  await writeLock(userDir, lock)
  audit(userDir, { action: previous ? 'update' : 'install', ...base, forced: decision.forced, version: prepared.version, sha256: prepared.sha256 })
  return { prepared, decision, installed: true, path, updated: Boolean(previous) }
}
