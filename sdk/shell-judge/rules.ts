// Per-program rules: given one simple command after its wrappers (see wrappers.ts), which findings
// it raises. Deletes, permissions, disks, processes, the machine, services, git, containers, SQL
// clients, writes onto protected paths. Programs that run code are in interpreters.ts.

import { alias, awk, gitConfig, sedExecutes, interpreterFor, judgeEval, judgeInterpreter, judgeSource, programFrom, scriptPath, trap } from './interpreters.ts'
import { deleteTargetKey, holdsSecrets, isProcessEnviron, isSecretRead, writeTargetKey, type PathContext } from './paths.ts'
import { DB_CLIENTS, SQL_PATTERNS, type FindingKey } from './patterns.ts'
import type { SimpleCommand } from './shell-parse.ts'
import { basename, skipOptions } from './wrappers.ts'
import { UNKNOWN, type Word } from './words.ts'

export interface Judge {
  emit(key: FindingKey): void
  /** A shell command string to judge as a script of its own (`sh -c BODY`). */
  script(body: Word): void
  /** Another command line this one runs (`find -exec …`), judged like a simple command. */
  argv(words: Word[], via: string[]): void
  /** The simple command being judged (stdin, pipeline, function). */
  cmd: SimpleCommand
  /** Files a `chmod +x` of the same script made executable. */
  execTargets: Set<string>
  /** Agent home and working directory, for protected paths. */
  paths: PathContext
  /** Where an earlier literal `cd` of the same script went (`/`, `~/x`), when known. */
  cwd?: string
}

type Rule = (argv: Word[], j: Judge, via: string[]) => void

/** Operands (non-options) and short flag letters, `--` ending options; options may follow operands. */
function split(argv: Word[], from = 1): { operands: Word[]; flags: string; longs: string[] } {
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

/** A relative path after an earlier `cd` of the same script (`cd / && rm -rf *`). */
const inCwd = (value: string, j: Judge) => (j.cwd && !/^[/~]/.test(value) ? `${j.cwd}/${value}` : value)

const writes = (targets: Word[], j: Judge) => {
  for (const t of targets) {
    const key = writeTargetKey(t.value, j.paths)
    if (key) j.emit(key)
  }
}

const rm: Rule = (argv, j, via) => {
  const { operands, flags, longs } = split(argv)
  if (/[rR]/.test(flags) || longs.includes('recursive')) j.emit('recursive-delete')
  if (via.includes('xargs')) j.emit('xargs-rm')
  for (const t of operands) {
    const never = deleteTargetKey(inCwd(t.value, j))
    if (never) j.emit(never)
    else if (t.value.includes(UNKNOWN)) j.emit('delete-unknown-path')
    if (/^[/~]/.test(t.value)) j.emit('delete-absolute-path')
  }
}

const find: Rule = (argv, j, via) => {
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!.value
    if (w === '-delete') j.emit('find-delete')
    if (/^-(?:exec|execdir|ok|okdir)$/.test(w)) {
      const end = argv.findIndex((x, k) => k > i && (x.value === ';' || x.value === '+'))
      const inner = argv.slice(i + 1, end < 0 ? argv.length : end).map((x) => (x.value.includes('{}') ? { value: x.value.replaceAll('{}', UNKNOWN), literal: false } : x))
      if (inner[0] && basename(inner[0].value) === 'rm') j.emit('find-delete')
      if (inner.length) j.argv(inner, [...via, 'find'])
      i = end < 0 ? argv.length : end
    }
  }
}

/** Numeric modes with the others-write bit, or `a+w`/`o=rw` style clauses. */
function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return /[2367]$/.test(mode)
  return mode.split(',').some((clause) => /^[ugoa]*[ao][ugoa]*[+=][rwxXst]*w/.test(clause))
}
const makesExecutable = (mode: string) => (/^[0-7]{3,4}$/.test(mode) ? /[1357]/.test(mode) : /[+=][rwst]*x/.test(mode))

function permissionRule(kind: 'chmod' | 'chown'): Rule {
  return (argv, j) => {
    const { operands, flags, longs } = split(argv)
    const recursive = /R/.test(flags) || longs.includes('recursive')
    const [mode, ...targets] = operands
    if (kind === 'chown' && recursive) j.emit('chown-recursive')
    if (kind === 'chmod' && mode && worldWritable(mode.value)) j.emit('world-writable')
    for (const t of targets) {
      const where = deleteTargetKey(inCwd(t.value, j))
      if (where === 'rm-root' || (recursive && where === 'rm-system-dir')) j.emit('chmod-root')
    }
  }
}

const dd: Rule = (argv, j) => {
  for (const w of argv.slice(1)) {
    if (!w.value.startsWith('of=')) continue
    const target = w.value.slice(3)
    j.emit(writeTargetKey(target) === 'redirect-block-device' ? 'dd-block-device' : 'dd')
    writes([{ ...w, value: target }], j)
  }
}

const kill: Rule = (argv, j) => {
  const args = argv.slice(1).map((w) => w.value)
  if (/^-[lL]$|^--(?:list|table)/.test(args[0] ?? '')) return // lists signal names
  let i = 0
  let signal = ''
  if (args[i] === '-s' || args[i] === '-n') (signal = args[i + 1] ?? ''), (i += 2)
  else if (args[i]?.startsWith('-') && args.length > 1 && args[i] !== '--') signal = args[i++]!.slice(1)
  if (args[i] === '--') i++
  const targets = args.slice(i)
  if (targets.includes('-1') || (args.length === 1 && args[0] === '-1')) return j.emit('kill-all')
  if (/^(?:9|kill|sigkill)$/i.test(signal) || targets.some((t) => t === '0' || t.startsWith('-'))) j.emit('kill-processes')
}

const killByName: Rule = (argv, j) => {
  j.emit('kill-processes')
  if (split(argv).operands.some((w) => /^agent\b/.test(w.value))) j.emit('agent-self')
}

const systemctl: Rule = (argv, j) => {
  // Any operand: options such as `-H host` take a value that split() cannot tell from the verb.
  const verbs = split(argv).operands.map((w) => w.value)
  if (verbs.some((v) => /^(?:poweroff|reboot|halt|kexec|soft-reboot)$/.test(v))) j.emit('shutdown')
  if (verbs.some((v) => /^(?:stop|restart|disable|mask|kill|isolate)$/.test(v))) j.emit('service-control')
}

const git: Rule = (argv, j) => {
  const i = skipOptions(argv, 1, { arg: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'exec-path', 'config-env'] })
  const sub = argv[i]?.value
  const { operands, flags, longs } = split(argv, i + 1)
  const destructive =
    (sub === 'push' && (/[fd]/.test(flags) || longs.some((l) => /^(?:force|force-with-lease|mirror|delete|prune)(?:=|$)/.test(l)) || operands.some((o) => /^[+:]/.test(o.value)))) ||
    (sub === 'reset' && longs.includes('hard')) ||
    (sub === 'clean' && (/f/.test(flags) || longs.includes('force'))) ||
    (sub === 'branch' && (/D/.test(flags) || (longs.includes('delete') && longs.includes('force')) || (/d/.test(flags) && /f/.test(flags))))
  if (destructive) j.emit('git-destructive')
  if (sub === 'config' && operands.length >= 2) gitConfig({ ...operands[1]!, value: `${operands[0]!.value}=${operands[1]!.value}` }, j)
  for (const config of optionValues(argv.slice(0, i), /^-c$|^--config-env$/)) gitConfig(config, j)
}

const container: Rule = (argv, j) => {
  const ops = split(argv).operands.map((w) => w.value)
  const [a, b] = ops
  const hit =
    (a === 'compose' && b === 'down') ||
    /^(?:rm|rmi|stop|kill|restart)$/.test(a ?? '') ||
    (/^(?:container|image|network|volume|system)$/.test(a ?? '') && /^(?:rm|stop|kill|restart|prune)$/.test(b ?? ''))
  if (hit) j.emit('container-destructive')
}

const PROGRAMS: Record<string, Rule> = {
  rm,
  find,
  chmod: permissionRule('chmod'),
  chown: permissionRule('chown'),
  chgrp: permissionRule('chown'),
  dd,
  kill,
  killall: killByName,
  pkill: killByName,
  systemctl,
  loginctl: (argv, j) => /^(?:poweroff|reboot|halt)$/.test(split(argv).operands[0]?.value ?? '') && j.emit('shutdown'),
  service: (argv, j) => /^(?:stop|restart)$/.test(split(argv).operands[1]?.value ?? '') && j.emit('service-control'),
  shutdown: (_, j) => j.emit('shutdown'),
  reboot: (_, j) => j.emit('shutdown'),
  halt: (_, j) => j.emit('shutdown'),
  poweroff: (_, j) => j.emit('shutdown'),
  init: (argv, j) => /^[06]$/.test(argv[1]?.value ?? '') && j.emit('shutdown'),
  telinit: (argv, j) => /^[06]$/.test(argv[1]?.value ?? '') && j.emit('shutdown'),
  git,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  alias,
  trap,
  docker: container,
  podman: container,
  nerdctl: container,
  'docker-compose': (argv, j) => split(argv).operands[0]?.value === 'down' && j.emit('container-destructive'),
  crontab: (argv, j) => {
    const { operands, flags } = split(argv)
    if (/r/.test(flags)) j.emit('crontab-remove')
    else if (operands.length || argv.some((w) => w.value === '-')) j.emit('crontab-replace')
  },
  // at/batch read the commands to run later from stdin (or -f FILE).
  at: (argv, j) => /f/.test(split(argv).flags) || programFrom(undefined, j, true, false),
  batch: (argv, j) => /f/.test(split(argv).flags) || programFrom(undefined, j, true, false),
  iptables: (argv, j) => (/F/.test(split(argv).flags) || split(argv).longs.includes('flush')) && j.emit('firewall-flush'),
  ip6tables: (argv, j) => (/F/.test(split(argv).flags) || split(argv).longs.includes('flush')) && j.emit('firewall-flush'),
  nft: (argv, j) => argv.some((w) => w.value === 'flush') && j.emit('firewall-flush'),
  ufw: (argv, j) => /^(?:disable|reset)$/.test(argv[1]?.value ?? '') && j.emit('firewall-flush'),
  agent: (argv, j) => argv[1]?.value === 'gateway' && /^(?:stop|restart|uninstall)$/.test(argv[2]?.value ?? '') && j.emit('agent-self'),
  diskutil: (argv, j) => /^(?:erase|zero|secureErase|partition|reformat)/i.test(argv[1]?.value ?? '') && j.emit('disk-tools'),
  tee: (argv, j) => writes(split(argv).operands, j),
  cp: (argv, j) => writes(copyTargets(argv, false), j),
  mv: (argv, j) => {
    writes(copyTargets(argv, true), j)
    // Moving `/`, a system directory or a home away is as bad as deleting it.
    for (const t of split(argv).operands.slice(0, -1)) {
      const key = deleteTargetKey(inCwd(t.value, j))
      if (key) j.emit(key)
    }
  },
  install: (argv, j) => writes(copyTargets(argv, false), j),
  ln: (argv, j) => writes(copyTargets(argv, false), j),
  rsync: (argv, j) => writes(copyTargets(argv, false), j),
  truncate: (argv, j) => writes(split(argv).operands, j),
  sudoedit: (argv, j) => writes(split(argv).operands, j),
  sed: (argv, j) => {
    sedExecutes(argv, j)
    const { operands, flags, longs } = split(argv)
    if (/i/.test(flags) || longs.some((l) => l.startsWith('in-place'))) writes(operands, j)
  },
  curl: (argv, j) => writes(optionValues(argv, /^-o$|^--output$/), j),
  wget: (argv, j) => writes(optionValues(argv, /^-O$|^--output-document$/), j),
  source: (argv, j) => judgeSource(argv, j),
  '.': (argv, j) => judgeSource(argv, j),
  eval: (argv, j) => judgeEval(argv, j),
  del: windowsDelete,
  erase: windowsDelete,
  rd: windowsDelete,
  rmdir: windowsDelete,
  'remove-item': (argv, j) => argv.some((w) => /^-r(?:e(?:c(?:u(?:r(?:s(?:e)?)?)?)?)?)?$/i.test(w.value)) && j.emit('windows-delete'),
}

function windowsDelete(argv: Word[], j: Judge): void {
  if (argv.some((w) => /^\/s$/i.test(w.value))) j.emit('windows-delete')
}

/** They use a private key without showing it (`ssh -i ~/.ssh/id_ed25519`), or do not read files. */
const NOT_READERS = new Set(['ssh', 'sftp', 'ssh-add', 'ssh-keygen', 'ssh-copy-id', 'git', 'ls', 'stat', 'file', 'test', '[', 'du', 'touch', 'mkdir', 'chmod', 'chown', 'chgrp', 'rm', 'mv'])
/** They read whole folders (`tar c ~/.ssh`, `cp -r ~ x`). */
const TREE_READERS = new Set(['tar', 'zip', '7z', '7za', 'cp', 'rsync', 'scp', 'rclone', 'cpio', 'pax'])

/** Paths a word may name: itself, after `opt=` / `if=`, after a leading `@` (`curl -d @file`). */
function pathsIn(word: Word): string[] {
  const out = [word.value]
  const eq = word.value.indexOf('=')
  if (eq > 0) out.push(word.value.slice(eq + 1))
  if (/^[@<]/.test(word.value)) out.push(word.value.slice(1))
  return out
}

/** Arguments that read secrets: a process environment, secret files, folders that hold them. */
function reads(name: string, argv: Word[], j: Judge): void {
  const paths = argv.slice(1).flatMap(pathsIn)
  if (paths.some((p) => isProcessEnviron(p))) return j.emit('process-environ')
  if (NOT_READERS.has(name)) return
  if (paths.some((p) => isSecretRead(p, j.paths) || (TREE_READERS.has(name) && holdsSecrets(p, j.paths)))) j.emit('secret-read')
}

/** A shell on the network: `/dev/tcp/…` anywhere, `nc -e`, `socat … exec:`. */
function networkShell(name: string, argv: Word[], j: Judge): void {
  if (argv.some((w) => /^\/dev\/(?:tcp|udp)\//.test(w.value))) j.emit('network-shell')
  if (/^(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd)$/.test(name) && argv.some((w) => /^-[a-zA-Z]*[ec]$|^--(?:exec|sh-exec|lua-exec)/.test(w.value))) j.emit('network-shell')
  if (name === 'socat' && argv.some((w) => /(?:^|[,!])(?:exec|system):/i.test(w.value))) j.emit('network-shell')
}
const DISK_TOOLS = new Set(['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'shred', 'blkdiscard'])
const MKFS = /^(?:mkfs(?:\..+)?|mke2fs|mkdosfs|mkntfs|mkswap|newfs(?:_.+)?)$/

/** Where cp/mv/install/ln/rsync write: `-t DIR`, else the last operand (mv: every operand moves). */
function copyTargets(argv: Word[], all: boolean): Word[] {
  const dir = optionValues(argv, /^-t$|^--target-directory$/)
  const { operands } = split(argv)
  if (all) return [...dir, ...operands]
  return dir.length ? dir : operands.slice(-1)
}

/** Values of an option given as `-o X`, `--output X` or `--output=X`. */
function optionValues(argv: Word[], option: RegExp): Word[] {
  const out: Word[] = []
  argv.forEach((w, i) => {
    const [name, value] = w.value.includes('=') && w.value.startsWith('--') ? [w.value.slice(0, w.value.indexOf('=')), w.value.slice(w.value.indexOf('=') + 1)] : [w.value, undefined]
    if (!option.test(name!)) return
    if (value !== undefined) out.push({ ...w, value })
    else if (argv[i + 1]) out.push(argv[i + 1]!)
  })
  return out
}

/** Judges one command after its wrappers: `argv[0]` is the program that runs. */
export function judgeProgram(argv: Word[], via: string[], j: Judge): void {
  const program = argv[0]
  if (!program) return
  if (!program.literal) return j.emit('dynamic-command')
  const name = basename(program.value)
  if (j.cmd.inFunction && program.value === j.cmd.inFunction && (j.cmd.inPipeline || j.cmd.background)) j.emit('fork-bomb')
  if (j.execTargets.has(scriptPath(program.value))) j.emit('chmod-exec-run')
  reads(name, argv, j)
  networkShell(name, argv, j)
  if (MKFS.test(name)) return j.emit('mkfs')
  if (DISK_TOOLS.has(name)) return j.emit('disk-tools')
  const interpreter = interpreterFor(name)
  if (interpreter) return judgeInterpreter(name, interpreter, argv, j)
  PROGRAMS[name]?.(argv, j, via)
}

/**
 * SQL that destroys data, when the script runs a database client anywhere (`psql -c …`,
 * `docker exec db psql …`, `echo "DROP …" | sqlite3 db`): every word and heredoc of the script is read.
 */
export function sqlFindings(commands: SimpleCommand[]): FindingKey[] {
  if (!commands.some((c) => c.words.some((w) => DB_CLIENTS.has(basename(w.value))))) return []
  const texts = commands.flatMap((c) => [...c.words.map((w) => w.value), ...(c.stdin?.kind === 'text' ? [c.stdin.text.value] : [])])
  return SQL_PATTERNS.filter(({ pattern }) => texts.some((t) => pattern.test(t))).map(({ key }) => key)
}

/** `chmod +x FILE` targets in a script (a later `./FILE` or `sh FILE` runs what was just written). */
export function execTargetsOf(argv: Word[]): string[] {
  if (basename(argv[0]?.value ?? '') !== 'chmod') return []
  const [mode, ...targets] = split(argv).operands
  return mode && makesExecutable(mode.value) ? targets.map((t) => scriptPath(t.value)) : []
}

