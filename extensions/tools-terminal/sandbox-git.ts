// The git places of a working folder, found the way git finds them: the first valid `.git` upwards
// from the folder, through a worktree's `.git` file and its `commondir` to the common folder.
// Read-only in the sandbox (sandbox-places.ts): the hooks git runs (the repository's, a worktree's,
// the submodules', and a `core.hooksPath` folder outside the working tree) and the files that point
// git at another repository (a worktree's `.git` file, every `commondir` and `gitdir`). Watched
// instead (sandbox-sentry.ts), because git rewrites them in ordinary work: the config files, the
// worktrees' and the submodules' under `.git/modules` included, and, at every level from the folder
// up to the repository (or the root), the `.git` a `git init` there would make, since git run in
// the folder would then take that repository instead.

import { lstatSync, readdirSync, statSync } from 'node:fs'
import { dirname, isAbsolute, join, resolve, sep } from 'node:path'
import { gitConfigEntries } from './git-config-change.ts'
import { readRegular } from './sentry-files.ts'

export interface WatchedConfig {
  path: string
  /** For a repository a command would create: its `.git`, moved aside whole when it is refused. */
  top?: string
}

export interface GitPlaces {
  /** Made read-only (when they exist; missing ones are watched as protected places). */
  protected: string[]
  configs: WatchedConfig[]
}

/** How deep and how many submodules are looked for under `.git/modules` (names may hold slashes; modules nest). */
const MODULE_DEPTH = 6
const MODULE_LIMIT = 200

export function gitPlacesOf(folder: string, git: string | undefined): GitPlaces {
  const configs: WatchedConfig[] = []
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git')
    const found = repositoryAt(dotGit)
    if (!found) {
      // No repository git would take here (none, or an invalid `.git`): one made here would capture
      // the folder. The root is read-only to commands.
      if (dir !== sep) configs.push({ path: join(dotGit, 'config'), top: dotGit })
      if (dirname(dir) === dir) return { protected: [], configs }
      continue
    }
    const { own, common, pointer } = found
    const config = join(common, 'config')
    const hooksPath = hooksPathOf(config, dir, git)
    const worktrees = listDirs(join(common, 'worktrees'))
    const modules = moduleDirs(join(common, 'modules'))
    const gitDirs = [...new Set([own, common, ...worktrees, ...modules])]
    return {
      protected: [
        ...(pointer ? [dotGit] : []),
        ...gitDirs.flatMap((gitDir) => [join(gitDir, 'hooks'), join(gitDir, 'commondir')]),
        ...worktrees.map((gitDir) => join(gitDir, 'gitdir')),
        // A hooks folder inside the working tree is the project's own files (husky rewrites it on install).
        ...(hooksPath && !hooksPath.startsWith(dir + sep) ? [hooksPath] : []),
      ],
      configs: [...configs, ...[...new Set([config, ...gitDirs.flatMap((gitDir) => [join(gitDir, 'config.worktree'), ...(modules.includes(gitDir) ? [join(gitDir, 'config')] : [])])])].map((path) => ({ path }))],
    }
  }
}

/** The repository git takes for a `.git` here, or undefined when git would go on looking up. */
function repositoryAt(dotGit: string): { own: string; common: string; pointer: boolean } | undefined {
  let info
  try {
    info = lstatSync(dotGit, { throwIfNoEntry: false })
  } catch {
    return undefined
  }
  if (!info) return undefined
  if (info.isDirectory()) return isGitDir(dotGit) ? { own: dotGit, common: dotGit, pointer: false } : undefined
  // A link to a git folder: used as it is (not protected as a pointer: its target would become read-only whole).
  if (info.isSymbolicLink()) return isGitDir(dotGit) ? { own: dotGit, common: commonOf(dotGit), pointer: false } : undefined
  // A worktree or submodule: `gitdir: <path>`, read without following a link or waiting on a FIFO.
  const state = readRegular(dotGit, 64 * 1024)
  const gitDir = state.kind === 'file' ? /^gitdir:\s*(.+?)\s*$/m.exec(state.bytes.toString('utf8'))?.[1] : undefined
  if (!gitDir) return undefined
  const own = isAbsolute(gitDir) ? gitDir : resolve(dirname(dotGit), gitDir)
  return isGitDir(own) ? { own, common: commonOf(own), pointer: true } : undefined
}

/** What git checks before it takes a folder as a repository: a HEAD, and objects and refs (or a commondir). */
function isGitDir(dir: string): boolean {
  const has = (name: string) => {
    try {
      return statSync(join(dir, name), { throwIfNoEntry: false }) !== undefined
    } catch {
      return false
    }
  }
  return has('HEAD') && (has('commondir') || (has('objects') && has('refs')))
}

function commonOf(own: string): string {
  const state = readRegular(join(own, 'commondir'), 64 * 1024)
  const common = state.kind === 'file' ? state.bytes.toString('utf8').trim() : ''
  return common ? (isAbsolute(common) ? common : resolve(own, common)) : own
}

/** Submodules' git folders: any folder with a HEAD under `.git/modules` (a name may hold slashes; modules nest), bounded. */
function moduleDirs(root: string, depth = 0, found: string[] = []): string[] {
  if (depth > MODULE_DEPTH) return found
  for (const dir of listDirs(root)) {
    if (found.length >= MODULE_LIMIT) break
    if (isGitDir(dir)) {
      found.push(dir)
      moduleDirs(join(dir, 'modules'), depth + 1, found)
    } else moduleDirs(dir, depth + 1, found)
  }
  return found
}

function listDirs(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name))
  } catch {
    return []
  }
}

/** Per config file (and its identity): its `core.hooksPath`, parsed once per change (a git process). */
const hooksPaths = new Map<string, { stamp: string; value: string | undefined }>()

/** The folder `core.hooksPath` names (relative: to the working tree), or undefined. */
function hooksPathOf(config: string, workTree: string, git: string | undefined): string | undefined {
  let stamp: string
  try {
    const info = statSync(config)
    stamp = `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`
  } catch {
    return undefined
  }
  let found = hooksPaths.get(config)
  if (found?.stamp !== stamp) {
    const state = readRegular(config)
    let value: string | undefined
    try {
      value = state.kind === 'file' && git ? gitConfigEntries(state.bytes, git).findLast(([key]) => key === 'core.hookspath')?.[1] : undefined
    } catch {
      value = undefined
    }
    if (hooksPaths.size > 64) hooksPaths.clear()
    hooksPaths.set(config, (found = { stamp, value }))
  }
  if (!found.value) return undefined
  const value = found.value.replace(/^~(?=\/|$)/, process.env.HOME ?? '~')
  return isAbsolute(value) ? value : resolve(workTree, value)
}
