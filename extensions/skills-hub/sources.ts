// Where skills come from: configured hubs (an HTTP index, `<hub>/index.json`) and well-known sites
// (`<site>/.well-known/skills/index.json`, also the newer `/.well-known/agent-skills/`). Both index
// shapes are read: v0.1 entries list `files` fetched from `<base>/<name>/<file>`; v0.2 entries give
// one `url` to a SKILL.md (`type: skill-md`) with an optional `digest: sha256:<hex>`.

import { createHash } from 'node:crypto'
import { AgentError, UsageError } from 'agent/sdk'
import { FetchError, fetchBytes, fetchJson, type FetchLimits } from './fetch.ts'
import type { Trust } from './policy.ts'

export interface HubConfig {
  name: string
  url: string
  trust: 'trusted' | 'community'
}

export interface IndexEntry {
  name: string
  description: string
  version?: string
  tags: string[]
  /** v0.1: relative file paths; v0.2: one SKILL.md. */
  files: string[]
  /** v0.2: where SKILL.md is. */
  url?: string
  digest?: string
}

/** A skill offered by a source, ready to fetch. */
export interface Offer {
  /** What `agent skills install` takes to get this exact skill again. */
  identifier: string
  origin: { kind: 'hub'; hub: string } | { kind: 'well-known'; site: string }
  trust: Trust
  /** Folder URL the files are relative to (with a trailing slash). */
  base: string
  entry: IndexEntry
}

export const WELL_KNOWN_PATHS = ['.well-known/skills/', '.well-known/agent-skills/'] as const
const FILE_PATH = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9._\-/ ]+$/
const MAX_FILES = 100

const withSlash = (url: string) => (url.endsWith('/') ? url : url + '/')

/** A relative file path an index may list: no absolute paths, no `..`, no backslashes. */
export function safeRelativePath(path: string): boolean {
  return FILE_PATH.test(path) && !path.includes('//') && !path.endsWith('/')
}

function parseEntry(raw: unknown, where: string): IndexEntry | undefined {
  if (!raw || typeof raw !== 'object') return undefined
  const e = raw as Record<string, unknown>
  if (typeof e.name !== 'string' || !/^[a-z0-9][a-z0-9._-]{0,63}$/.test(e.name)) return undefined
  const description = typeof e.description === 'string' ? e.description : ''
  const tags = Array.isArray(e.tags) ? e.tags.filter((t): t is string => typeof t === 'string') : []
  const version = typeof e.version === 'string' || typeof e.version === 'number' ? String(e.version) : undefined
  if (Array.isArray(e.files)) {
    const files = e.files.filter((f): f is string => typeof f === 'string')
    if (!files.includes('SKILL.md')) throw new AgentError('E_INDEX', `${where}: skill "${e.name}" does not list SKILL.md`)
    const bad = files.find((f) => !safeRelativePath(f))
    if (bad !== undefined) throw new AgentError('E_BLOCKED', `${where}: skill "${e.name}" lists an unsafe path "${bad}"`)
    if (files.length > MAX_FILES) throw new AgentError('E_INDEX', `${where}: skill "${e.name}" lists more than ${MAX_FILES} files`)
    return { name: e.name, description, version, tags, files }
  }
  if (typeof e.url === 'string') {
    if (e.type !== undefined && e.type !== 'skill-md') return { name: e.name, description, version, tags, files: [], url: e.url, digest: `unsupported:${String(e.type)}` }
    return { name: e.name, description, version, tags, files: ['SKILL.md'], url: e.url, digest: typeof e.digest === 'string' ? e.digest : undefined }
  }
  return undefined
}

/** Reads an index document; entries that are not skills are skipped. */
export async function readIndex(indexUrl: string, limits: FetchLimits): Promise<IndexEntry[]> {
  const doc = (await fetchJson(indexUrl, { ...limits, maxBytes: 5 * 1024 * 1024 })) as { skills?: unknown }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.skills)) throw new AgentError('E_INDEX', `${indexUrl}: not a skills index (no "skills" list)`)
  return doc.skills.map((raw) => parseEntry(raw, indexUrl)).filter((e): e is IndexEntry => e !== undefined)
}

export function hubIndexUrl(hub: HubConfig): { index: string; base: string } {
  if (/\.json($|\?)/.test(hub.url)) return { index: hub.url, base: new URL('.', hub.url).href }
  return { index: new URL('index.json', withSlash(hub.url)).href, base: withSlash(hub.url) }
}

export async function hubOffers(hub: HubConfig, limits: FetchLimits): Promise<Offer[]> {
  const { index, base } = hubIndexUrl(hub)
  const entries = await readIndex(index, limits)
  return entries.map((entry) => ({ identifier: `${hub.name}/${entry.name}`, origin: { kind: 'hub', hub: hub.name }, trust: hub.trust, base, entry }))
}

/** The site part of a URL that may already point into its well-known folder. */
export function siteOf(raw: string): string {
  const url = new URL(raw)
  for (const path of WELL_KNOWN_PATHS) {
    const at = url.pathname.indexOf('/' + path)
    if (at >= 0) return `${url.origin}${url.pathname.slice(0, at)}`
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`
}

/** A site's well-known skills (tries /.well-known/skills/ then /.well-known/agent-skills/). Always community trust. */
export async function siteOffers(site: string, limits: FetchLimits): Promise<Offer[]> {
  const root = withSlash(siteOf(site))
  let lastError: unknown
  for (const path of WELL_KNOWN_PATHS) {
    const base = new URL(path, root).href
    try {
      const entries = await readIndex(new URL('index.json', base).href, limits)
      return entries.map((entry) => ({ identifier: `well-known:${base}${entry.name}`, origin: { kind: 'well-known', site: root.replace(/\/$/, '') }, trust: 'community', base, entry }))
    } catch (error) {
      lastError = error
      if (!(error instanceof FetchError && error.status === 404)) throw error
    }
  }
  throw lastError
}

/** The fetched files of one offer (path → bytes), verified against the index's digest. */
export async function fetchFiles(offer: Offer, limits: FetchLimits, maxTotal = 10 * 1024 * 1024): Promise<Map<string, Buffer>> {
  const { entry } = offer
  if (entry.digest?.startsWith('unsupported:')) throw new AgentError('E_INDEX', `${offer.identifier}: skill type "${entry.digest.slice(12)}" is not supported (only skill-md and file lists)`)
  const files = new Map<string, Buffer>()
  let total = 0
  if (entry.url) {
    const bytes = await fetchBytes(new URL(entry.url, offer.base).href, { ...limits, maxBytes: 1024 * 1024 })
    if (entry.digest) {
      const actual = `sha256:${createHash('sha256').update(bytes).digest('hex')}`
      if (actual !== entry.digest.toLowerCase()) throw new AgentError('E_BLOCKED', `${offer.identifier}: SKILL.md does not match the index digest (${entry.digest})`)
    }
    files.set('SKILL.md', bytes)
    return files
  }
  const folder = new URL(`${encodeURIComponent(entry.name)}/`, offer.base)
  for (const file of entry.files) {
    const bytes = await fetchBytes(new URL(file.split('/').map(encodeURIComponent).join('/'), folder).href, { ...limits, maxBytes: 1024 * 1024 })
    total += bytes.length
    if (total > maxTotal) throw new AgentError('E_BLOCKED', `${offer.identifier}: the skill's files exceed ${maxTotal} bytes`)
    files.set(file, bytes)
  }
  return files
}

/** Parses an install identifier: `<name>`, `<hub>/<name>`, `well-known:<site>/.well-known/skills/<name>`, or that URL. */
export function parseIdentifier(text: string): { kind: 'name'; name: string } | { kind: 'hub'; hub: string; name: string } | { kind: 'well-known'; site: string; name: string } {
  const raw = text.trim()
  const url = raw.startsWith('well-known:') ? raw.slice('well-known:'.length) : /^https?:\/\//.test(raw) ? raw : undefined
  if (url !== undefined) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      throw new UsageError(`"${raw}" is not a valid well-known skill address`)
    }
    const match = /\/\.well-known\/(?:agent-)?skills\/([^/]+)\/?$/.exec(parsed.pathname)
    if (!match) throw new UsageError(`"${raw}": name the skill as <site>/.well-known/skills/<name> (see agent skills search --site <site>)`)
    return { kind: 'well-known', site: siteOf(url), name: decodeURIComponent(match[1]!) }
  }
  const slash = raw.split('/')
  if (slash.length === 2 && slash[0] && slash[1]) return { kind: 'hub', hub: slash[0], name: slash[1] }
  if (/^[a-z0-9][a-z0-9._-]{0,63}$/.test(raw)) return { kind: 'name', name: raw }
  throw new UsageError(`"${raw}" is not a skill identifier (use <name>, <hub>/<name> or well-known:<site>/.well-known/skills/<name>)`)
}
