// What the terminal sandbox makes read-only: the places the file tools protect (sdk protected-paths:
// the agent's home and code, the user's login and shell files, credentials, system folders) that
// exist, the working folders' agent settings and the git hooks that run there, and the folders on
// PATH (sandbox-extra.ts). Each folder that holds one becomes a mount point as well, because a mount
// point cannot be renamed: `mv ~ ~.old && mkdir ~` would otherwise leave the read-only places behind
// and give the command a fresh, writable home. The agent's secret files are hidden, and the sockets
// of services that run commands for a client are masked.

import { lstatSync, readdirSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, sep } from 'node:path'
import { pathClassifier, PROJECT_CONFIG_PLACES, type PathClassifier } from 'agent/sdk'
import { agentSecretFiles, agentSecretFolders, hostDevices, pathFolders, serviceSockets, tmuxFolders } from './sandbox-extra.ts'
import { gitPlacesOf, type WatchedConfig } from './sandbox-git.ts'
import { existingReal } from './sentry-files.ts'
import { modesOf, trustedProgram, watchedPlaces, type Sentinels } from './sandbox-watched.ts'

export interface SandboxScope {
  agentHome: string
  home: string
  /** Where commands run and what the agent reads project settings from (the command's folder, the session's, terminal.cwd, the agent's own). */
  folders: string[]
  /** The shell's PATH. */
  path?: string
  uid?: number
}

export interface SandboxPlaces {
  /** Existing real paths mounted read-only. */
  readOnly: string[]
  /**
   * Their folders up to the root (exclusive), and the root's own folders, mounted on themselves so
   * they cannot be renamed (the root itself is read-only: bwrapArgs).
   */
  pinned: string[]
  /** Files an empty file is mounted over (the agent's secrets; service sockets). */
  hidden: string[]
  /** Folders an empty one is mounted over (tmux's sockets, the agent's credential folders). */
  emptied: string[]
  /** The host's devices given beside bwrap's minimal /dev (sandbox-extra.ts `hostDevices`). */
  devices: string[]
  /** What no mount covers, watched while the command runs (sandbox-sentry.ts). */
  sentinels: Sentinels
}

/** Kernel file systems: bwrap gives the sandbox its own /proc (its /proc/sys and /sys read-only) and /dev (with a few of the host's devices). */
const LEFT_AS_IS = ['/proc', '/sys', '/dev']

/**
 * Folders where ordinary tools keep caches and locks next to config that runs code (gpg's trust
 * database, kubectl's discovery cache, docker buildx, the AWS SSO cache): only the config files are
 * made read-only there, so `git commit -S` or `kubectl get` still work in the sandbox.
 */
const NARROWED: Record<string, readonly string[]> = {
  '.gnupg': ['gpg.conf', 'gpg-agent.conf', 'dirmngr.conf', 'common.conf', 'sshcontrol'],
  '.kube': ['config'],
  '.docker': ['config.json', 'daemon.json', 'cli-plugins'],
  '.aws': ['config', 'credentials'],
  '.config/gh': ['config.yml', 'hosts.yml'],
}

/**
 * Version managers whose shims (a read-only PATH folder) run their own code from elsewhere in the
 * home, and the files login scripts source from them (`~/.cargo/env`): read-only too, where the
 * manager is installed (versions and packages stay writable, so `pip install` into a pyenv Python
 * works; installing a manager needs outside_sandbox).
 */
const MANAGER_CODE: Record<string, readonly string[]> = {
  '.cargo': ['env', 'env.fish', 'env.nu'],
  '.pyenv': ['bin', 'libexec', 'plugins', 'pyenv.d', 'version'],
  '.rbenv': ['bin', 'libexec', 'plugins', 'rbenv.d'],
  '.nodenv': ['bin', 'libexec', 'plugins', 'nodenv.d'],
  '.goenv': ['bin', 'libexec', 'plugins'],
  '.asdf': ['bin', 'lib', 'libexec', 'plugins', 'asdf.sh'],
  '.volta': ['bin'],
}

function managerCode(home: string): string[] {
  return Object.entries(MANAGER_CODE).flatMap(([root, parts]) => (lstatSync(join(home, root), { throwIfNoEntry: false }) ? parts.map((part) => join(home, root, part)) : []))
}

/** A working folder's own: what the kernel loads from it (project settings). Its git places: sandbox-git.ts. */
const WORKSPACE = [...PROJECT_CONFIG_PLACES.filter((place) => !place.includes('/')), '.agent']

/** Per agent home and user home: the classifier and the fixed places (resolving every rule's root takes ms). */
const fixedPlaces = new Map<string, { classifier: PathClassifier; paths: readonly string[] }>()

function fixed(scope: SandboxScope): { classifier: PathClassifier; paths: readonly string[] } {
  const key = `${scope.agentHome}\0${scope.home}`
  let found = fixedPlaces.get(key)
  if (!found) {
    const classifier = pathClassifier({ agentHome: scope.agentHome, home: scope.home })
    const paths = classifier.places().flatMap((place) => {
      const rel = place.path.startsWith(scope.home + sep) ? place.path.slice(scope.home.length + 1) : undefined
      const narrowed = rel === undefined ? undefined : NARROWED[rel]
      return narrowed ? narrowed.map((name) => join(place.path, name)) : [place.path]
    })
    if (fixedPlaces.size >= 8) fixedPlaces.clear()
    fixedPlaces.set(key, (found = { classifier, paths }))
  }
  return found
}

export function sandboxPlaces(given: SandboxScope): SandboxPlaces {
  // Real working folders: a folder reached through a link is the folder it leads to (bwrap mounts
  // there), and a link on the way is not something to move aside.
  const scope = { ...given, folders: [...new Set(given.folders.map((folder) => existingReal(folder) ?? folder))] }
  const { classifier, paths } = fixed(scope)
  const wanted = new Set([...paths, ...managerCode(scope.home)])
  const onPath = pathFolders(scope.path, scope.folders)
  const git = trustedProgram('git', onPath, paths)
  const configs: WatchedConfig[] = []
  for (const folder of scope.folders) {
    for (const rel of WORKSPACE) wanted.add(join(folder, rel))
    const found = gitPlacesOf(folder, git)
    for (const place of found.protected) wanted.add(place)
    configs.push(...found.configs)
  }
  for (const dir of onPath) wanted.add(dir)

  const real = new Set<string>()
  for (const path of wanted) {
    const found = existingReal(path)
    if (found && !LEFT_AS_IS.some((dir) => found === dir || found.startsWith(dir + sep))) real.add(found)
  }
  // A place inside another read-only place is covered by it.
  const sorted = [...real].sort()
  const readOnly = sorted.filter((path) => !sorted.some((other) => other !== path && path.startsWith(other === sep ? other : other + sep)))
  const watched = watchedPlaces(wanted, readOnly, configs, LEFT_AS_IS)
  // The folders of read-only places, and the watched names' folders (anchors) with theirs.
  const pinned = new Set<string>()
  for (const start of [...readOnly.map(dirname), ...watched.anchors.map((dir) => existingReal(dir) ?? dir)]) {
    for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) if (!real.has(dir)) pinned.add(dir)
  }
  const rooted = rootFolders()
  for (const dir of rooted) if (!real.has(dir)) pinned.add(dir)
  const hidden = [...agentSecretFiles(scope.agentHome, classifier).map((path) => existingReal(path) ?? path), ...serviceSockets(scope.uid, scope.home)]
  // A project's own chmod is its business (sandbox-sentry.ts), but never the home's, the temp
  // folder's or the root's folders', whatever the working folder is.
  const shared = new Set([scope.home, tmpdir(), ...rooted].map((dir) => existingReal(dir) ?? dir))
  const inWork = (dir: string) => !shared.has(dir) && scope.folders.some((folder) => dir === folder || dir.startsWith(folder + sep))
  const sentinels: Sentinels = { places: watched.places, gitConfigs: watched.gitConfigs, modes: modesOf([...pinned], inWork), ...(git ? { git } : {}) }
  return { readOnly: readOnly.sort(byDepth), pinned: [...pinned].sort(byDepth), hidden, emptied: [...tmuxFolders(scope.uid), ...agentSecretFolders(scope.agentHome)], devices: hostDevices(), sentinels }
}

/**
 * The root's own folders (not its links): the root is made read-only, so that a command run as root
 * cannot rename `/bin` (a link to `usr/bin` on merged-/usr systems) or `/etc` and put its own in place.
 */
function rootFolders(): string[] {
  try {
    return readdirSync(sep, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(sep, entry.name))
      .filter((dir) => !LEFT_AS_IS.includes(dir))
  } catch {
    return []
  }
}

export const byDepth = (a: string, b: string) => a.split(sep).length - b.split(sep).length || a.localeCompare(b)

/** What identifies the read-only places now (paths, and which file each is): a persistent shell started on other ones is stale. */
export function placesKey(places: SandboxPlaces): string {
  return [...places.readOnly, ...places.hidden]
    .map((path) => {
      try {
        const info = statSync(path)
        return `${path}:${info.dev}:${info.ino}`
      } catch {
        return `${path}:-`
      }
    })
    .join('\n')
}
