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
  /** A shell command string to judge as a script of its own (`sh -c BODY`), with its `$0 $1 …`. */
  script(body: Word, args?: Word[]): void
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

/**
 * A relative delete target where it is: after an earlier `cd` of the same script (`cd / && rm -rf *`),
 * else in the command's working directory when known (`rm -rf *` run in the home is `rm -rf ~/*`).
 */
function inCwd(value: string, j: Judge): string {
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
  return cwd.includes(UNKNOWN) ? [value, joined] : [joined]
}

const writes = (targets: Word[], j: Judge) => {
  for (const t of targets) {
    for (const place of placesOf(t.value, j.cwd)) {
      const key = writeTargetKey(place, j.paths)
      if (key) j.emit(key)
    }
  }
}

/** Files a folder written whole may get (an archive unpacked into it, a download folder). */
const TREE_PROBES = ['.bashrc', '.profile', '.ssh/authorized_keys', 'config.yaml', 'extensions/x/index.ts']
/** An archive or download written into folder `dir`: protected if the folder is, or holds protected files (`unzip -d ~`). */
function writesInto(dirs: Word[], j: Judge): void {
  for (const d of dirs) {
    writes([d], j)
    for (const place of placesOf(d.value, j.cwd)) {
      // A relative folder is judged only once it is known where it is (a relative probe always looks home-relative).
      const dir = /^[/~]/.test(place) ? place : j.paths.cwd ? `${j.paths.cwd}/${place}` : undefined
      if (!dir) continue
      for (const probe of TREE_PROBES) {
        const key = writeTargetKey(`${dir.replace(/\/+$/, '')}/${probe}`, j.paths)
        if (key && key !== 'git-control') j.emit(key)
      }
    }
  }
}

/** A long option given as any unambiguous prefix (GNU getopt, git): `--rec` is `--recursive`. */
const longIs = (longs: string[], full: string) => longs.some((l) => prefixOf(l.split('=')[0]!, full))
const prefixOf = (given: string, full: string) => given.length > 0 && full.startsWith(given)

const rm: Rule = (argv, j, via) => {
  const { operands, flags, longs } = split(argv)
  if (/[rR]/.test(flags) || longIs(longs, 'recursive')) j.emit('recursive-delete')
  if (via.includes('xargs')) j.emit('xargs-rm')
  for (const t of operands) {
    const target = inCwd(t.value, j)
    const never = deleteTargetKey(target)
    if (never) j.emit(never)
    else if (target.includes(UNKNOWN)) j.emit('delete-unknown-path')
    if (/^[/~]/.test(t.value)) j.emit('delete-absolute-path')
  }
}

/** find tests that select files: without one, `{}` is every file below the start (and the start itself). */
const FIND_TESTS = /^-(?:i?name|i?path|i?wholename|i?regex|i?lname|type|xtype|newer\w*|[acm](?:time|min|newer)|used|size|user|group|nouser|nogroup|uid|gid|perm|empty|links|inum|samefile|executable|readable|writable|fstype|context|false)$/

const find: Rule = (argv, j, via) => {
  // Start paths: the operands before the expression (`find / -maxdepth 1 -exec rm -rf {} +`).
  const first = argv.findIndex((w, k) => k > 0 && /^[-(!]/.test(w.value) && !/^-[HLP]$|^-D$|^-O\d*$/.test(w.value))
  const starts = argv.slice(1, first < 0 ? argv.length : first).filter((w) => !/^-[HLP]$/.test(w.value))
  const selects = argv.some((w) => FIND_TESTS.test(w.value))
  // Unselected, `{}` is any file under each start: `START/UNKNOWN` (a delete of it deletes START).
  const items = selects || starts.length === 0 ? [UNKNOWN] : starts.map((s) => `${s.value.replace(/\/+$/, '')}/${UNKNOWN}`)
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!.value
    if (w === '-delete') {
      j.emit('find-delete')
      for (const item of selects ? [] : items) {
        const key = deleteTargetKey(inCwd(item, j))
        if (key) j.emit(key)
      }
    }
    if (/^-(?:exec|execdir|ok|okdir)$/.test(w)) {
      const end = argv.findIndex((x, k) => k > i && (x.value === ';' || x.value === '+'))
      for (const item of /dir$/.test(w) ? [UNKNOWN] : items) {
        const inner = argv.slice(i + 1, end < 0 ? argv.length : end).map((x) => (x.value.includes('{}') ? { value: x.value.replaceAll('{}', item), literal: false } : x))
        if (inner[0] && /^(?:rm|unlink|shred|truncate)$/.test(basename(inner[0].value))) j.emit('find-delete')
        if (inner.length) j.argv(inner, [...via, 'find'])
      }
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
    const recursive = /R/.test(flags) || longIs(longs, 'recursive')
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

/** `git -c KEY=VALUE` settings that make a later git step destructive. */
const DESTRUCTIVE_GIT_CONFIG = /^(?:clean\.requireforce=(?:false|no|off|0)|remote\..+\.(?:mirror=(?:true|yes|on|1)|push=\+.*))$/i

const git: Rule = (argv, j) => {
  const spec = { arg: 'Cc', long: ['git-dir', 'work-tree', 'namespace', 'exec-path', 'config-env', 'super-prefix', 'list-cmds', 'attr-source'] }
  const i = skipOptions(argv, 1, spec)
  const sub = argv[i]?.value
  const { operands, flags, longs } = split(argv, i + 1)
  const configs = optionValues(argv.slice(0, i), /^-c$|^--config-env$/)
  // `git -C DIR`: paths below are in DIR.
  const here = optionValues(argv.slice(0, i), /^-C$/).reduce<Judge>((at, dir) => ({ ...at, cwd: /^[/~]/.test(dir.value) ? dir.value : at.cwd ? `${at.cwd}/${dir.value}` : dir.value }), j)
  const configured = (re: RegExp) => configs.some((c) => re.test(c.value.replace(/\s+/g, '')))
  const has = (...names: string[]) => names.some((n) => longIs(longs, n))
  const destructive =
    (sub === 'push' && (/[fd]/.test(flags) || has('force', 'force-with-lease', 'mirror', 'delete', 'prune') || operands.some((o) => /^[+:]/.test(o.value)) || configured(/^remote\..+\.(?:mirror|push)=/i))) ||
    (sub === 'reset' && has('hard')) ||
    (sub === 'clean' && (/f/.test(flags) || has('force') || configured(/^clean\.requireforce=/i))) ||
    (sub === 'branch' && (/D/.test(flags) || (has('delete') && has('force')) || (/d/.test(flags) && /f/.test(flags))))
  if (destructive) j.emit('git-destructive')
  if (sub === 'config') gitConfigWrite(argv.slice(i + 1), here)
  for (const config of configs) gitConfig(config, j)
  if (operands.some((o) => /^ext::/i.test(o.value)) || configured(/^protocol\.(?:ext\.)?allow=always/i)) j.emit('inline-script')
  // Options whose value is a command git runs.
  const rest = argv.slice(i + 1)
  const commandOption: Record<string, RegExp> = {
    fetch: /^(?:--upload-pack|--exec)$/,
    pull: /^(?:--upload-pack|--exec)$/,
    clone: /^(?:--upload-pack|-u)$/,
    'ls-remote': /^(?:--upload-pack|--exec)$/,
    push: /^(?:--receive-pack|--exec)$/,
    'send-pack': /^(?:--receive-pack|--exec)$/,
    'fetch-pack': /^(?:--upload-pack|--exec)$/,
    archive: /^--exec$/,
    rebase: /^(?:--exec|-x)$/,
    difftool: /^(?:--extcmd|-x)$/,
    mergetool: /^(?:--extcmd|-x)$/,
    grep: /^(?:--open-files-in-pager|-O)$/,
    'filter-branch': /^--(?:env|tree|index|parent|msg|commit|tag-name)-filter$/,
    'filter-repo': /^--(?:\w+-callback)$/,
  }
  const option = sub ? commandOption[sub] : undefined
  if (option) for (const value of optionValues(rest, option)) j.script(value)
  if (sub === 'rebase' && rest.some((w) => /^-[^-]*x./.test(w.value))) j.emit('inline-script')
  if (sub === 'grep' && rest.some((w) => /^-O./.test(w.value))) j.emit('inline-script')
  if (sub === 'submodule' && operands[0]?.value === 'foreach') {
    const body = rest.slice(rest.findIndex((w) => w.value === 'foreach') + 1).filter((w) => !/^--(?:recursive|quiet)$|^-q$/.test(w.value))
    if (body.length) j.script({ value: body.map((w) => w.value).join(' '), literal: body.every((w) => w.literal) })
  }
  if (sub === 'bisect' && operands[0]?.value === 'run') j.argv(rest.slice(rest.findIndex((w) => w.value === 'run') + 1), ['git'])
  if (sub === 'clone') {
    const [url, dest] = split(argv.slice(i), 1).operands.filter((w, k, all) => !/^(?:-[ocbju]|--(?:origin|branch|depth|reference|separate-git-dir|config|template|jobs|filter|shallow-since|shallow-exclude|server-option))$/.test(all[k - 1]?.value ?? ''))
    const target = dest ?? (url ? { ...url, value: basename(url.value.replace(/\/+$/, '')).replace(/\.git$/, '') } : undefined)
    if (target) writes([target], here)
  }
}

/** `git config [--global|-f FILE|…] [set|--add|…] KEY VALUE`: the setting, and the file it writes. */
function gitConfigWrite(args: Word[], j: Judge): void {
  const operands: Word[] = []
  for (let k = 0; k < args.length; k++) {
    const w = args[k]!.value
    if (/^(?:-f|--file|--blob|-t|--type|--default|--comment|--value|--fixed-value)$/.test(w)) {
      if (/^(?:-f|--file)$/.test(w) && args[k + 1]) writes([args[k + 1]!], j)
      k++
    } else if (/^--file=/.test(w)) writes([{ ...args[k]!, value: w.slice(7) }], j)
    else if (/^-f./.test(w)) writes([{ ...args[k]!, value: w.slice(2) }], j)
    else if (!w.startsWith('-')) operands.push(args[k]!)
  }
  // The subcommand syntax of git 2.46 (`git config set KEY VALUE`): a key always has a dot.
  let kv = operands
  if (operands[0] && !operands[0].value.includes('.')) {
    if (operands[0].value !== 'set') return
    kv = operands.slice(1)
  }
  if (kv.length < 2) return
  const setting = { ...kv[1]!, value: `${kv[0]!.value}=${kv[1]!.value}` }
  gitConfig(setting, j)
  if (DESTRUCTIVE_GIT_CONFIG.test(setting.value.replace(/\s+/g, ''))) j.emit('git-destructive')
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
  awk: (argv, j) => writes(awk(argv, j), j),
  gawk: (argv, j) => writes(awk(argv, j), j),
  mawk: (argv, j) => writes(awk(argv, j), j),
  nawk: (argv, j) => writes(awk(argv, j), j),
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
  agent: (argv, j) => {
    const [group, verb] = split(argv).operands.map((w) => w.value)
    if (group === 'gateway' && /^(?:stop|restart|uninstall)$/.test(verb ?? '')) j.emit('agent-self')
    // The agent's own CLI changing its settings, plugins or tools (`agent config set approvals.mode off`).
    if ((group === 'config' && /^(?:set|unset|migrate|edit|reset|delete|rm|add|remove)$/.test(verb ?? '')) || (group === 'plugins' && /^(?:install|update|remove|uninstall|link|add)$/.test(verb ?? '')) || (group === 'tools' && /^(?:enable|disable)$/.test(verb ?? '')) || (group === 'extensions' && !/^(?:list|ls)?$/.test(verb ?? ''))) j.emit('agent-config')
  },
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
  ln: (argv, j) => {
    writes(copyTargets(argv, false), j)
    linkTargets(argv, j)
  },
  rsync: (argv, j) => {
    const dest = copyTargets(argv, false)
    writes(dest, j)
    // `--delete` empties the destination of what the source lacks: onto `/` or a home it is a wipe.
    if (longIs(split(argv).longs, 'delete') || split(argv).longs.some((l) => /^(?:delete|del)(?:-|$)/.test(l))) {
      for (const d of dest) {
        const key = deleteTargetKey(inCwd(d.value, j))
        if (key) j.emit(key)
      }
    }
  },
  scp: (argv, j) => writes(localDest(split(argv).operands.slice(-1)), j),
  sponge: (argv, j) => writes(split(argv).operands, j),
  // Editors run non-interactively (`ed -s F <<< …`, `ex -sc … F`, `vim -c … F`) write the files they open.
  ed: (argv, j) => writes(operandsOf(argv, { arg: 'p', long: ['prompt'] }), j),
  red: (argv, j) => writes(operandsOf(argv, { arg: 'p', long: ['prompt'] }), j),
  ex: (argv, j) => writes(editorFiles(argv), j),
  vi: (argv, j) => writes(editorFiles(argv), j),
  vim: (argv, j) => writes(editorFiles(argv), j),
  nvim: (argv, j) => writes(editorFiles(argv), j),
  yq: (argv, j) => {
    const { flags, longs } = split(argv)
    if (/i/.test(flags) || longIs(longs, 'inplace')) writes(operandsOf(argv, { arg: 'pPoIe', long: ['input-format', 'output-format', 'indent', 'expression', 'from-file', 'split-exp'] }).slice(1), j)
  },
  patch: (argv, j) => {
    const files = operandsOf(argv, { arg: 'pdiorBDFVYzg', long: ['strip', 'directory', 'input', 'output', 'reject-file', 'prefix', 'ifdef', 'fuzz', 'version-control', 'basename-prefix', 'suffix', 'get', 'quoting-style'] })
    writes([...files.slice(0, 1), ...optionValues(argv, /^-o$|^--output$/)], j)
    writesInto(optionValues(argv, /^-d$|^--directory$/), j)
  },
  unzip: (argv, j) => {
    writesInto(optionValues(argv, /^-d$/), j)
    if (!argv.some((w) => /^-[^-]*[lptvZ]/.test(w.value)) && !argv.some((w) => w.value === '-d') && j.cwd) writesInto([{ value: '.', literal: true }], j)
  },
  tar: (argv, j) => {
    const extracting = /^[^-]*x/.test(argv[1]?.value ?? '') || argv.some((w) => /^-[^-]*x|^--extract$|^--get$/.test(w.value))
    if (!extracting) return
    const dirs = optionValues(argv, /^-C$|^--directory$/)
    writesInto(dirs.length ? dirs : j.cwd ? [{ value: '.', literal: true }] : [], j)
  },
  truncate: (argv, j) => writes(split(argv).operands, j),
  sudoedit: (argv, j) => writes(split(argv).operands, j),
  sed: (argv, j) => {
    const { scripts, files } = sedScripts(argv)
    sedExecutes(scripts, j)
    // `w FILE` and the `w` flag of `s///` write FILE (the rest of the line).
    for (const script of scripts) for (const m of script.value.matchAll(SED_WRITE)) writes([{ value: (m[1] ?? m[3] ?? '').trim(), literal: script.literal }], j)
    const { flags, longs } = split(argv)
    if (/i/.test(flags) || longs.some((l) => l.startsWith('in-place'))) writes(files, j)
  },
  curl: (argv, j) => {
    const spec = CURL_SHORT
    writes([...shortValues(argv, 'oDc', spec), ...optionValues(argv, /^--(?:output|dump-header|cookie-jar|trace|trace-ascii|stderr|libcurl|etag-save|hsts|alt-svc)$/)], j)
    writesInto(optionValues(argv, /^--output-dir$/), j)
  },
  wget: (argv, j) => {
    writes([...shortValues(argv, 'Ooa', WGET_SHORT), ...optionValues(argv, /^--(?:output-document|output-file|append-output|save-cookies)$/)], j)
    writesInto([...shortValues(argv, 'P', WGET_SHORT), ...optionValues(argv, /^--directory-prefix$/)], j)
  },
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
const NOT_READERS = new Set(['echo', 'printf', 'cd', 'pushd', 'mkdir', 'ssh', 'sftp', 'ssh-add', 'ssh-keygen', 'ssh-copy-id', 'git', 'ls', 'stat', 'file', 'test', '[', 'du', 'touch', 'mkdir', 'chmod', 'chown', 'chgrp', 'rm', 'mv'])
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
  const paths = argv.slice(1).flatMap(pathsIn).flatMap((p) => placesOf(p, j.cwd))
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

/** Short options of curl and wget that take a value (a cluster such as `-sSLo FILE` ends at one). */
const CURL_SHORT = 'AbcCdDeEFHhKmoQrtTuUwxXyYzP'
const WGET_SHORT = 'OoaPeiBtTwQUYlARDIXd'

/** Values of the short options `letters` inside clusters (`-so F`, `-qO F`, `-oF`), given which letters take a value. */
function shortValues(argv: Word[], letters: string, takesValue: string): Word[] {
  const out: Word[] = []
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!.value
    if (w === '--') break
    if (!/^-[^-]/.test(w)) continue
    for (let k = 1; k < w.length; k++) {
      if (!takesValue.includes(w[k]!) && !letters.includes(w[k]!)) continue
      const value = k === w.length - 1 ? argv[i + 1] : { ...argv[i]!, value: w.slice(k + 1) }
      if (letters.includes(w[k]!) && value) out.push(value)
      if (k === w.length - 1) i++
      break
    }
  }
  return out
}

/** Operands of a command, skipping option values as `spec` says. */
function operandsOf(argv: Word[], spec: { arg?: string; long?: string[] }): Word[] {
  const out: Word[] = []
  let i = 1
  while (i < argv.length) {
    const next = skipOptions(argv, i, spec)
    if (next >= argv.length) break
    if (argv[next - 1]?.value === '--' && next > i) {
      out.push(...argv.slice(next))
      break
    }
    out.push(argv[next]!)
    i = next + 1
  }
  return out
}

/** Files an ex/vim command line opens (`+cmd` and the values of `-c`, `-S`, `-u` … are not files). */
function editorFiles(argv: Word[]): Word[] {
  return operandsOf(argv, { arg: 'cSuUiTwWrqt', long: ['cmd'] }).filter((w) => !w.value.startsWith('+'))
}

/** scp/rsync destinations on this machine (not `host:path`). */
function localDest(targets: Word[]): Word[] {
  return targets.filter((t) => !/^[^/]*:/.test(t.value))
}

/**
 * `ln [-s] TARGET… LINK` / `cp -s`: the link is a way to reach its target (`ln -s ~/.ssh k && cat
 * k/id_rsa`, `ln -s ~/.bashrc x; echo … >> x`), so a protected or secret target counts as written
 * (system locations only where they are configuration: linking /usr/bin/python3 is everyday).
 */
function linkTargets(argv: Word[], j: Judge): void {
  const dir = optionValues(argv, /^-t$|^--target-directory$/)
  const { operands, flags, longs } = split(argv)
  const targets = dir.length || /T/.test(flags) || longs.includes('no-target-directory') ? (dir.length ? operands : operands.slice(0, 1)) : operands.length > 1 ? operands.slice(0, -1) : operands
  for (const t of targets) {
    for (const place of placesOf(t.value, j.cwd)) {
      const key = writeTargetKey(place, j.paths)
      if (key && (key !== 'system-config-write' || /^\/(?:etc|private\/etc|boot)(?:\/|$)/.test(place))) j.emit(key)
      if (isSecretRead(place, j.paths) || holdsSecrets(place, j.paths)) j.emit('secret-read')
    }
  }
}

/** sed's scripts (`-e S`, `-eS`, `--expression=S`, else the first operand) and its files. */
function sedScripts(argv: Word[]): { scripts: Word[]; files: Word[] } {
  const scripts: Word[] = []
  const rest: Word[] = []
  let fromFile = false
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!
    if (w.value === '-e' || w.value === '--expression') scripts.push(...(argv[i + 1] ? [argv[++i]!] : []))
    else if (w.value.startsWith('--expression=')) scripts.push({ ...w, value: w.value.slice(13) })
    else if (w.value === '-f' || w.value === '--file') (fromFile = true), i++
    else if (/^-[^-]*e./.test(w.value)) scripts.push({ ...w, value: w.value.slice(w.value.indexOf('e') + 1) })
    else if (/^-[^-]*f/.test(w.value) || w.value.startsWith('--file=')) fromFile = true
    else if (/^-[lL]$|^--line-length$/.test(w.value)) i++
    else if (!w.value.startsWith('-') || w.value === '-') rest.push(w)
  }
  if (!scripts.length && !fromFile && rest.length) scripts.push(rest.shift()!)
  return { scripts, files: rest }
}
/** `[addr]w FILE` / `W FILE` commands and the `w FILE` flag of `s///` (FILE: the rest of the line). */
const SED_WRITE = /(?:^|[;\n{}])\s*(?:(?:\d+|\$|\/(?:[^/\\\n]|\\.)*\/)(?:\s*,\s*(?:\d+|\$|\/(?:[^/\\\n]|\\.)*\/))?)?\s*!?\s*[wW]\s*([^\n]+)|s(.)(?:(?!\2)[^\\\n]|\\.)*\2(?:(?!\2)[^\\\n]|\\.)*\2[gpIiMme0-9]*w\s*([^\n]+)/g

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

