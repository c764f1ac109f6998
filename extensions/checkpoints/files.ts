// What a snapshot may hold: never the agent's own home (compared by real path), never the
// always-excluded names (dependency folders, caches, env files), never a nested repository or
// submodule, and only what git lists (`git ls-files -co --exclude-standard`): the project's own in a
// git work tree (its ignore rules), else the shadow repository's (the folder's .gitignore files).

import { realpathSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { SAFE_CONFIG, spawnGit } from './git.ts'

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

/** `ls-files` arguments: tracked plus untracked-not-ignored files, NUL-separated. */
export const LIST_FILES = ['-c', 'core.quotepath=false', 'ls-files', '-z', '--cached', '--others', '--exclude-standard']

/**
 * The files of `dir` as its own git repository sees them (tracked plus untracked-not-ignored, with
 * the project's .gitignore files, .git/info/exclude and the user's excludes file), filtered by
 * keptFiles. undefined when `dir` is not in a git work tree (or git refuses it): the caller then
 * lists the folder with the shadow repository's own `ls-files`.
 */
export async function projectFiles(dir: string, homeRel: string | undefined, env: Record<string, string>, timeoutMs: number): Promise<string[] | undefined> {
  // The project's git with the user's config (its excludes file counts), but none of the programs
  // a repository's config can name (SAFE_CONFIG), and no index refresh written into the project.
  const result = await spawnGit([...SAFE_CONFIG, ...LIST_FILES], {
    cwd: dir,
    env: { ...env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
    timeoutMs,
  })
  if (result.code !== 0) return undefined
  return keptFiles(dir, result.stdout, homeRel)
}

/**
 * The files of an `ls-files -z` listing a snapshot holds: keepPath, and never a directory. git lists
 * a nested repository (any folder with a valid `.git` folder or file) as `sub/`, never its files,
 * and a submodule or an old gitlink as `sub`: all left out, so nothing is ever staged as a gitlink
 * and no later git looks inside one (for a gitlink, `git add` runs `git status` in it, under that
 * repository's config). Its files are not snapshotted: it has a history of its own (unless the
 * folder was snapshotted before it became one: git then lists its files, plain files to us).
 */
export async function keptFiles(dir: string, listing: string, homeRel: string | undefined): Promise<string[]> {
  const listed = [...new Set(listing.split('\0'))].filter((rel) => keepPath(rel, homeRel))
  const kept: string[] = []
  for (let i = 0; i < listed.length; i += 256) {
    const batch = listed.slice(i, i + 256)
    const stats = await Promise.all(batch.map((rel) => lstat(join(dir, rel)).catch(() => undefined)))
    // A missing file stays in the list: `update-index --remove` then drops it from the snapshot.
    batch.forEach((rel, j) => void (stats[j]?.isDirectory() ? undefined : kept.push(rel)))
  }
  return kept
}
