// Finds skills in the skills directories and builds the `skills` service over them. Directories are
// read at call time (a skill installed by another process is seen at once); the first directory
// that holds a name wins: <agent_home>/skills, then skills.external_dirs, then the bundled ones.

import { existsSync, readdirSync, readFileSync, statSync, type Stats } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { UsageError, type LoadedSkills, type Skill, type SkillProblem, type SkillSource, type SkillSummary, type SkillsService } from 'agent/sdk'
import { parseSkill, SKILL_FILE, type ParsedSkill } from './skill-file.ts'

export interface SkillRoot {
  dir: string
  source: SkillSource
}

const MAX_FILES = 200
const MAX_DEPTH = 4

/** Folders holding a SKILL.md (with its stat): `<root>/<name>/` or `<root>/<category>/<name>/`; dot folders skipped. */
function skillDirs(root: string): Array<{ dir: string; stat: Stats }> {
  if (!existsSync(root)) return []
  const out: Array<{ dir: string; stat: Stats }> = []
  const visit = (dir: string, depth: number) => {
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
      const stat = statSync(join(path, SKILL_FILE), { throwIfNoEntry: false })
      if (stat) out.push({ dir: path, stat })
      else if (depth < 2) visit(path, depth + 1)
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
function hubInstalled(userDir: string, cache: HubLockCache): Set<string> {
  const file = join(userDir, '.hub', 'lock.json')
  // statSync without throwing: most homes have no lock file, and an exception per run is costly.
  const stat = statSync(file, { throwIfNoEntry: false })
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
  const skills = new Map<string, Found>()
  const problems: SkillProblem[] = []
  const fromHub = hubInstalled(userDir, hubCache)
  for (const root of roots) {
    for (const { dir, stat } of skillDirs(root.dir)) {
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
  return { skills, problems }
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
  const current = () => scan(roots(), userDir, cache, hubCache)
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
