// Which changes to a repository's git config a sandboxed command may make. The sandbox cannot make
// `.git/config` read-only: git rewrites it in ordinary work (`git push -u`, `git remote add`,
// `git checkout -b x origin/x`, `git init`). But a setting there can make git run a program for
// whoever uses the repository next, outside the sandbox (`core.fsmonitor`, `core.hooksPath`, a
// filter, an alias with `!`, `include.path`). So a change is read the way git reads it (`git config
// --list`) and kept only when every setting it adds or changes is one of the kinds ordinary git
// commands write; anything else, or a file git cannot read, is refused (sandbox-sentry.ts undoes it).

import { execFileSync } from 'node:child_process'

/**
 * Settings git and its usual tools write into a repository's config, none of which names a program:
 * an allowlist, so a setting git adds in a later version is refused until it is listed here.
 */
const SAFE: readonly RegExp[] = [
  /^core\.(?:repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|sparsecheckout|sparsecheckoutcone|worktree|quotepath|untrackedcache|splitindex|commitgraph|multipackindex|checkstat|trustctime|preloadindex|abbrev|longpaths|fscache|excludesfile|attributesfile)$/,
  /^remote\.[^\n]+\.(?:url|pushurl|fetch|tagopt|prune|prunetags|skipdefaultupdate|skipfetchall|promisor|partialclonefilter)$/,
  /^branch\.[^\n]+\.[a-z0-9-]+$/,
  /^submodule\.[^\n]+\.(?:url|active|branch|shallow|fetchrecursesubmodules|ignore)$/,
  /^(?:user|author|committer)\.(?:name|email|signingkey|usesignature)$/,
  /^(?:extensions|gc|maintenance|index|pack|feature|color|advice|status|log|fetch|pull|rerere|column|blame|notes|transfer|receive|versionsort|worktree|sparse|http|i18n)\.[^\n]+$/,
  // Not lfs.customtransfer.*.path or lfs.extension.*.clean (programs git-lfs runs), nor init.templateDir (hooks a re-init copies).
  /^(?:lfs\.(?:repositoryformatversion|url|pushurl|fetchinclude|fetchexclude|locksverify|concurrenttransfers|[^\n]+\.(?:access|locksverify))|init\.defaultbranch)$/,
  /^(?:push\.(?:default|autosetupremote|followtags|recursesubmodules|usebitmaps)|merge\.(?:ff|conflictstyle|log|renamelimit|autostash|renames)|rebase\.(?:autosquash|autostash|updaterefs|abbreviatecommands|missingcommitscheck|stat)|diff\.(?:algorithm|renames|colormoved|mnemonicprefix|noprefix|context|indentheuristic|submodule|renamelimit)|commit\.(?:gpgsign|verbose|cleanup|status|template)|tag\.(?:gpgsign|sort|forcesignannotated))$/,
]

/** A remote URL that names a transport helper (`x::…`, e.g. `ext::sh -c …`): git runs a program for it. */
const HELPER_URL = /^\s*[a-z0-9+.-]+::/i
/** `submodule.<name>.update` may be `!command`: only git's own methods. */
const SUBMODULE_UPDATE = /^submodule\.[^\n]+\.update$/
const UPDATE_METHODS = new Set(['checkout', 'rebase', 'merge', 'none'])

function acceptable(key: string, value: string | undefined): boolean {
  if (SUBMODULE_UPDATE.test(key)) return value !== undefined && UPDATE_METHODS.has(value.trim())
  if (/^remote\.[^\n]+\.(?:url|pushurl)$/.test(key) && value !== undefined && HELPER_URL.test(value)) return false
  return SAFE.some((re) => re.test(key))
}

/**
 * `key=value` entries as git reads them (section and key lower-cased, subsection as written); throws
 * on a file git refuses. `git`: the binary, from a folder a sandboxed command cannot write (sandbox-places.ts).
 */
export function gitConfigEntries(bytes: Buffer | undefined, git = 'git'): string[] {
  if (!bytes || bytes.length === 0) return []
  const out = execFileSync(git, ['config', '--no-includes', '--file', '-', '--list', '--null'], {
    input: bytes,
    // Only what git needs to find itself: no GIT_CONFIG_* from the agent's environment.
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
    timeout: 5000,
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  return out.toString('utf8').split('\0').filter(Boolean).map((entry) => entry.replace('\n', '='))
}

/**
 * The settings `after` adds or changes over `before` that a sandboxed command may not make (empty:
 * the change is fine). Removing a setting is fine. A file git cannot read is refused as a whole.
 */
export function refusedGitConfigChange(before: Buffer | undefined, after: Buffer, git?: string): string[] {
  let old: Set<string>
  let now: string[]
  try {
    if (git === undefined) throw new Error('git was not found on PATH')
    old = new Set(gitConfigEntries(before, git))
    now = gitConfigEntries(after, git)
  } catch (error) {
    return [`(a file git cannot read: ${String((error as { stderr?: Buffer }).stderr ?? error).trim().split('\n')[0]})`]
  }
  return now
    .filter((entry) => !old.has(entry))
    .filter((entry) => {
      const at = entry.indexOf('=')
      return at < 0 ? !acceptable(entry, undefined) : !acceptable(entry.slice(0, at), entry.slice(at + 1))
    })
    .map((entry) => entry.split('=')[0]!)
}
