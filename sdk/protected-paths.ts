// Which paths the agent's tools must not read (`secret`) or may write only with approval
// (`protected`), decided on the real path: symlinks resolved at every level, `..` applied the way the
// kernel applies it, case folded on case-insensitive volumes. Also a lexical classifier for callers
// that only have words (the shell command judge).

import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs'
import { homedir, platform } from 'node:os'
import { dirname, isAbsolute, join, parse, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

/** secret: reading is refused and writing needs approval; protected: writing needs approval. */
export type PathKind = 'secret' | 'protected' | 'ordinary'

export interface PathClass {
  kind: PathKind
  /** The path that was classified (the real path for classifyRealPath). */
  path: string
  /** One line saying why (empty for ordinary paths), e.g. "<agent_home>/.env holds the agent's secrets". */
  reason: string
  /**
   * Which rule group matched: approvals remember grants per area (stable keys). `agent-home` also
   * covers the agent's own code and a project's agent settings; `repository` a git repository's
   * control files.
   */
  area?: 'agent-home' | 'user' | 'system' | 'repository'
  /** The protected place that matched (a rule's folder or file, a `.git` or `.agent` folder, a settings file): grants are kept per place. */
  root?: string
}

export interface PathRoots {
  /** The agent's home (AGENT_HOME). */
  agentHome: string
  /** The user's home; default os.homedir(). */
  home?: string
  /** The agent's own code (kernel, extensions, sdk, its packages); default the folder this file is in belongs to. */
  agentCode?: string
}

/** The agent's installation: this file is `<root>/sdk/protected-paths.ts` (the command judge finds its bin from here). */
export const AGENT_CODE = fileURLToPath(new URL('..', import.meta.url))

/** Where a project's agent settings may live, in the order cosmiconfig searches them (the first one wins). */
export const PROJECT_CONFIG_PLACES = ['.agentrc', '.agentrc.yaml', '.agentrc.yml', '.agentrc.json', 'agent.config.yaml', '.agent/config.yaml'] as const
/** File names of those places that are not inside a `.agent` folder (every `.agent` folder is protected whole). */
const PROJECT_CONFIG_FILES: ReadonlySet<string> = new Set(PROJECT_CONFIG_PLACES.filter((place) => !place.includes('/')))

const MAX_LINKS = 40

/**
 * A tool's `path` argument: validated (a non-empty string without NUL), `~` and `~/…` expanded,
 * relative to `cwd`; `path` as written (for messages) and `real` (see realPath), which is what a tool
 * must check and then operate on.
 */
export function toolPath(raw: unknown, cwd: string, home = homedir()): { path: string; real: string } {
  if (typeof raw !== 'string' || raw.trim() === '') throw new Error('"path" must be a non-empty string')
  if (raw.includes('\0')) throw new Error('"path" must not contain NUL characters')
  const trimmed = raw.trim()
  const expanded = trimmed === '~' ? home : trimmed.startsWith('~/') ? `${home}${sep}${trimmed.slice(2)}` : trimmed
  const path = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded)
  return { path, real: realPath(expanded, cwd) }
}

/**
 * The real path of `path` (absolute, or relative to `cwd`): every symlink resolved, `..` applied
 * after the link before it (as the kernel does). For a path that does not exist yet, where a write
 * after mkdir -p of its folders would land; a dangling symlink resolves to where a write through
 * it would land. Throws on a symlink loop.
 */
export function realPath(path: string, cwd = process.cwd()): string {
  // Not join(): it would apply `..` as text before the links are known.
  const full = isAbsolute(path) ? path : `${cwd}${sep}${path}`
  return walk(full, { links: 0 })
}

function walk(path: string, budget: { links: number }): string {
  const { root } = parse(path)
  const parts = path.slice(root.length).split(/[\\/]+/).filter((p) => p !== '' && p !== '.')
  let current = realpathSync.native(root)
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (part === '..') {
      current = dirname(current)
      continue
    }
    const next = join(current, part)
    let info
    try {
      info = lstatSync(next, { throwIfNoEntry: false })
    } catch {
      info = undefined
    }
    // Missing (or not a folder on the way): taken as the folder mkdir -p would make. Below it nothing
    // is a link yet, but a later `..` climbs back to folders that exist: `missing/../link` goes
    // through the link, as mkdir -p and the write after it would.
    if (!info) {
      current = next
      continue
    }
    if (!info.isSymbolicLink()) {
      current = next
      continue
    }
    if (++budget.links > MAX_LINKS) throw new Error(`too many symbolic links in ${path}`)
    try {
      current = realpathSync.native(next)
    } catch {
      // A dangling link: follow its text, which may itself go through further links.
      const text = readlinkSync(next)
      current = walk(isAbsolute(text) ? text : `${current}${sep}${text}`, budget)
    }
  }
  return current
}

// --- case-insensitive volumes -------------------------------------------------------------------

const probed = new Map<number, boolean>()

/** Whether the volume holding `path` (or its deepest existing ancestor) ignores case. */
export function caseInsensitiveAt(path: string): boolean {
  const fallback = platform() === 'darwin' || platform() === 'win32'
  for (let p = resolve(path); ; p = dirname(p)) {
    let info
    try {
      info = statSync(p, { bigint: false })
    } catch {
      if (dirname(p) === p) return fallback
      continue
    }
    const known = probed.get(info.dev)
    if (known !== undefined) return known
    const name = p.slice(dirname(p).length)
    const flipped = swapCase(name)
    if (flipped !== name) {
      let same = false
      try {
        const other = statSync(dirname(p) + flipped)
        same = other.dev === info.dev && other.ino === info.ino
      } catch {
        same = false
      }
      probed.set(info.dev, same)
      return same
    }
    if (dirname(p) === p) return fallback
  }
}

function swapCase(text: string): string {
  return [...text].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('')
}

// --- classification -----------------------------------------------------------------------------

/** Files in ~/.ssh that hold no secret (everything else there is treated as a private key). */
const SSH_PUBLIC = /^(?:.*\.pub|known_hosts(?:\.old)?|authorized_keys2?|config)$/

/** Credential files under the user's home (read refused). */
const HOME_SECRETS = [
  '.aws/credentials', '.aws/config', '.netrc', '.git-credentials', '.config/gh/hosts.yml', '.docker/config.json',
  '.npmrc', '.pypirc', '.kube/config', '.config/gcloud/credentials.db', '.config/gcloud/access_tokens.db',
  '.config/gcloud/application_default_credentials.json', '.azure/accessTokens.json', '.azure/msal_token_cache.json',
  '.claude/.credentials.json',
]
/** Folders under the user's home whose every file is secret. */
const HOME_SECRET_DIRS = ['.gnupg', '.password-store']
/**
 * The agent's own credential stores under its home (MCP servers' OAuth tokens, the WhatsApp
 * session's keys): secret like its .env. A plugin keeps its credentials in a `*.secret` file.
 */
export const AGENT_SECRET_DIRS = ['mcp/auth', 'whatsapp/auth']

/**
 * Files and folders under the user's home that change what runs at login, in every shell or
 * editor session, or in place of a command on the PATH. Not `~/bin`: the command judge also reads
 * a relative path as one under the home, and `bin/` is in every other project.
 */
const HOME_PROTECTED = [
  '.ssh', '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.bash_aliases', '.bashrc.d', '.profile', '.zshrc',
  '.zshenv', '.zprofile', '.zlogin', '.zlogout', '.config/fish', '.inputrc', '.pam_environment', '.config/environment.d',
  '.xprofile', '.xsession', '.xsessionrc', '.xinitrc', '.gitconfig', '.config/git', '.aws', '.kube', '.gnupg', '.docker',
  '.config/gh', '.config/systemd', '.local/share/systemd', '.config/autostart', '.local/bin', '.cargo/bin',
  '.local/lib', '.vimrc', '.vim', '.config/nvim', '.tmux.conf', '.config/tmux', 'Library/LaunchAgents',
]
/** System folders (writes need approval). Not /var, /opt or /root: temp folders and workspaces live there. */
/** System folders, and those outside them whose files run as root: crontabs, package scripts, run-time units and rules. */
const SYSTEM_PROTECTED = ['/etc', '/boot', '/usr', '/bin', '/sbin', '/lib', '/lib64', '/proc', '/sys', '/dev', '/Library', '/System', '/private/etc', '/var/spool/cron', '/var/spool/anacron', '/var/lib/dpkg', '/var/lib/rpm', '/run/systemd/system', '/run/systemd/transient', '/run/udev/rules.d']
/** /proc/<pid>/environ, /proc/self/environ, /proc/thread-self/environ, /proc/<pid>/task/<tid>/environ, … */
const PROC_ENVIRON = /^\/proc\/.*\/environ$/

interface Rule {
  kind: 'secret' | 'protected'
  area: NonNullable<PathClass['area']>
  /** The folder or file, as written and as its real path. */
  spellings: string[]
  /** Further test on the part below the root ('' for the root itself), '/'-separated. */
  below?: (rel: string) => boolean
  why: string
}

/** A reusable classifier: the roots' real spellings are resolved once (for many paths, e.g. a search walk). */
export interface PathClassifier {
  /** Lexical: `path` absolute (`~`, `~/…` expanded), `..` applied as text. For shell words that may not exist. */
  lexical(path: string): PathClass
  /** On the real path of `path` (absolute, or relative to `cwd`); `path` in the answer is the real path. */
  real(path: string, cwd?: string): PathClass
  /** A path already known to be real (e.g. met in a walk that does not follow links), folded when `fold`. */
  ofReal(path: string, fold: boolean): PathClass
  /**
   * For a file with more than one name (`nlink` > 1): the secret file it is a hard link of, if any.
   * A hard link has no target to resolve, so this compares device and inode with the secret files
   * (those in the secret folders one level deep).
   */
  hardLinkedSecret(path: string): PathClass | undefined
  /** The fixed places the rules name (folders and files, real spellings), whether or not they exist: the terminal sandbox makes them read-only. */
  places(): { path: string; kind: 'secret' | 'protected'; area: NonNullable<PathClass['area']> }[]
}

export function pathClassifier(roots: PathRoots): PathClassifier {
  const home = roots.home ?? homedir()
  const agentHome = roots.agentHome
  const agentCode = roots.agentCode ?? AGENT_CODE
  const first = (rel: string) => rel.split('/')[0] ?? ''
  const rule = (kind: Rule['kind'], area: Rule['area'], root: string, why: string, below?: Rule['below']): Rule => ({ kind, area, spellings: spellings(root), below, why })
  const rules: Rule[] = [
    rule('secret', 'agent-home', agentHome, "holds the agent's secrets", (rel) => first(rel).toLowerCase() === '.env'),
    rule('secret', 'agent-home', agentHome, "is the agent's state database (sessions, pairing, tokens)", (rel) => first(rel).toLowerCase().startsWith('state.db')),
    rule('secret', 'agent-home', agentHome, 'holds a secret key of the agent', (rel) => first(rel).toLowerCase().endsWith('.secret')),
    ...AGENT_SECRET_DIRS.map((rel) => rule('secret', 'agent-home', join(agentHome, rel), "holds the agent's credentials: tokens and keys")),
    rule('protected', 'agent-home', agentHome, "is inside the agent's home (its configuration, secrets and the code it loads)"),
    rule('protected', 'agent-home', agentCode, "is the agent's own code (what it loads and runs, its guards included)"),
    rule('secret', 'user', join(home, '.ssh'), 'may hold a private SSH key', (rel) => rel !== '' && !SSH_PUBLIC.test(rel.split('/').pop() ?? '')),
    ...HOME_SECRETS.map((rel) => rule('secret', 'user', join(home, rel), 'holds credentials')),
    ...HOME_SECRET_DIRS.map((rel) => rule('secret', 'user', join(home, rel), 'holds private keys or passwords')),
    ...HOME_PROTECTED.map((rel) => rule('protected', 'user', join(home, rel), "changes how the user's shell, SSH, git or login behave")),
    ...(platform() === 'win32' ? [] : SYSTEM_PROTECTED.map((dir) => rule('protected', 'system', dir, 'is a system location'))),
  ]
  let secretIds: Map<string, PathClass> | undefined
  const classify = (full: string, fold: boolean): PathClass => {
    const key = (p: string) => (fold ? p.normalize('NFC').toLowerCase() : p)
    const target = key(full)
    if (platform() !== 'win32' && PROC_ENVIRON.test(full)) return { kind: 'secret', path: full, reason: `${full} holds a process's environment (its secrets)`, area: 'system' }
    for (const r of rules) {
      for (const spelling of r.spellings) {
        const root = key(spelling)
        const prefix = root.endsWith(sep) ? root : root + sep
        const rel = target === root ? '' : target.startsWith(prefix) ? target.slice(prefix.length).split(sep).join('/') : undefined
        if (rel === undefined || (r.below && !r.below(rel))) continue
        return { kind: r.kind, path: full, reason: `${full} ${r.why}`, area: r.area, root: r.spellings[0] }
      }
    }
    return byName(full, target.split(sep))
  }
  return {
    lexical(path) {
      const expanded = path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path
      if (!isAbsolute(expanded)) throw new Error(`a lexical path classification needs an absolute path, got ${JSON.stringify(path)}`)
      return classify(resolve(expanded), platform() === 'darwin' || platform() === 'win32')
    },
    real(path, cwd = process.cwd()) {
      const real = realPath(path, cwd)
      return classify(real, caseInsensitiveAt(real))
    },
    ofReal: (path, fold) => classify(path, fold),
    hardLinkedSecret(path) {
      let info
      try {
        info = statSync(path)
      } catch {
        return undefined
      }
      if (info.nlink <= 1) return undefined
      secretIds ??= collectSecretIds(rules.filter((r) => r.kind === 'secret'))
      const found = secretIds.get(`${info.dev}:${info.ino}`)
      return found ? { ...found, reason: `${path} is another name (a hard link) of ${found.reason}` } : undefined
    },
    places() {
      const seen = new Map<string, { path: string; kind: Rule['kind']; area: Rule['area'] }>()
      // A rule with `below` covers part of its root only (the agent home's .env): the root's own rule, if any, says more.
      for (const r of rules) if (!r.below) seen.set(r.spellings.at(-1)!, { path: r.spellings.at(-1)!, kind: r.kind, area: r.area })
      for (const r of rules) if (r.below && !seen.has(r.spellings.at(-1)!)) seen.set(r.spellings.at(-1)!, { path: r.spellings.at(-1)!, kind: r.kind, area: r.area })
      return [...seen.values()]
    },
  }
}

/**
 * What is protected wherever it is, by the names on its path: a project's agent settings and
 * extensions (the kernel loads them from the working folder: a cloned repository's would run), and
 * a git repository's control files (hooks and config name commands git runs: core.fsmonitor on
 * every status). `segments` are the path's parts, case-folded where the volume ignores case.
 */
function byName(full: string, segments: readonly string[]): PathClass {
  // The place is the path up to the named part (`segments` may be case-folded: cut `full` instead).
  const upTo = (index: number) => full.split(sep).slice(0, index + 1).join(sep)
  const dotAgent = segments.indexOf('.agent')
  if (dotAgent !== -1 || PROJECT_CONFIG_FILES.has(segments.at(-1) ?? '')) {
    return { kind: 'protected', path: full, reason: `${full} configures or extends the agent (project settings, extensions)`, area: 'agent-home', root: dotAgent !== -1 ? upTo(dotAgent) : full }
  }
  const dotGit = segments.indexOf('.git')
  if (dotGit !== -1) return { kind: 'protected', path: full, reason: `${full} is a git repository's control file (hooks and config run commands)`, area: 'repository', root: upTo(dotGit) }
  return { kind: 'ordinary', path: full, reason: '' }
}

/** One-off lexical classification (see PathClassifier.lexical). */
export function classifyPath(path: string, roots: PathRoots): PathClass {
  return pathClassifier(roots).lexical(path)
}

/** One-off classification of the real path (see PathClassifier.real). */
export function classifyRealPath(path: string, roots: PathRoots, cwd = process.cwd()): PathClass {
  return pathClassifier(roots).real(path, cwd)
}

/** dev:ino of every existing secret file (rule roots, and their entries one level down), by the class that names it. */
function collectSecretIds(rules: Rule[]): Map<string, PathClass> {
  const ids = new Map<string, PathClass>()
  const add = (path: string, rule: Rule) => {
    try {
      const info = statSync(path)
      if (info.isFile()) ids.set(`${info.dev}:${info.ino}`, { kind: 'secret', path, reason: `${path} (which ${rule.why})`, area: rule.area })
    } catch {
      // Missing: nothing to link to.
    }
  }
  for (const rule of rules) {
    const root = rule.spellings.at(-1)!
    let entries: string[] = []
    try {
      entries = statSync(root).isDirectory() ? readdirSync(root) : []
    } catch {
      continue
    }
    if (!rule.below) add(root, rule)
    for (const name of entries) if (!rule.below || rule.below(name)) add(join(root, name), rule)
  }
  return ids
}

/** A root as written and as its real path (a temp dir or home behind a link, e.g. /tmp on macOS). */
function spellings(root: string): string[] {
  const lexical = resolve(root)
  let real = lexical
  try {
    real = realPath(lexical)
  } catch {
    real = lexical
  }
  return real === lexical ? [lexical] : [lexical, real]
}
