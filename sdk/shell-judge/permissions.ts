// Permissions and ownership: `chmod`/`chown`/`chgrp`, and the modes `install -m` / `mkdir -m` give.
// World-writable and set-user-ID / set-group-ID modes need approval; so does changing the root, a
// system directory, a system file or a home (never allowed when recursive over the root or a system
// directory). Which paths those are is paths.ts.

import { getopt, inCwd, longIs, placesOf, split, valuesOf, type Judge, type Rule } from './judge.ts'
import { deleteTargetKey, writeTargetKey } from './paths.ts'
import type { Word } from './words.ts'

/** One `who op perms` action of a symbolic mode (`u+s`, `go-w`, `+x`, `a=rwx`). */
interface Action {
  who: string
  op: string
  perms: string
}

/** A numeric mode's bits (chmod takes leading zeros: `00777`, `04755`), else undefined. */
const octal = (mode: string) => (/^[0-7]{1,5}$/.test(mode) ? parseInt(mode, 8) : undefined)

/** The actions of a symbolic mode: clauses split at `,`, each `[ugoa]*` then one or more `op perms` (`u+x-w`). */
function actions(mode: string): Action[] {
  return mode.split(',').flatMap((clause) => {
    const who = /^[ugoa]*/.exec(clause)![0]
    return [...clause.slice(who.length).matchAll(/([-+=])([rwxXstugo]*)/g)].map((m) => ({ who, op: m[1]!, perms: m[2]! }))
  })
}

const grants = (a: Action, perm: string) => a.op !== '-' && a.perms.includes(perm)

/** Others may write (`777`, `o+w`, `a=rw`; a bare `+w` is left to the umask, which keeps others out). */
export function worldWritable(mode: string): boolean {
  const bits = octal(mode)
  if (bits !== undefined) return (bits & 0o002) !== 0
  return actions(mode).some((a) => /[ao]/.test(a.who) && grants(a, 'w'))
}

/** The set-user-ID or set-group-ID bit: the file runs with its owner's or group's rights (`4755`, `u+s`, `+s`). */
export function setsId(mode: string): boolean {
  const bits = octal(mode)
  if (bits !== undefined) return (bits & 0o6000) !== 0
  return actions(mode).some((a) => (a.who === '' || /[uga]/.test(a.who)) && grants(a, 's'))
}

/** Someone may run the file (`755`, `+x`, `u=rwx`). */
export function makesExecutable(mode: string): boolean {
  const bits = octal(mode)
  if (bits !== undefined) return (bits & 0o111) !== 0
  return actions(mode).some((a) => grants(a, 'x'))
}

/** Findings of a mode given to files (`chmod MODE`, `install -m MODE`, `mkdir -m MODE`). */
export function modeFindings(mode: Word, j: Judge): void {
  if (worldWritable(mode.value)) j.emit('world-writable')
  if (setsId(mode.value)) j.emit('setuid')
}

/**
 * The root or a system directory changed recursively is never allowed; the root, a system
 * directory, a home itself, a system file or a raw disk changed at all needs approval
 * (`chmod 000 /etc`, `chown nobody /etc/sudoers`, `chmod 666 /dev/sda`).
 */
function targets(paths: Word[], recursive: boolean, j: Judge): void {
  for (const t of paths) {
    const where = deleteTargetKey(inCwd(t.value, j))
    if (where === 'rm-root' || (recursive && where === 'rm-system-dir')) j.emit('chmod-root')
    else if (where || placesOf(t.value, j.cwd).some((p) => /^(?:system-config-write|redirect-block-device)$/.test(writeTargetKey(p, j.paths) ?? ''))) j.emit('system-permissions')
  }
}

function permissionRule(kind: 'chmod' | 'chown'): Rule {
  return (argv, j) => {
    const { operands, flags, longs } = split(argv)
    const recursive = /R/.test(flags) || longIs(longs, 'recursive')
    const [mode, ...paths] = operands
    if (kind === 'chown' && recursive) j.emit('chown-recursive')
    if (kind === 'chmod' && mode) modeFindings(mode, j)
    targets(paths, recursive, j)
  }
}

/** Rules of the programs that change permissions (part of the table in rules.ts). */
export const PERMISSIONS: Record<string, Rule> = {
  chmod: permissionRule('chmod'),
  chown: permissionRule('chown'),
  chgrp: permissionRule('chown'),
  mkdir: (argv, j) => valuesOf(getopt(argv, { arg: 'm', long: ['mode'] }), 'm', 'mode').forEach((mode) => modeFindings(mode, j)),
}
