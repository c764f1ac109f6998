// Per-program rules: given one simple command after its wrappers (see wrappers.ts), which findings
// it raises. Here: the rule table, disks, processes, the machine, services, firewalls, cron, renamed
// programs. Deletes are in deletes.ts, permissions in permissions.ts, writes onto protected paths in
// writers.ts, secret reads in readers.ts, git in git.ts, cloud, cluster, container and database CLIs
// in infra.ts (frameworks' database resets in infra-frameworks.ts), the agent's own CLI in
// agent-cli.ts, package and language runners (npx, pnpm, yarn, bundle exec, uv run) in runners.ts;
// programs that run code are in interpreters.ts, awk.ts, sed.ts.

import { agent } from './agent-cli.ts'
import { isAgentBin } from './agent-bin.ts'
import { AWKS } from './awk.ts'
import { DELETES } from './deletes.ts'
import { INFRA } from './infra.ts'
import { FRAMEWORKS } from './infra-frameworks.ts'
import { makesExecutable, PERMISSIONS } from './permissions.ts'
import { git } from './git.ts'
import { alias, interpreterFor, make, judgeEval, judgeInterpreter, judgeSource, programFrom, scriptPath, trap } from './interpreters.ts'
import { split, type Judge, type Rule } from './judge.ts'
import { writeTargetKey } from './paths.ts'
import { reads } from './readers.ts'
import { RUNNERS } from './runners.ts'
import { sed } from './sed.ts'
import { basename, isWrapper } from './wrappers.ts'
import { copyArgs, writes, WRITERS } from './writers.ts'
import { UNKNOWN, type Word } from './words.ts'

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

const PROGRAMS: Record<string, Rule> = {
  ...DELETES,
  ...PERMISSIONS,
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
  ...AWKS,
  sed,
  make,
  gmake: make,
  alias: (argv, j) => {
    alias(argv, j)
    for (const [name, words] of renamesOf(argv)) if (renamesToRules(name, words)) j.emit('dynamic-command')
  },
  // `hash -p PATH NAME`: NAME runs PATH from now on (also in later commands of a persistent shell).
  hash: (argv, j) => {
    for (const [name, words] of renamesOf(argv)) if (!words[0]!.literal || renamesToRules(name, words)) j.emit('dynamic-command')
  },
  // `enable -f LIB NAME`: a builtin loaded from a shared library (native code, any name).
  enable: (argv, j) => argv.slice(1).some((w) => /^-[^-]*f/.test(w.value)) && j.emit('dynamic-command'),
  trap,
  ...INFRA,
  ...FRAMEWORKS,
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
  agent,
  ...RUNNERS,
  diskutil: (argv, j) => /^(?:erase|zero|secureErase|partition|reformat)/i.test(argv[1]?.value ?? '') && j.emit('disk-tools'),
  ...WRITERS,
  source: (argv, j) => judgeSource(argv, j),
  '.': (argv, j) => judgeSource(argv, j),
  eval: (argv, j) => judgeEval(argv, j),
}

/** A shell on the network: `/dev/tcp/…` anywhere, `nc -e`, `socat … exec:`. */
function networkShell(name: string, argv: Word[], j: Judge): void {
  if (argv.some((w) => /^\/dev\/(?:tcp|udp)\//.test(w.value))) j.emit('network-shell')
  if (/^(?:nc|ncat|netcat|nc\.traditional|nc\.openbsd)$/.test(name) && argv.some((w) => /^-[a-zA-Z]*[ec]$|^--(?:exec|sh-exec|lua-exec)/.test(w.value))) j.emit('network-shell')
  if (name === 'socat' && argv.some((w) => /(?:^|[,!])(?:exec|system):/i.test(w.value))) j.emit('network-shell')
}
const DISK_TOOLS = new Set(['fdisk', 'sfdisk', 'cfdisk', 'gdisk', 'sgdisk', 'parted', 'wipefs', 'shred', 'blkdiscard'])
const MKFS = /^(?:mkfs(?:\..+)?|mke2fs|mkdosfs|mkntfs|mkswap|newfs(?:_.+)?)$/

/** Judges one command after its wrappers: `argv[0]` is the program that runs. */
export function judgeProgram(argv: Word[], via: string[], j: Judge): void {
  const program = argv[0]
  if (!program) return
  if (!program.literal) return j.emit('dynamic-command')
  const name = basename(program.value)
  if (COPIERS.has(name) && renamesOf(argv).some(([to, words]) => renamesToRules(to, words))) j.emit('dynamic-command')
  if (j.cmd.inFunction && program.value === j.cmd.inFunction && (j.cmd.inPipeline || j.cmd.background)) j.emit('fork-bomb')
  if (j.execTargets.has(scriptPath(program.value))) j.emit('chmod-exec-run')
  reads(name, argv, j)
  networkShell(name, argv, j)
  if (MKFS.test(name)) return j.emit('mkfs')
  if (DISK_TOOLS.has(name)) return j.emit('disk-tools')
  const interpreter = interpreterFor(name)
  if (interpreter) return judgeInterpreter(name, interpreter, argv, j)
  if (Object.hasOwn(PROGRAMS, name)) PROGRAMS[name]!(argv, j, via)
  // The agent's bin run as a file (`./kernel/bin/agent.mjs mcp add …`) is the agent.
  else if (isAgentBin(program.value, j)) agent(argv, j, via)
}

/** `chmod +x FILE` targets in a script (a later `./FILE` or `sh FILE` runs what was just written). */
export function execTargetsOf(argv: Word[]): string[] {
  if (basename(argv[0]?.value ?? '') !== 'chmod') return []
  const [mode, ...targets] = split(argv).operands
  return mode && makesExecutable(mode.value) ? targets.map((t) => scriptPath(t.value)) : []
}

/** Whether a program has rules of its own (a table entry, a shell or interpreter, a disk tool, a wrapper). */
function rulesOf(name: string): unknown {
  if (Object.hasOwn(PROGRAMS, name)) return PROGRAMS[name]
  if (MKFS.test(name)) return MKFS
  if (DISK_TOOLS.has(name)) return DISK_TOOLS
  if (isWrapper(name)) return name
  return interpreterFor(name)
}

/**
 * Renaming a program that has rules to a name without the same rules (`alias ls=rm`, `hash -p
 * /bin/rm ls`, `cp /bin/rm ./ls`): a later command under that name, also in a later call of a
 * persistent shell, is not what it looks like. `alias rm='rm -i'`, `alias ll='ls -l'` and
 * `ln -s /usr/bin/python3 python` are not renames of that kind; a run-time program is not known here.
 */
function renamesToRules(name: string, words: Word[]): boolean {
  const program = words[0]
  if (!program?.literal) return false
  const target = rulesOf(basename(program.value))
  return target !== undefined && target !== rulesOf(basename(name))
}

const unknownWord: Word = { value: UNKNOWN, literal: false }
const COPIERS = new Set(['cp', 'mv', 'ln', 'install'])
/** The words an alias value stands for (split at blanks; a run-time value is an unknown program). */
export const aliasWords = (value: Word): Word[] => (value.literal ? value.value.trim().split(/\s+/).filter(Boolean).map((v) => ({ value: v.replace(/^(['"])(.*)\1$/, '$2'), literal: true })) : [unknownWord])
/**
 * Names a command makes run another program, with the words they then stand for: `alias NAME=VALUE`
 * (VALUE's words), `hash -p PATH NAME`, `cp|ln|install|mv PROGRAM DEST` (DEST as written, without
 * `./`, and its file name). A value only known at run time stands for an unknown program.
 */
export function renamesOf(argv: Word[]): Array<[string, Word[]]> {
  const name = basename(argv[0]?.value ?? '')
  if (name === 'alias') {
    return argv.slice(1).flatMap((w): Array<[string, Word[]]> => {
      const at = w.value.indexOf('=')
      return at > 0 && !w.value.startsWith('-') ? [[w.value.slice(0, at), aliasWords({ ...w, value: w.value.slice(at + 1) })]] : []
    })
  }
  if (name === 'hash') {
    const at = argv.findIndex((w) => /^-[^-]*p/.test(w.value))
    if (at < 0) return []
    const cluster = argv[at]!.value
    const attached = cluster.slice(cluster.indexOf('p') + 1)
    const path = attached ? { ...argv[at]!, value: attached } : argv[at + 1]
    const names = argv.slice(at + (attached ? 1 : 2)).filter((w) => !w.value.startsWith('-'))
    return path ? names.map((n) => [n.value, [path.literal ? path : unknownWord]]) : []
  }
  if (!COPIERS.has(name)) return []
  // `-t DIR` keeps the names in DIR: not a rename.
  const { dirs, operands } = copyArgs(argv)
  if (dirs.length || operands.length !== 2) return []
  const [source, dest] = operands as [Word, Word]
  if (!dest.literal || basename(dest.value) === basename(source.value)) return []
  const runs = [source.literal ? source : unknownWord]
  return [...new Set([scriptPath(dest.value), basename(dest.value)])].map((n) => [n, runs])
}
