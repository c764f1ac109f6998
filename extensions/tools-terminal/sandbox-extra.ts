// The places of the terminal sandbox that depend on where commands run, found the way the programs
// that use them find them (git's are in sandbox-git.ts): the folders on PATH (a program planted in
// one runs in place of the real one, even in a command a person approves), the agent's secret files
// (hidden, not only read-only: a command has no business reading the keys), and the sockets of
// services that run commands for whoever connects (systemd, D-Bus, tmux).

import { existsSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path'
import type { PathClassifier } from 'agent/sdk'

/**
 * The PATH folders a sandboxed command cannot write once the sandbox makes them read-only (and so the
 * ones to take bwrap from): absolute ones, not a working or temp folder nor inside or above one.
 */
export function pathFolders(path: string | undefined, folders: readonly string[]): string[] {
  const open = [...folders, tmpdir(), '/tmp', '/var/tmp'].map((f) => resolve(f))
  const related = (a: string, b: string) => a === b || a.startsWith(b + sep) || b.startsWith(a + sep)
  return (path ?? '').split(delimiter).filter((dir) => isAbsolute(dir) && !open.some((f) => related(resolve(dir), f)))
}

/** The agent home's secret files (its .env, state.db and its journal, `*.secret`): an empty file is mounted over each. */
export function agentSecretFiles(agentHome: string, classifier: PathClassifier): string[] {
  let names: string[] = []
  try {
    names = readdirSync(agentHome)
  } catch {
    return []
  }
  return names.map((name) => join(agentHome, name)).filter((path) => classifier.real(path).kind === 'secret' && isFile(path))
}

/** Sockets that run what a client asks outside any sandbox: masked (connecting then fails). */
export function serviceSockets(uid: number | undefined): string[] {
  const user = uid === undefined ? [] : [`/run/user/${uid}/bus`, `/run/user/${uid}/systemd/private`]
  return ['/run/systemd/private', '/run/dbus/system_bus_socket', ...user].filter((path) => existsSync(path))
}

/** tmux's socket folder (`tmux -L`/default servers run commands for any client): hidden behind an empty one. */
export function tmuxFolders(uid: number | undefined): string[] {
  return uid === undefined ? [] : [join(tmpdir(), `tmux-${uid}`), `/tmp/tmux-${uid}`].filter((dir, i, all) => all.indexOf(dir) === i && existsSync(dir))
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
