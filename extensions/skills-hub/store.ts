// What is installed from hubs and sites: skill folders in <agent_home>/skills/<name>, provenance in
// skills/.hub/lock.json, every install/block/update/remove appended to skills/.hub/audit.log.
// Files are written to a quarantine folder first and renamed into place in one step.

import { createHash, randomBytes } from 'node:crypto'
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { Trust } from './policy.ts'
import type { Verdict } from './scan.ts'
import type { Offer } from './sources.ts'

export interface LockEntry {
  identifier: string
  origin: Offer['origin']
  trust: Trust
  version?: string
  verdict: Verdict
  findings: number
  forced: boolean
  /** Hash over every file (path and content). */
  sha256: string
  files: string[]
  installed_at: string
  updated_at: string
}

export interface LockFile {
  version: 1
  skills: Record<string, LockEntry>
}

export function hubDir(userDir: string): string {
  return join(userDir, '.hub')
}

export function readLock(userDir: string): LockFile {
  try {
    const parsed = JSON.parse(readFileSync(join(hubDir(userDir), 'lock.json'), 'utf8')) as LockFile
    if (parsed && typeof parsed.skills === 'object' && parsed.skills !== null) return { version: 1, skills: parsed.skills }
  } catch {
    // Missing or unreadable: nothing recorded.
  }
  return { version: 1, skills: {} }
}

export async function writeLock(userDir: string, lock: LockFile): Promise<void> {
  mkdirSync(hubDir(userDir), { recursive: true, mode: 0o700 })
  await writeFileAtomic(join(hubDir(userDir), 'lock.json'), JSON.stringify(lock, null, 2) + '\n', { mode: 0o600 })
}

export function audit(userDir: string, event: Record<string, unknown>): void {
  mkdirSync(hubDir(userDir), { recursive: true, mode: 0o700 })
  appendFileSync(join(hubDir(userDir), 'audit.log'), JSON.stringify({ at: new Date().toISOString(), ...event }) + '\n', { mode: 0o600 })
}

/** A stable hash of a set of files: sorted paths with the hash of each content. */
export function contentHash(files: ReadonlyMap<string, Buffer>): string {
  const hash = createHash('sha256')
  for (const path of [...files.keys()].sort()) {
    hash.update(path).update('\0').update(createHash('sha256').update(files.get(path)!).digest('hex')).update('\n')
  }
  return hash.digest('hex')
}

/** The files of an installed skill folder (dot files skipped), for re-hashing. */
export function readFolder(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>()
  const visit = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue
      const path = join(current, entry.name)
      if (entry.isDirectory()) visit(path)
      else if (entry.isFile()) files.set(relative(dir, path).split(sep).join('/'), readFileSync(path))
    }
  }
  if (existsSync(dir)) visit(dir)
  return files
}

/**
 * Writes the files to a quarantine folder, then swaps it into `<userDir>/<name>`; the previous
 * folder (an update) is kept aside until the swap worked and restored if it did not.
 */
export function placeSkill(userDir: string, name: string, files: ReadonlyMap<string, Buffer>): string {
  const hub = hubDir(userDir)
  const quarantine = join(hub, 'quarantine', `${name}-${randomBytes(4).toString('hex')}`)
  mkdirSync(quarantine, { recursive: true, mode: 0o700 })
  try {
    for (const [path, bytes] of files) {
      const target = join(quarantine, ...path.split('/'))
      if (!target.startsWith(quarantine + sep)) throw new Error(`unsafe path "${path}"`)
      mkdirSync(dirname(target), { recursive: true })
      writeFileSync(target, bytes, { mode: 0o644 })
    }
    const destination = join(userDir, name)
    const backup = existsSync(destination) ? join(hub, 'backup', `${name}-${Date.now()}`) : undefined
    if (backup) {
      mkdirSync(dirname(backup), { recursive: true })
      renameSync(destination, backup)
    }
    try {
      renameSync(quarantine, destination)
    } catch (error) {
      if (backup) renameSync(backup, destination)
      throw error
    }
    if (backup) rmSync(backup, { recursive: true, force: true })
    return destination
  } finally {
    rmSync(quarantine, { recursive: true, force: true })
  }
}

export function removeFolder(path: string): void {
  if (existsSync(path) && statSync(path).isDirectory()) rmSync(path, { recursive: true, force: true })
}
