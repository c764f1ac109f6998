// The places of the terminal sandbox that depend on where commands run, found the way the programs
// that use them find them (git's are in sandbox-git.ts): the folders on PATH (a program planted in
// one runs in place of the real one, even in a command a person approves), the agent's secret files
// (hidden, not only read-only: a command has no business reading the keys), and the sockets of
// services that run commands for whoever connects (systemd, D-Bus, tmux, container engines), and
// the host devices the sandbox keeps.

import { existsSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, isAbsolute, join, resolve, sep } from 'node:path'
import { AGENT_SECRET_DIRS, type PathClassifier } from 'agent/sdk'
import { existingReal } from './sentry-files.ts'

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

/**
 * Container and system managers' sockets: whoever connects starts a container with the host's root
 * mounted, or installs a package, as root on the host. A command that needs the engine is run with
 * outside_sandbox (a person is asked).
 */
const ENGINE_SOCKETS = [
  '/run/docker.sock', '/var/run/docker.sock', '/run/podman/podman.sock', '/run/containerd/containerd.sock',
  '/run/k3s/containerd/containerd.sock', '/run/buildkit/buildkitd.sock', '/run/crio/crio.sock', '/run/libvirt/libvirt-sock',
  '/run/snapd.socket', '/var/snap/lxd/common/lxd/unix.socket', '/var/lib/lxd/unix.socket', '/var/lib/incus/unix.socket',
]

/** The same engines run for a user, or by a desktop app, with the socket in the user's places. */
const USER_ENGINE_SOCKETS = ['docker.sock', 'podman/podman.sock', 'containerd-rootless/containerd.sock', 'buildkit/buildkitd.sock']
const HOME_ENGINE_SOCKETS = ['.docker/run/docker.sock', '.docker/desktop/docker.sock', '.colima/default/docker.sock', '.rd/docker.sock', '.lima/default/sock/docker.sock']

/** The agent's credential folders (sdk AGENT_SECRET_DIRS) that exist, as real paths: an empty folder is mounted over each. */
export function agentSecretFolders(agentHome: string): string[] {
  return AGENT_SECRET_DIRS.map((rel) => existingReal(join(agentHome, rel))).filter((real): real is string => real !== undefined && isDirectory(real))
}

/** Sockets that run what a client asks outside any sandbox: masked, as real paths (connecting then fails). */
export function serviceSockets(uid: number | undefined, home: string): string[] {
  const runtime = uid === undefined ? [] : [`/run/user/${uid}/bus`, `/run/user/${uid}/systemd/private`, ...USER_ENGINE_SOCKETS.map((name) => `/run/user/${uid}/${name}`)]
  const paths = ['/run/systemd/private', '/run/dbus/system_bus_socket', ...ENGINE_SOCKETS, ...runtime, ...HOME_ENGINE_SOCKETS.map((name) => join(home, name))]
  const real = paths.map(realSocket).filter((path): path is string => path !== undefined)
  return real.filter((path, i) => real.indexOf(path) === i)
}

function realSocket(path: string): string | undefined {
  const real = existingReal(path)
  return real && statSync(real, { throwIfNoEntry: false })?.isSocket() ? real : undefined
}

/** tmux's socket folder (`tmux -L`/default servers run commands for any client): hidden behind an empty one. */
export function tmuxFolders(uid: number | undefined): string[] {
  return uid === undefined ? [] : [join(tmpdir(), `tmux-${uid}`), `/tmp/tmux-${uid}`].filter((dir, i, all) => all.indexOf(dir) === i && existsSync(dir))
}

/**
 * The host devices a command keeps beside bwrap's own /dev (null, zero, random, tty, a pts of its
 * own): shared memory, GPUs and other accelerators, KVM, FUSE, TUN, sound, the log socket, USB serial
 * boards. Not disks, memory, the console, virtual terminals or input devices: a command run as root
 * would own them (`open('/dev/sda', 'w')` needs no program the judge knows).
 */
const KEPT_DEVICES = /^(shm|mqueue|hugepages|dri|nvidia[\w-]*|kfd|accel|dxg|kvm|fuse|net|snd|log|ttyUSB\d+|ttyACM\d+)$/

export function hostDevices(): string[] {
  try {
    return readdirSync('/dev').filter((name) => KEPT_DEVICES.test(name)).sort().map((name) => `/dev/${name}`)
  } catch {
    return []
  }
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
