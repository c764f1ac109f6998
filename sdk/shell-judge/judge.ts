// What every per-program rule works with: the Judge it reports to (detect.ts makes one per simple
// command), and the readings of a command line that the rule files share: operands and flags, long
// options by prefix, option values, and where a relative path is after the script's `cd`s.

import type { PathContext } from './paths.ts'
import type { FindingKey } from './patterns.ts'
import type { SimpleCommand, Stdin } from './shell-parse.ts'
import { UNKNOWN, type Word } from './words.ts'

export interface Judge {
  emit(key: FindingKey): void
  /** A shell command string to judge as a script of its own (`sh -c BODY`), with its `$0 $1 …`; it reads the command's stdin unless told (`awk '{print | "sh"}'` pipes into it). */
  script(body: Word, args?: Word[], stdin?: Stdin): void
  /** Another command line this one runs (`find -exec …`), judged like a simple command. */
  argv(words: Word[], via: string[]): void
  /** The simple command being judged (stdin, pipeline, function). */
  cmd: SimpleCommand
  /** Files a `chmod +x` of the same script made executable. */
  execTargets: Set<string>
  /** Names the script made run another program (`alias ls=rm`, `cp /bin/rm ./x`): what they then run. */
  renames: Map<string, Word[][]>
  /** Agent home and working directory, for protected paths. */
  paths: PathContext
  /** Where an earlier literal `cd` of the same script went (`/`, `~/x`), when known. */
  cwd?: string
}

export type Rule = (argv: Word[], j: Judge, via: string[]) => void

/** Operands (non-options) and short flag letters, `--` ending options; options may follow operands. */
export function split(argv: Word[], from = 1): { operands: Word[]; flags: string; longs: string[] } {
  const operands: Word[] = []
  let flags = ''
  const longs: string[] = []
  let ended = false
  for (const w of argv.slice(from)) {
    if (!ended && w.value === '--') ended = true
    else if (!ended && w.value.startsWith('--')) longs.push(w.value.slice(2))
    else if (!ended && /^-[^-]/.test(w.value)) flags += w.value.slice(1)
    else operands.push(w)
  }
  return { operands, flags, longs }
}

/**
 * A relative delete target where it is: after an earlier `cd` of the same script (`cd / && rm -rf *`),
 * else in the command's working directory when known (`rm -rf *` run in the home is `rm -rf ~/*`).
 */
export function inCwd(value: string, j: Judge): string {
  if (/^[/~]/.test(value)) return value
  const base = j.cwd !== undefined && /^[/~]/.test(j.cwd) ? j.cwd : j.paths.cwd && /^[/~]/.test(j.paths.cwd) ? (j.cwd !== undefined ? `${j.paths.cwd}/${j.cwd}` : j.paths.cwd) : j.cwd
  return base !== undefined ? `${base}/${value}` : value
}

/**
 * The spellings to check for a path after the script's `cd`s: the path in the directory `cd` went to;
 * after a `cd` to a run-time place (UNKNOWN), also the path as given (judged from the start directory
 * and the home, as every relative write target is).
 */
export function placesOf(value: string, cwd: string | undefined): string[] {
  if (cwd === undefined || /^[/~]/.test(value)) return [value]
  const joined = `${cwd}/${value}`
  return cwd.includes(UNKNOWN) ? [value, joined, ...guessedPlaces(value)] : [joined]
}

const GIT_HOOKS = 'applypatch-msg|pre-applypatch|post-applypatch|pre-commit|pre-merge-commit|prepare-commit-msg|commit-msg|post-commit|pre-rebase|post-checkout|post-merge|pre-push|pre-receive|post-receive|post-update|reference-transaction|push-to-checkout|pre-auto-gc|post-rewrite|sendemail-validate|fsmonitor-watchman|post-index-change'
/**
 * Where a relative name may be after a `cd` to a run-time place (`cd "$d" && echo … > authorized_keys`):
 * names that only matter in a protected folder, and that a project seldom uses for its own files,
 * are taken as in that folder (ordinary names such as `list.txt` or `config` are not guessed).
 */
const GUESSES: Array<[RegExp, (value: string) => string]> = [
  [/^(?:authorized_keys2?|known_hosts|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?|rc)$/, (v) => `~/.ssh/${v}`],
  [new RegExp(`^(?:${GIT_HOOKS})$`), (v) => `.git/hooks/${v}`],
  [new RegExp(`^hooks/(?:${GIT_HOOKS})$`), (v) => `.git/${v}`],
  [/^(?:sudoers|passwd|shadow|gshadow|crontab|ld\.so\.preload)$|^(?:sudoers\.d|cron\.(?:d|hourly|daily|weekly|monthly)|profile\.d|systemd|init\.d|ld\.so\.conf\.d|pam\.d|apt|yum\.repos\.d)\//, (v) => `/etc/${v}`],
]

function guessedPlaces(value: string): string[] {
  const rel = value.replace(/^(?:\.\/)+/, '')
  return GUESSES.filter(([name]) => name.test(rel)).map(([, place]) => place(rel))
}

/**
 * How a program reads its options: short letters that take a value (`-fX`, `-f X`, ending a cluster
 * `-sf X`), letters whose value is optional (only attached: `-i.bak`), long options that take the next
 * word when not given with `=`; `posix`: options end at the first operand (GNU programs permute).
 */
export interface Getopt {
  arg?: string
  optional?: string
  long?: string[]
  posix?: boolean
}

export interface Options {
  operands: Word[]
  /** Options in order: a short one by its letter, a long one by its name (a listed one by its full name when given as a prefix). */
  options: Array<{ name: string; value?: Word }>
}

/** A command line read as getopt reads it: clusters, attached values, long options by prefix, `--`. */
export function getopt(argv: Word[], spec: Getopt, from = 1): Options {
  const out: Options = { operands: [], options: [] }
  for (let i = from; i < argv.length; i++) {
    const w = argv[i]!
    if (w.value === '--') return out.operands.push(...argv.slice(i + 1)), out
    if (w.value.startsWith('--')) {
      const eq = w.value.indexOf('=')
      const name = fullLong(w.value.slice(2, eq < 0 ? undefined : eq), spec.long ?? [])
      if (eq >= 0) out.options.push({ name, value: { ...w, value: w.value.slice(eq + 1) } })
      else out.options.push(spec.long?.includes(name) ? { name, value: argv[++i] } : { name })
      continue
    }
    if (!/^-./.test(w.value)) {
      if (spec.posix) return out.operands.push(...argv.slice(i)), out
      out.operands.push(w)
      continue
    }
    for (let k = 1; k < w.value.length; k++) {
      const c = w.value[k]!
      const takes = spec.arg?.includes(c)
      if (!takes && !spec.optional?.includes(c)) {
        out.options.push({ name: c })
        continue
      }
      const rest = w.value.slice(k + 1)
      out.options.push({ name: c, value: rest ? { ...w, value: rest } : takes ? argv[++i] : undefined })
      break
    }
  }
  return out
}

/** A listed long option given by a prefix only it has (`--targ` is `--target-directory`). */
function fullLong(given: string, longs: string[]): string {
  if (longs.includes(given)) return given
  const matches = longs.filter((l) => prefixOf(given, l))
  return matches.length === 1 ? matches[0]! : given
}

/** Values of the options named (letters and long names) in a `getopt` reading. */
export const valuesOf = (read: Options, ...names: string[]): Word[] => read.options.flatMap((o) => (o.value && names.includes(o.name) ? [o.value] : []))
/** Whether a `getopt` reading has one of the options named (a long one also by a prefix). */
export const hasOption = (read: Options, ...names: string[]): boolean => read.options.some((o) => names.includes(o.name) || (o.name.length > 1 && names.some((n) => n.length > 1 && prefixOf(o.name, n))))

/** A long option given as any unambiguous prefix (GNU getopt, git): `--rec` is `--recursive`. */
export const longIs = (longs: string[], full: string) => longs.some((l) => prefixOf(l.split('=')[0]!, full))
const prefixOf = (given: string, full: string) => given.length > 0 && full.startsWith(given)

/** Values of an option given as `-o X`, `--output X` or `--output=X`. */
export function optionValues(argv: Word[], option: RegExp): Word[] {
  const out: Word[] = []
  argv.forEach((w, i) => {
    const [name, value] = w.value.includes('=') && w.value.startsWith('--') ? [w.value.slice(0, w.value.indexOf('=')), w.value.slice(w.value.indexOf('=') + 1)] : [w.value, undefined]
    if (!option.test(name!)) return
    if (value !== undefined) out.push({ ...w, value })
    else if (argv[i + 1]) out.push(argv[i + 1]!)
  })
  return out
}

/** Options of a program that runs another (`npx`, `node SCRIPT`): those that take no value and those that take the next word. */
export interface RunnerOptions {
  switches: readonly string[]
  values: readonly string[]
}

/**
 * Where the program a runner runs may start (`npx [options] PROGRAM …`, `node [options] SCRIPT …`),
 * first option words from `from`. A listed switch takes no value, a listed value option the next
 * word; any other option may or may not (npx takes the next word, npm's own parser does not), so
 * both readings are kept: guessing either way would let a word hide the program. `--` ends options.
 * `onOption` learns every option word of every reading (a runner's `-c CMD` is in one of them).
 */
export function programStarts(argv: Word[], from: number, spec: RunnerOptions, onOption?: (at: number) => void): number[] {
  const starts = new Set<number>()
  const seen = new Set<number>()
  const queue = [from]
  while (queue.length) {
    const i = queue.pop()!
    if (seen.has(i) || i >= argv.length) continue
    seen.add(i)
    const w = argv[i]!.value
    if (w === '--') starts.add(i + 1)
    else if (!w.startsWith('-') || w === '-') starts.add(i)
    else {
      onOption?.(i)
      if ((w.startsWith('--') && w.includes('=')) || isSwitch(w, spec.switches)) queue.push(i + 1)
      else if (spec.values.includes(w.replace(/^--?/, ''))) queue.push(i + 2)
      else queue.push(i + 1, i + 2)
    }
  }
  return [...starts].filter((s) => s < argv.length).sort((a, b) => a - b)
}

/** A listed switch, or a short cluster of listed switch letters (`-yq`). */
const isSwitch = (w: string, switches: readonly string[]) => switches.includes(w.replace(/^--?/, '')) || (/^-[^-]/.test(w) && [...w.slice(1)].every((c) => switches.includes(c)))
