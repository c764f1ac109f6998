// Which changes to a repository's git config a sandboxed command may make. The sandbox cannot make
// `.git/config` read-only: git rewrites it in ordinary work (`git push -u`, `git remote add`,
// `git checkout -b x origin/x`, `git init`). But a setting there can make git run a program, or
// write or read a file, for whoever uses the repository next, outside the sandbox (`core.fsmonitor`,
// `core.hooksPath`, a filter, an alias, `include.path`, `http.cookieFile`, `core.worktree`). So a
// change is read the way git reads it (`git config --list`) and kept only when every setting it adds
// or changes is one ordinary git commands write, with a value that names no program; anything else,
// or a file git cannot read, is refused (sandbox-sentry.ts undoes it).

import { execFileSync } from 'node:child_process'

/**
 * Settings git and its usual tools write into a repository's config, none of which names a program
 * or a file: an allowlist, so a setting git adds in a later version is refused until listed here.
 */
const SAFE: readonly RegExp[] = [
  /^core\.(?:repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|sparsecheckout|sparsecheckoutcone|quotepath|untrackedcache|splitindex|commitgraph|multipackindex|checkstat|trustctime|preloadindex|abbrev|longpaths|fscache)$/,
  /^remote\.[^\n]+\.(?:url|pushurl|fetch|tagopt|prune|prunetags|skipdefaultupdate|skipfetchall|promisor|partialclonefilter)$/,
  /^branch\.[^\n]+\.(?:remote|pushremote|merge|rebase|description|vscode-merge-base|gh-merge-base|github-pr-owner-number)$/,
  /^submodule\.[^\n]+\.(?:url|active|branch|shallow|fetchrecursesubmodules|ignore|update)$/,
  /^(?:user|author|committer)\.(?:name|email|signingkey|usesignature)$/,
  /^(?:extensions|index|pack|feature|color|advice|status|log|rerere|column|notes|receive|versionsort|worktree|sparse|i18n)\.[^\n]+$/,
  /^gc\.(?:auto|autopacklimit|autodetach|pruneexpire|reflogexpire|reflogexpireunreachable|worktreepruneexpire|writecommitgraph|bigpackthreshold|aggressivewindow|aggressivedepth)$/,
  /^maintenance\.(?:auto|strategy|[a-z-]+\.(?:enabled|schedule))$/,
  /^fetch\.(?:prune|prunetags|recursesubmodules|writecommitgraph|parallel|negotiationalgorithm|showforcedupdates|output|fsckobjects|unpacklimit)$/,
  /^http\.(?:[^\n]+\.)?(?:extraheader|postbuffer|version|lowspeedlimit|lowspeedtime)$/,
  /^lfs\.(?:repositoryformatversion|url|pushurl|fetchinclude|fetchexclude|locksverify|concurrenttransfers|[^\n]+\.(?:access|locksverify))$/,
  /^(?:init\.defaultbranch|pull\.(?:rebase|ff)|push\.(?:default|autosetupremote|followtags|recursesubmodules|usebitmaps)|merge\.(?:ff|conflictstyle|log|renamelimit|autostash|renames)|rebase\.(?:autosquash|autostash|updaterefs|abbreviatecommands|missingcommitscheck|stat)|diff\.(?:algorithm|renames|colormoved|mnemonicprefix|noprefix|context|indentheuristic|submodule|renamelimit)|commit\.(?:gpgsign|verbose|cleanup|status)|tag\.(?:gpgsign|sort|forcesignannotated))$/,
]

/** Keys whose value is a URL or a remote git may reach by one (a branch's remote may be a URL). */
const URL_VALUED = /^(?:remote\.[^\n]+\.(?:url|pushurl)|branch\.[^\n]+\.(?:remote|pushremote)|submodule\.[^\n]+\.url|lfs\.(?:url|pushurl))$/
/** A URL that names a transport helper (`x::…`, e.g. `ext::sh -c …`): git runs a program for it. */
const HELPER_URL = /^\s*[a-z0-9+.-]+::/i
/** `submodule.<name>.update` may be `!command`: only git's own methods. */
const UPDATE_METHODS = new Set(['checkout', 'rebase', 'merge', 'none'])

function acceptable(key: string, value: string | undefined): boolean {
  if (/^submodule\.[^\n]+\.update$/.test(key)) return value !== undefined && UPDATE_METHODS.has(value.trim())
  if (URL_VALUED.test(key) && value !== undefined && HELPER_URL.test(value)) return false
  return SAFE.some((re) => re.test(key))
}

/** One setting as git reads it: section and key lower-cased, subsection as written; no value for a bare `key`. */
export type GitConfigEntry = [key: string, value: string | undefined]

/**
 * The settings in a config file's bytes, as git reads them; throws on a file git refuses. `git`:
 * the binary, from a folder a sandboxed command cannot write (sandbox-places.ts).
 */
export function gitConfigEntries(bytes: Buffer | undefined, git = 'git'): GitConfigEntry[] {
  if (!bytes || bytes.length === 0) return []
  const out = execFileSync(git, ['config', '--no-includes', '--file', '-', '--list', '--null'], {
    input: bytes,
    // Only what git needs to find itself: no GIT_CONFIG_* from the agent's environment.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    timeout: 5000,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  // `key\nvalue\0`, or `key\0` without a value. A subsection may hold `=` and `.`, never a newline.
  return out
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((entry): GitConfigEntry => {
      const at = entry.indexOf('\n')
      return at < 0 ? [entry, undefined] : [entry.slice(0, at), entry.slice(at + 1)]
    })
}

/**
 * The settings `after` adds or changes over `before` that a sandboxed command may not make (empty:
 * the change is fine). Removing a setting is fine. A file git cannot read is refused as a whole.
 */
export function refusedGitConfigChange(before: Buffer | undefined, after: Buffer, git?: string): string[] {
  let old: Set<string>
  let now: GitConfigEntry[]
  try {
    if (git === undefined) throw new Error('git was not found on PATH')
    old = new Set(gitConfigEntries(before, git).map((entry) => JSON.stringify(entry)))
    now = gitConfigEntries(after, git)
  } catch (error) {
    return [`(a file git cannot read: ${String((error as { stderr?: Buffer }).stderr ?? error).trim().split('\n')[0]})`]
  }
  return now.filter((entry) => !old.has(JSON.stringify(entry)) && !acceptable(...entry)).map(([key]) => key)
}
