// The git places of a working folder, found the way git finds them: `.git` upwards from the folder,
// through a worktree's `.git` file and its `commondir` to the common folder. Read-only in the sandbox
// (sandbox-places.ts): the hooks git runs (the repository's, a worktree's, and the folder
// `core.hooksPath` names), the files that point git at another repository (a worktree's `.git`
// file, `commondir`). Watched instead (sandbox-sentry.ts), because git rewrites them in ordinary
// work: the config files, including the submodules' under `.git/modules`, and, at every level from
// the folder up to the repository (or the root), the `.git/config` a `git init` there would make,
// since git run in the folder would then take that repository instead.

import { lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
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

export function gitPlacesOf(folder: string, git: string | undefined): GitPlaces {
  const configs: WatchedConfig[] = []
  for (let dir = resolve(folder); ; dir = dirname(dir)) {
    const dotGit = join(dir, '.git')
    let info
    try {
      info = statSync(dotGit, { throwIfNoEntry: false })
    } catch {
      info = undefined
    }
    if (!info) {
      // The root is read-only to commands; elsewhere a `git init` here would capture the folder.
      if (dir !== sep) configs.push({ path: join(dotGit, 'config'), top: dotGit })
      if (dirname(dir) === dir) return { protected: [], configs }
      continue
    }
    const found = info.isDirectory() ? { own: dotGit, common: dotGit } : worktreeDirs(dotGit)
    if (!found) return { protected: [dotGit], configs }
    const { own, common } = found
    const config = join(common, 'config')
    const hooksPath = hooksPathOf(config, dir, git)
    return {
      // `.git` itself when it is a file (a worktree's pointer). Not when it is a link to the git
      // folder: its target would become read-only as a whole, and git could not work.
      protected: [...new Set([...(lstatSync(dotGit).isFile() ? [dotGit] : []), join(own, 'hooks'), join(common, 'hooks'), join(own, 'commondir'), ...(hooksPath ? [hooksPath] : [])])],
      configs: [...configs, ...[...new Set([config, join(own, 'config.worktree'), join(common, 'config.worktree'), ...submoduleConfigs(common)])].map((path) => ({ path }))],
    }
  }
}

/** A worktree or submodule: `gitdir: <path>`, and its `commondir` names the main repository's folder. */
function worktreeDirs(dotGit: string): { own: string; common: string } | undefined {
  const gitDir = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '')?.[1]
  if (!gitDir) return undefined
  const own = isAbsolute(gitDir) ? gitDir : resolve(dirname(dotGit), gitDir)
  const common = readText(join(own, 'commondir'))?.trim()
  return { own, common: common ? (isAbsolute(common) ? common : resolve(own, common)) : own }
}

/** `.git/modules/<name>/config`: git runs in a submodule (with its config) for `git status` in the repository. */
function submoduleConfigs(common: string): string[] {
  try {
    return readdirSync(join(common, 'modules')).map((name) => join(common, 'modules', name, 'config'))
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

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}
