// What the terminal sandbox watches instead of mounting (sandbox-sentry.ts watches it): protected
// places that are missing (a mount needs something to mount on) or links in a writable folder (the
// mount is at the target; the link itself can be replaced), the git config files of the working
// folders (sandbox-git.ts), and the modes of the folders it pins (a mount point cannot be renamed,
// but it can be chmod-ed). The folder each watched name lies in becomes a mount point too (an
// anchor), so that the command cannot swap it for a link while the agent repairs the name.

import { lstatSync, readlinkSync, statSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import type { WatchedConfig } from './sandbox-git.ts'
import { existingReal, firstMissing, nearestFolder } from './sentry-files.ts'

export interface WatchedPlace {
  path: string
  /** The link's text, for a link; absent for a missing place. */
  link?: string
  /** What moves aside when a missing place appears: the first component of its path the command made. */
  top: string
}

export interface Sentinels {
  places: WatchedPlace[]
  gitConfigs: WatchedConfig[]
  /** The git that reads them: its real file inside a read-only place (a planted one would run unconfined). */
  git?: string
  /** Pinned folders, their permission bits, and whether they are in a working folder. */
  modes: Array<[path: string, mode: number, inWork: boolean]>
}

/**
 * The watched places among `wanted`, and the folders that must be pinned for them (`anchors`). A
 * name inside a read-only place (or the read-only root) needs no watch: nothing can appear there.
 */
export function watchedPlaces(wanted: Iterable<string>, readOnly: readonly string[], configs: WatchedConfig[], leftAsIs: readonly string[]): { places: WatchedPlace[]; gitConfigs: WatchedConfig[]; anchors: string[] } {
  const folders = new Map<string, boolean>()
  // Most share a folder (the home): each folder's answer once.
  const covered = (dir: string): boolean => {
    let found = folders.get(dir)
    if (found === undefined) {
      const real = existingReal(dir)
      found = real === undefined ? dirname(dir) === dir || covered(dirname(dir)) : real === sep || [...readOnly, ...leftAsIs].some((place) => real === place || real.startsWith(place + sep))
      folders.set(dir, found)
    }
    return found
  }
  const places: WatchedPlace[] = []
  for (const path of wanted) {
    let info
    try {
      // Without throwing for the usual case: most wanted places are missing.
      info = lstatSync(path, { throwIfNoEntry: false })
    } catch {
      info = undefined // under a file or a loop: missing
    }
    if ((info && !info.isSymbolicLink()) || covered(dirname(path))) continue
    places.push(info ? { path, link: readlinkSync(path), top: path } : { path, top: firstMissing(path) })
  }
  const seen = new Set<string>()
  const gitConfigs = configs.filter((config) => !seen.has(config.path) && seen.add(config.path) && !covered(dirname(config.top ?? config.path)))
  const anchors = [...places.map((place) => dirname(place.top)), ...gitConfigs.map((config) => nearestFolder(dirname(config.top ?? config.path)))]
  return { places, gitConfigs, anchors: [...new Set(anchors)].filter((dir) => !covered(dir)) }
}

/** Each folder's permission bits (setuid, setgid, sticky and rwx), and whether `inWork` says it is a project's. */
export function modesOf(folders: readonly string[], inWork: (dir: string) => boolean): Sentinels['modes'] {
  return folders.flatMap((dir): Sentinels['modes'] => {
    try {
      return [[dir, statSync(dir).mode & 0o7777, inWork(dir)]]
    } catch {
      return []
    }
  })
}

/**
 * `name` from the first of `folders` (PATH folders the sandbox makes read-only) that has it, when its
 * real file also lies inside one of `folders` or `trusted`: a link from a read-only PATH folder into
 * a writable one (a package manager's cellar) would otherwise hand the agent a program a command replaced.
 */
export function trustedProgram(name: string, folders: readonly string[], trusted: readonly string[]): string | undefined {
  for (const dir of folders) {
    const real = existingReal(join(dir, name))
    if (real === undefined) continue
    // Usually in a PATH folder itself (/usr/bin): the other places are resolved only when not.
    const inside = (roots: readonly string[]) => roots.some((root) => real.startsWith((existingReal(root) ?? root) + sep))
    return inside(folders) || inside(trusted) ? real : undefined
  }
  return undefined
}
