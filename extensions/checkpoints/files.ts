// What a snapshot may hold: never the agent's own home (compared by real path), never the
// always-excluded names (dependency folders, caches, env files), and in a git work tree only what the
// project itself would see (`git ls-files -co --exclude-standard`, with its own ignore rules).

import { realpathSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { spawnGit } from './git.ts'

/** Directories never descended into when counting or snapshotting. */
export const EXCLUDED_DIRS = new Set(['.git', 'node_modules', '.venv', 'venv', '__pycache__', '.cache', '.tox', '.mypy_cache', '.pytest_cache'])
/**
 * File names never snapshotted (gitignore syntax, without slashes: they match at any depth). Env
 * files in their common spellings (`.env.local`, `.env-production`, `prod.env`, direnv's `.envrc`):
 * their secrets would sit as plain git objects in the shadow repository.
 */
export const EXCLUDED_FILES = ['.env', '.env.*', '.env-*', '*.env', '.envrc', '*.pyc', '.DS_Store']

const FILE_PATTERNS = EXCLUDED_FILES.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`))

/** The shadow repository's info/exclude: the always-excluded names, and the agent home when inside. */
export function excludeFile(homeRel: string | undefined): string {
  const lines = [...[...EXCLUDED_DIRS].map((d) => `${d}/`), ...EXCLUDED_FILES]
  if (homeRel) lines.push(`/${escapePattern(homeRel)}/`)
  return lines.join('\n') + '\n'
}

/** A literal path as a gitignore pattern (wildcards, a leading `!`/`#` and trailing spaces escaped). */
export function escapePattern(path: string): string {
  return path.replace(/[\\*?[\]]/g, '\\$&').replace(/^([!#])/, '\\$1').replace(/ $/, '\\ ')
}

function real(path: string): string | undefined {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * Where `home` lies inside `dir`, as a relative path with `/` ('' when they are the same folder), or
 * undefined when it is not inside. Real paths on both sides: a symlinked spelling changes nothing.
 */
export function homeWithin(dir: string, home: string | undefined): string | undefined {
  if (!home) return undefined
  const realDir = real(dir)
  const realHome = real(home)
  if (!realDir || !realHome) return undefined
  const rel = relative(realDir, realHome)
  if (rel === '') return ''
  if (rel.startsWith('..') || rel.startsWith(sep) || /^[A-Za-z]:/.test(rel)) return undefined
  return rel.split(sep).join('/')
}

/** False for paths a snapshot never holds: excluded directories or names, the agent home. */
export function keepPath(rel: string, homeRel: string | undefined): boolean {
  if (rel === '' || rel.endsWith('/')) return false
  if (homeRel !== undefined && (homeRel === '' || rel === homeRel || rel.startsWith(`${homeRel}/`))) return false
  const parts = rel.split('/')
  if (parts.slice(0, -1).some((p) => EXCLUDED_DIRS.has(p))) return false
  const name = parts.at(-1)!
  return !EXCLUDED_DIRS.has(name) && !FILE_PATTERNS.some((re) => re.test(name))
}

/**
 * The files of `dir` as its own git repository sees them (tracked plus untracked-not-ignored, with
 * the project's .gitignore files, .git/info/exclude and the user's excludes file), filtered by
 * keepPath; directories (submodules, nested repositories) left out. undefined when `dir` is not in a
 * git work tree (or git refuses it): the caller falls back to the shadow repository's own walk.
 */
export async function projectFiles(dir: string, homeRel: string | undefined, env: Record<string, string>, timeoutMs: number): Promise<string[] | undefined> {
  // The project's git with the user's config (its excludes file counts), but no fsmonitor hook and
  // no index refresh written into the project.
  const result = await spawnGit(['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: dir,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    timeoutMs,
  })
  if (result.code !== 0) return undefined
  const listed = [...new Set(result.stdout.split('\0'))].filter((rel) => keepPath(rel, homeRel))
  const kept: string[] = []
  for (let i = 0; i < listed.length; i += 256) {
    const batch = listed.slice(i, i + 256)
    const stats = await Promise.all(batch.map((rel) => lstat(join(dir, rel)).catch(() => undefined)))
    // A missing file stays in the list: `update-index --remove` then drops it from the snapshot.
    batch.forEach((rel, j) => void (stats[j]?.isDirectory() ? undefined : kept.push(rel)))
  }
  return kept
}
