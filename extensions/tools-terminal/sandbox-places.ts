// What the terminal sandbox makes read-only: the places the file tools protect (sdk protected-paths:
// the agent's home and code, the user's login and shell files, credentials, system folders) that
// exist, plus the working folder's agent settings and git hooks. Each folder that holds one becomes a
// mount point as well, because a mount point cannot be renamed: `mv ~ ~.old && mkdir ~` would
// otherwise leave the read-only places behind and give the command a fresh, writable home.

import { lstatSync, realpathSync } from 'node:fs'
import { dirname, join, sep } from 'node:path'
import { pathClassifier, PROJECT_CONFIG_PLACES } from 'agent/sdk'

export interface SandboxPlaces {
  /** Existing real paths mounted read-only, parents before children. */
  readOnly: string[]
  /** Their folders up to the root (exclusive), mounted on themselves so they cannot be renamed. */
  pinned: string[]
}

/** Kernel file systems: bwrap gives the sandbox its own /proc; /dev and /sys stay as they are. */
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

/** The working folder's own: what the kernel loads from it (project settings) and what git runs. */
const WORKSPACE = [...PROJECT_CONFIG_PLACES.filter((place) => !place.includes('/')), '.agent', '.git/hooks']

/** The fixed places per agent home and user home: classifying them resolves every rule's root (ms); existence is checked per command. */
const fixedPlaces = new Map<string, readonly string[]>()

function fixed(roots: { agentHome: string; home: string }): readonly string[] {
  const key = `${roots.agentHome}\0${roots.home}`
  let paths = fixedPlaces.get(key)
  if (!paths) {
    paths = pathClassifier(roots).places().flatMap((place) => {
      const rel = place.path.startsWith(roots.home + sep) ? place.path.slice(roots.home.length + 1) : undefined
      const narrowed = rel === undefined ? undefined : NARROWED[rel]
      return narrowed ? narrowed.map((name) => join(place.path, name)) : [place.path]
    })
    if (fixedPlaces.size >= 8) fixedPlaces.clear()
    fixedPlaces.set(key, paths)
  }
  return paths
}

export function sandboxPlaces(roots: { agentHome: string; home: string }, cwd: string): SandboxPlaces {
  const wanted = new Set(fixed(roots))
  for (const rel of WORKSPACE) wanted.add(join(cwd, rel))

  const real = new Set<string>()
  for (const path of wanted) {
    const found = existingReal(path)
    if (found && !LEFT_AS_IS.some((dir) => found === dir || found.startsWith(dir + sep))) real.add(found)
  }
  // A place inside another read-only place is covered by it.
  const sorted = [...real].sort()
  const readOnly = sorted.filter((path) => !sorted.some((other) => other !== path && path.startsWith(other === sep ? other : other + sep)))
  const pinned = new Set<string>()
  for (const path of readOnly) {
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) if (!real.has(dir)) pinned.add(dir)
  }
  const byDepth = (a: string, b: string) => a.split(sep).length - b.split(sep).length || a.localeCompare(b)
  return { readOnly: readOnly.sort(byDepth), pinned: [...pinned].sort(byDepth) }
}

/** The real path of an existing file or folder; a dangling link or a missing path is nothing to mount. */
function existingReal(path: string): string | undefined {
  try {
    lstatSync(path)
    return realpathSync(path)
  } catch {
    return undefined
  }
}
