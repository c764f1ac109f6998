// Finds skills in the skills directories and builds the `skills` service over them. The first
// directory that holds a name wins: <agent_home>/skills, then skills.external_dirs, then the bundled
// ones. Every call sees the folders as they are now (a skill installed by another process is seen at
// once): the last scan is reused only while a stat of each folder it read and each SKILL.md it
// parsed shows nothing changed, a few stats a run instead of reading every folder again.

import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { UsageError, type LoadedSkills, type Skill, type SkillProblem, type SkillSource, type SkillSummary, type SkillsService } from 'agent/sdk'
import { parseSkill, SKILL_FILE, type ParsedSkill } from './skill-file.ts'

export interface SkillRoot {
  dir: string
  source: SkillSource
}

const MAX_FILES = 200
const MAX_DEPTH = 4

/** What a scan saw of one path (a folder it listed, a file it read): absent, or its mtime and size. */
interface Seen {
  path: string
  mtimeMs: number | null
  size: number
}

function see(path: string, stat = statSync(path, { throwIfNoEntry: false })): Seen {
  return { path, mtimeMs: stat ? stat.mtimeMs : null, size: stat ? stat.size : 0 }
}

/**
 * A path changed within this long before the scan may change again with the same mtime (file
 * system timestamps are coarse: jiffies on Linux, seconds on some file systems), so a scan that saw
 * one is not reused: git's "racily clean" rule.
 */
const RACY_MS = 2_000

/** True while every path looks as the scan saw it, and none had changed just before the scan. */
function unchanged(seen: readonly Seen[], scannedAt: number): boolean {
  for (const before of seen) {
    if (before.mtimeMs !== null && before.mtimeMs > scannedAt - RACY_MS) return false
    const now = see(before.path)
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) return false
  }
  return true
}

/** Folders holding a SKILL.md (with its stat): `<root>/<name>/` or `<root>/<category>/<name>/`; dot folders skipped. */
function skillDirs(root: string, seen: Seen[]): Array<{ dir: string; stat: Stats }> {
  const out: Array<{ dir: string; stat: Stats }> = []
  const visit = (dir: string, depth: number) => {
    const listed = see(dir)
    seen.push(listed)
    if (listed.mtimeMs === null) return
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue
      const path = join(dir, entry.name)
      if (!entry.isDirectory() && !(entry.isSymbolicLink() && isDirectory(path))) continue
      const file = join(path, SKILL_FILE)
      const stat = statSync(file, { throwIfNoEntry: false })
      if (stat) {
        seen.push(see(file, stat))
        out.push({ dir: path, stat })
      } else if (depth < 2) visit(path, depth + 1)
    }
  }
  visit(root, 1)
  return out
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/** Supporting files of a skill folder, `/`-separated, SKILL.md and dot files excluded. */
export function supportingFiles(dir: string): string[] {
  const out: string[] = []
  const visit = (current: string, depth: number) => {
    if (depth > MAX_DEPTH || out.length >= MAX_FILES) return
    let entries
    try {
      entries = readdirSync(current, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || out.length >= MAX_FILES) continue
      const path = join(current, entry.name)
      if (entry.isDirectory()) visit(path, depth + 1)
      else if (entry.isFile() && !(depth === 0 && entry.name === SKILL_FILE)) out.push(relative(dir, path).split(sep).join('/'))
    }
  }
  visit(dir, 0)
  return out
}

/** Names recorded by the hub as installed from a hub or a site (`<agent_home>/skills/.hub/lock.json`). */
function hubInstalled(userDir: string, cache: HubLockCache, seen: Seen[]): Set<string> {
  const file = join(userDir, '.hub', 'lock.json')
  // statSync without throwing: most homes have no lock file, and an exception per scan is costly.
  const stat = statSync(file, { throwIfNoEntry: false })
  seen.push(see(file, stat))
  if (!stat) return new Set()
  if (cache.file === file && cache.mtimeMs === stat.mtimeMs && cache.size === stat.size) return cache.names!
  let names = new Set<string>()
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { skills?: Record<string, unknown> }
    names = new Set(Object.keys(lock.skills ?? {}))
  } catch {
    // Unreadable or malformed: nothing counts as hub-installed (the hub reports the broken lock).
  }
  Object.assign(cache, { file, mtimeMs: stat.mtimeMs, size: stat.size, names })
  return names
}

/** The last hub lock read, reused while its mtime and size are unchanged. */
export interface HubLockCache {
  file?: string
  mtimeMs?: number
  size?: number
  names?: Set<string>
}

interface Found {
  parsed: ParsedSkill
  source: SkillSource
  dir: string
}

interface Scan {
  skills: Map<string, Found>
  problems: SkillProblem[]
  /** Every folder listed and file read, to tell whether the scan still holds. */
  seen: Seen[]
  scannedAt: number
}

/** SKILL.md parses by path, reused while the file's mtime and size are unchanged. */
export type ParseCache = Map<string, { mtimeMs: number; size: number; parsed?: ParsedSkill; error?: string }>

function parseCached(file: string, stat: Stats, cache: ParseCache): ParsedSkill {
  const hit = cache.get(file)
  if (hit && hit.mtimeMs === stat.mtimeMs && hit.size === stat.size) {
    if (hit.error !== undefined) throw new Error(hit.error)
    return hit.parsed!
  }
  try {
    const parsed = parseSkill(readFileSync(file, 'utf8'))
    cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, parsed })
    return parsed
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0] ?? String(error)
    cache.set(file, { mtimeMs: stat.mtimeMs, size: stat.size, error: reason })
    throw new Error(reason)
  }
}

export function scan(roots: readonly SkillRoot[], userDir: string, cache: ParseCache = new Map(), hubCache: HubLockCache = {}): Scan {
  const scannedAt = Date.now()
  const skills = new Map<string, Found>()
  const problems: SkillProblem[] = []
  const seen: Seen[] = []
  const fromHub = hubInstalled(userDir, hubCache, seen)
  for (const root of roots) {
    for (const { dir, stat } of skillDirs(root.dir, seen)) {
      try {
        const parsed = parseCached(join(dir, SKILL_FILE), stat, cache)
        if (skills.has(parsed.name)) continue
        const source: SkillSource = root.source === 'user' && fromHub.has(parsed.name) ? 'hub' : root.source
        skills.set(parsed.name, { parsed, source, dir })
      } catch (error) {
        problems.push({ dir, reason: (error as Error).message })
      }
    }
  }
  return { skills, problems, seen, scannedAt }
}

/** The full skill, with its supporting files listed (only for the skills actually used). */
function complete(found: Found): Skill {
  return { ...found.parsed, source: found.source, dir: found.dir, files: supportingFiles(found.dir) }
}

const summary = ({ parsed: { name, description, version, tags }, source, dir }: Found): SkillSummary => ({ name, description, ...(version ? { version } : {}), tags, source, dir })

/** The prompt block of one skill. */
function skillBlock(skill: Skill): string {
  const files = skill.files.length
    ? `\nSupporting files (read them with the skill_view tool, name "${skill.name}", when the instructions call for them): ${skill.files.join(', ')}`
    : ''
  return `<skill name="${skill.name}">\n${skill.description}${files}\n\n${skill.instructions}\n</skill>`
}

export function createSkillsService(roots: () => readonly SkillRoot[], userDir: string): SkillsService {
  const cache: ParseCache = new Map()
  const hubCache: HubLockCache = {}
  let last: { rootsKey: string; scan: Scan } | undefined
  const current = (): Scan => {
    const list = roots()
    const rootsKey = JSON.stringify(list)
    if (last?.rootsKey === rootsKey && unchanged(last.scan.seen, last.scan.scannedAt)) return last.scan
    last = { rootsKey, scan: scan(list, userDir, cache, hubCache) }
    return last.scan
  }
  return {
    userDir,
    list: () => [...current().skills.values()].map(summary),
    get(name) {
      const found = current().skills.get(name)
      return found ? complete(found) : undefined
    },
    missing(names) {
      const { skills } = current()
      return [...new Set(names)].filter((n) => !skills.has(n))
    },
    load(names): LoadedSkills {
      const wanted = [...new Set(names.map((n) => n.trim()).filter(Boolean))]
      if (wanted.length === 0) return { prompt: '', skills: [] }
      const { skills } = current()
      const unknown = wanted.filter((n) => !skills.has(n))
      if (unknown.length > 0) {
        const available = [...skills.keys()].sort().join(', ') || 'none'
        throw new UsageError(`unknown skill${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (available: ${available})`)
      }
      const loaded = wanted.map((n) => complete(skills.get(n)!))
      const prompt = [
        `The following skill${loaded.length > 1 ? 's are' : ' is'} loaded for this task. Follow ${loaded.length > 1 ? 'their' : 'its'} instructions.`,
        ...loaded.map(skillBlock),
      ].join('\n\n')
      return { prompt, skills: wanted.map((n) => summary(skills.get(n)!)) }
    },
    catalog() {
      const list = [...current().skills.values()]
      if (list.length === 0) return ''
      return ['Skills you can load with the skill_view tool when a task matches:', ...list.map((s) => `- ${s.parsed.name}: ${s.parsed.description}`)].join('\n')
    },
    problems: () => current().problems,
    parse: (text) => parseSkill(text),
  }
}
