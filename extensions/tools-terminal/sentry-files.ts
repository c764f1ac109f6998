// File operations of the sandbox's watch (sandbox-sentry.ts). The agent runs them outside the
// sandbox on names a command controls, so none follows a link, blocks or copies: a file is read only
// when it is a regular file (opened without following a link, without waiting on a FIFO, and only
// up to a size), whatever must go is renamed (which moves the entry itself, never what a link points
// to), and a file is written back only by an exclusive create. The folder each name lies in is one
// the command cannot rename or swap (a mount point in its sandbox: sandbox-places.ts pins it).

import { randomBytes } from 'node:crypto'
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readlinkSync, readSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

/** A git config is a few KB; anything much larger is refused unread. */
export const MAX_CONFIG_BYTES = 1 << 20

export type FileState = { kind: 'missing' } | { kind: 'file'; bytes: Buffer } | { kind: 'other'; what: string }

/** What is at `path`: a regular file's bytes, or what else it is (a link, a FIFO, a folder, too large). */
export function readRegular(path: string, max = MAX_CONFIG_BYTES): FileState {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return code === 'ENOENT' || code === 'ENOTDIR' ? { kind: 'missing' } : { kind: 'other', what: code === 'ELOOP' ? 'a link' : `unreadable (${code})` }
  }
  try {
    const info = fstatSync(fd)
    if (!info.isFile()) return { kind: 'other', what: info.isDirectory() ? 'a folder' : 'not a regular file' }
    if (info.size > max) return { kind: 'other', what: `larger than ${max} bytes` }
    const bytes = Buffer.alloc(info.size)
    let read = 0
    while (read < bytes.length) {
      const n = readSync(fd, bytes, read, bytes.length - read, read)
      if (n === 0) break
      read += n
    }
    return { kind: 'file', bytes: bytes.subarray(0, read) }
  } finally {
    closeSync(fd)
  }
}

/** A regular file's bytes (see readRegular), else undefined. */
export function fileBytes(path: string): Buffer | undefined {
  const state = readRegular(path)
  return state.kind === 'file' ? state.bytes : undefined
}

/** The link's text; '' for something that is not a link; undefined for nothing (also under a file or a loop). */
export function linkText(path: string): string | undefined {
  try {
    const info = lstatSync(path, { throwIfNoEntry: false })
    return info === undefined ? undefined : info.isSymbolicLink() ? readlinkSync(path) : ''
  } catch {
    return undefined
  }
}

/** `path` renamed to `<path>.agent-blocked-<time>-<random>` (unguessable: a name planted in advance cannot be hit). */
export function moveAside(path: string): string {
  const aside = `${path}.agent-blocked-${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '')}-${randomBytes(6).toString('hex')}`
  renameSync(path, aside)
  return aside
}

/** `bytes` written to `path` only if nothing is there (a link or file a command put back is not followed or overwritten). */
export function createFile(path: string, bytes: Buffer): void {
  writeFileSync(path, bytes, { flag: 'wx', mode: 0o644 })
}

/** The real path of an existing file or folder; undefined for a missing path, a dangling link or one under a file. */
export function existingReal(path: string): string | undefined {
  try {
    // Without throwing for the usual case (missing); under a file (ENOTDIR) or a loop it still throws.
    return lstatSync(path, { throwIfNoEntry: false }) ? realpathSync.native(path) : undefined
  } catch {
    return undefined
  }
}

/** The real path of `dir`, or of its nearest existing folder with the rest as written. */
export function realFolder(dir: string): string {
  return existingReal(dir) ?? (dirname(dir) === dir ? dir : join(realFolder(dirname(dir)), basename(dir)))
}

/** `dir` or its nearest existing ancestor folder (a link to a folder counts: it existed before the command). */
export function nearestFolder(dir: string): string {
  while (dirname(dir) !== dir) {
    try {
      if (statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return dir
    } catch {
      // Under a file or a loop: go up.
    }
    dir = dirname(dir)
  }
  return dir
}

/**
 * The first path from the top down to `path` that does not exist as a folder (`path` itself when
 * its folder exists): what a command made on the way to `path`, moved aside as a whole.
 */
export function firstMissing(path: string): string {
  const anchor = nearestFolder(dirname(path))
  const rest = path.slice(anchor.length).split('/').filter(Boolean)
  return join(anchor, rest[0] ?? '')
}

/** Which file a path is and how it was last changed (a folder's entries too): a change by anyone changes it. */
export function stampOf(path: string): string {
  try {
    const info = lstatSync(path, { throwIfNoEntry: false })
    return info ? `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}` : '-'
  } catch {
    return '-'
  }
}

/** The entries of a hooks folder that are not git's own `*.sample` files. */
export function hooksIn(dir: string): string[] {
  try {
    return readdirSync(dir).filter((name) => !name.endsWith('.sample'))
  } catch {
    return []
  }
}
