// Command wrappers: programs that run another program given in their arguments (`sudo -u root rm`,
// `env -i A=1 rm`, `timeout 5 rm`, `xargs rm`, `busybox rm`, …). Unwrapping them (with their options)
// finds the program that really runs; some take a shell command string instead (`su -c`, `flock -c`).

import { literalWord, UNKNOWN, type Word } from './words.ts'

export interface Unwrapped {
  /** The program that runs and its arguments; empty when nothing runs (`command -v rm`, `sudo -i`). */
  argv: Word[]
  /** Wrappers passed through, outermost first (basenames). */
  via: string[]
  /** A shell command string a wrapper runs (`su -c …`, `flock -c …`, `env -S …`, `watch …`). */
  script?: Word
  /** `NAME=value` words given to `env` or `sudo` (the environment of what runs). */
  assignments: Word[]
  /** Each wrapper's own command line, outermost first (their options may run commands too). */
  stages: Word[][]
}

interface OptSpec {
  /** Short options that take an argument (attached or the next word). */
  arg?: string
  /** Short options that take the rest of their cluster as an optional argument. */
  optional?: string
  /** Long options that take the next word when not given with `=`. */
  long?: string[]
}

/** Index of the first operand at or after `i`, skipping options as `spec` describes. */
export function skipOptions(words: Word[], i: number, spec: OptSpec = {}): number {
  while (i < words.length) {
    const w = words[i]!.value
    if (w === '--') return i + 1
    if (!w.startsWith('-') || w === '-') return i
    if (w.startsWith('--')) {
      const name = w.slice(2).split('=')[0]!
      i += !w.includes('=') && spec.long?.includes(name) ? 2 : 1
      continue
    }
    let next = i + 1
    for (let k = 1; k < w.length; k++) {
      if (spec.optional?.includes(w[k]!)) break
      if (spec.arg?.includes(w[k]!)) {
        if (k === w.length - 1) next = i + 2
        break
      }
    }
    i = next
  }
  return i
}

/** Short flag letters present in the options before the first operand (`-xc` → x, c). */
export function shortFlags(words: Word[], from: number, to: number): string {
  return words
    .slice(from, to)
    .filter((w) => /^-[^-]/.test(w.value))
    .map((w) => w.value.slice(1))
    .join('')
}

export const basename = (value: string) => (value.split('/').pop() ?? value).toLowerCase()
/**
 * What `env` and `sudo` take as an environment assignment: any word with `=` (GNU env and sudo test
 * only for the `=`, so `a-b=1`, `x.y=1` and `BASH_FUNC_ls%%=() { …; }` are assignments too).
 */
const ASSIGNMENT = /^[^=-][^=]*=|^=/

type Step =
  | { kind: 'run'; rest: number; assignments?: number; edit?: boolean; replace?: string; shell?: boolean }
  | { kind: 'script'; script: Word }
  | { kind: 'none'; shell?: boolean }
  | { kind: 'program' }
type Unwrap = (words: Word[]) => Step

const skip = (spec: OptSpec, operands = 0): Unwrap => (words) => ({ kind: 'run', rest: skipOptions(words, 1, spec) + operands })

/**
 * The value of option `-x` / `--long`: `--long=V`, `--long V`, `-x V`, `-abx V` or attached `-xV`
 * (`-S'rm -rf ~'`, `-qc'…'`), walking each short cluster with `spec` (letters before `x` that take a
 * value end the cluster). Only options before the first operand are looked at when `spec.stop` is set.
 */
export function optionValue(words: Word[], short: string, long?: string, spec: OptSpec = {}): Word | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value
    if (w === '--') return undefined
    if (long && w.startsWith(`--${long}=`)) return { ...words[i]!, value: w.slice(long.length + 3) }
    if (long && w === `--${long}`) return words[i + 1]
    if (!/^-[^-]/.test(w)) continue
    for (let k = 1; k < w.length; k++) {
      if (w[k] === short) return k === w.length - 1 ? words[i + 1] : { ...words[i]!, value: w.slice(k + 1) }
      if (spec.arg?.includes(w[k]!) || spec.optional?.includes(w[k]!)) break
    }
  }
  return undefined
}

const WRAPPERS: Record<string, Unwrap> = {
  env: (words) => {
    const spec = { arg: 'uCPSa', long: ['unset', 'chdir', 'split-string', 'argv0', 'block-signal', 'default-signal', 'ignore-signal'] }
    const from = skipOptions(words, 1, spec)
    // Only env's own options: a `-S` further on belongs to the program it runs.
    const split = optionValue(words.slice(0, from), 'S', 'split-string', spec)
    if (split) return { kind: 'script', script: split }
    let i = from
    // A lone `-` (before the assignments) is `-i`.
    if (words[i]?.value === '-') i++
    const start = i
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++
    return { kind: 'run', rest: i, assignments: i - start }
  },
  sudo: (words) => {
    let i = skipOptions(words, 1, { arg: 'ugpCDhrtTUR', long: ['user', 'group', 'prompt', 'close-from', 'chdir', 'host', 'role', 'type', 'command-timeout', 'other-user', 'chroot'] })
    const flags = shortFlags(words, 1, i)
    if (/e/.test(flags) || words[i - 1]?.value === '--edit') return { kind: 'run', rest: i, edit: true }
    const from = i
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++
    // `sudo -s` / `sudo -i` without a command: a shell (reading a pipe, if there is one).
    if (i >= words.length && /[si]/.test(flags)) return { kind: 'none', shell: true }
    return { kind: 'run', rest: i, assignments: i - from }
  },
  doas: (words) => {
    const i = skipOptions(words, 1, { arg: 'uC' })
    return i >= words.length && /s/.test(shortFlags(words, 1, i)) ? { kind: 'none', shell: true } : { kind: 'run', rest: i }
  },
  pkexec: skip({ long: ['user'] }),
  su: (words) => {
    const body = optionValue(words, 'c', 'command', { arg: 'gGsw', long: ['group', 'supp-group', 'shell', 'whitelist-environment'] })
    return body ? { kind: 'script', script: body } : { kind: 'none', shell: true }
  },
  runuser: (words) => {
    const body = optionValue(words, 'c', 'command', { arg: 'ugGsw', long: ['user', 'group', 'supp-group', 'shell', 'whitelist-environment'] })
    if (body) return { kind: 'script', script: body }
    const i = skipOptions(words, 1, { arg: 'ugGs', long: ['user', 'group', 'supp-group', 'shell'] })
    return { kind: 'run', rest: i }
  },
  command: (words) => {
    const i = skipOptions(words, 1)
    return /[vV]/.test(shortFlags(words, 1, i)) ? { kind: 'none' } : { kind: 'run', rest: i }
  },
  builtin: skip({}),
  exec: skip({ arg: 'a' }),
  nice: skip({ arg: 'n', long: ['adjustment'] }),
  nohup: skip({}),
  setsid: skip({}),
  // `coproc NAME { …; }`: the name is not a program (tree-sitter reads it as one command's words).
  coproc: (words) => ({ kind: 'run', rest: /^[{(]$/.test(words[2]?.value ?? '') && /^[A-Za-z_]\w*$/.test(words[1]?.value ?? '') ? 2 : 1 }),
  time: skip({ arg: 'fo', long: ['format', 'output'] }),
  timeout: skip({ arg: 'sk', long: ['signal', 'kill-after'] }, 1),
  stdbuf: skip({ arg: 'ioe', long: ['input', 'output', 'error'] }),
  ionice: (words) => {
    const i = skipOptions(words, 1, { arg: 'cnP' })
    return /[pP]/.test(shortFlags(words, 1, i)) ? { kind: 'none' } : { kind: 'run', rest: i }
  },
  chrt: (words) => {
    const i = skipOptions(words, 1, { arg: 'TPD' })
    return /p/.test(shortFlags(words, 1, i)) ? { kind: 'none' } : { kind: 'run', rest: i + 1 }
  },
  taskset: (words) => {
    const i = skipOptions(words, 1, { long: ['cpu-list'] })
    return /p/.test(shortFlags(words, 1, i)) ? { kind: 'none' } : { kind: 'run', rest: i + 1 }
  },
  // flock [options] FILE -c COMMAND | flock [options] FILE PROGRAM …
  flock: (words) => {
    const file = skipOptions(words, 1, { arg: 'wE', long: ['timeout', 'conflict-exit-code'] })
    if (/^(?:-c|--command)$/.test(words[file + 1]?.value ?? '')) return words[file + 2] ? { kind: 'script', script: words[file + 2]! } : { kind: 'none' }
    return { kind: 'run', rest: file + 1 }
  },
  chroot: (words) => {
    const i = skipOptions(words, 1, { long: ['userspec', 'groups'] }) + 1
    return i >= words.length ? { kind: 'none', shell: true } : { kind: 'run', rest: i }
  },
  // `-I R` / `-i[R]`: R in the command stands for each input item (known only at run time).
  xargs: (words) => {
    const spec = { arg: 'adEILnPs', optional: 'eil', long: ['arg-file', 'delimiter', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var', 'replace'] }
    const rest = skipOptions(words, 1, spec)
    const options = words.slice(0, rest)
    let replace = optionValue(options, 'I', undefined, spec)?.value
    const i = options.find((w) => /^-i|^--replace(?:=|$)/.test(w.value))
    if (i) replace = i.value.startsWith('--') ? (i.value.split('=')[1] ?? '{}') : i.value.slice(2) || '{}'
    return { kind: 'run', rest, replace }
  },
  busybox: skip({}),
  toybox: skip({}),
  // Others that run their arguments as a command (privilege, resources, sandbox, tooling).
  'systemd-run': (words) => ({ kind: 'run', rest: skipOptions(words, 1, { arg: 'pEMHuC', long: SYSTEMD_LONG }) }),
  run0: (words) => {
    const i = skipOptions(words, 1, { arg: 'ugDM', long: [...SYSTEMD_LONG, 'user', 'group', 'chdir', 'background'] })
    return i >= words.length ? { kind: 'none', shell: true } : { kind: 'run', rest: i }
  },
  setpriv: skip({ long: ['reuid', 'regid', 'ruid', 'rgid', 'euid', 'egid', 'groups', 'inh-caps', 'ambient-caps', 'bounding-set', 'securebits', 'pdeathsig', 'selinux-label', 'apparmor-profile', 'landlock-access', 'landlock-rule', 'reset-env'] }),
  gosu: skip({}, 1),
  'su-exec': skip({}, 1),
  setarch: (words) => {
    // `setarch ARCH [options] [PROGRAM …]`; `linux32 …` / `x86_64 …` have no ARCH word.
    const first = basename(words[0]!.value) === 'setarch' ? 2 : 1
    const i = skipOptions(words, first, { long: ['uname-2.6'] })
    return i >= words.length ? { kind: 'none', shell: true } : { kind: 'run', rest: i }
  },
  linux32: (words) => WRAPPERS.setarch!(words),
  linux64: (words) => WRAPPERS.setarch!(words),
  eatmydata: skip({}),
  chronic: skip({}),
  prlimit: (words) => {
    const i = skipOptions(words, 1, { arg: 'po', long: ['pid', 'output'] })
    return words.slice(1, i).some((w) => /^-[^-]*p|^--pid/.test(w.value)) ? { kind: 'none' } : { kind: 'run', rest: i }
  },
  'flatpak-spawn': skip({ long: ['env', 'unset-env', 'directory', 'forward-fd', 'app-path', 'usr-path'] }),
  // `capsh [options] -- ARGS…` runs `bash ARGS…` (`capsh -- -c 'cmd'`).
  capsh: (words) => {
    const dash = words.findIndex((w) => w.value === '--')
    return dash > 0 ? { kind: 'run', rest: dash + 1, shell: true } : { kind: 'none' }
  },
  // `sg GROUP -c COMMAND` / `sg GROUP COMMAND…`: a /bin/sh command line.
  sg: (words) => {
    const i = words[1]?.value === '-' ? 3 : 2
    const rest = words.slice(i)
    if (rest[0]?.value === '-c') return rest[1] ? { kind: 'script', script: rest[1] } : { kind: 'none' }
    return rest.length ? joined(rest) : { kind: 'none', shell: true }
  },
  unbuffer: skip({}),
  caffeinate: skip({ arg: 'tw' }),
  fakeroot: skip({ arg: 'lsi' }),
  firejail: skip({}),
  proxychains: skip({ arg: 'f' }),
  proxychains4: skip({ arg: 'f' }),
  torsocks: skip({}),
  strace: skip({ arg: 'oepsSEuIXabP' }),
  ltrace: skip({ arg: 'oepsSEuIXabPnA' }),
  valgrind: skip({}),
  catchsegv: skip({}),
  script: (words) => {
    const body = optionValue(words, 'c', 'command', { arg: 'EIOBTm', long: ['echo', 'log-in', 'log-out', 'log-io', 'log-timing', 'logging-format', 'output-limit'] })
    return body ? { kind: 'script', script: body } : { kind: 'none', shell: true }
  },
  unshare: skip({ arg: 'S', long: ['map-user', 'map-group', 'propagation', 'setgroups', 'root', 'wd', 'setuid', 'setgid'] }),
  nsenter: skip({ arg: 'tSG', long: ['target', 'setuid', 'setgid', 'root', 'wd'] }),
  screen: (words) => {
    const i = skipOptions(words, 1, { arg: 'SpcehLs', long: [] })
    return i >= words.length ? { kind: 'none', shell: true } : { kind: 'run', rest: i }
  },
  // The rest of the words, joined, is a shell command line (`parallel rm ::: x`, `tmux new 'cmd'`).
  parallel: (words) => joined(words.slice(skipOptions(words, 1, { arg: 'jSX', long: ['jobs', 'sshlogin', 'joblog', 'results'] })).filter((w) => !/^:{3,4}\+?$/.test(w.value))),
  tmux: (words) => {
    const i = skipOptions(words, 1, { arg: 'LSfc' })
    const sub = words[i]?.value ?? ''
    if (/^(?:new|new-session|new-window|neww|split-window|splitw|respawn-pane|respawnp|respawn-window|respawnw)$/.test(sub)) {
      const rest = words.slice(skipOptions(words, i + 1, { arg: 'cefFlnpstxy' }))
      return rest.length ? joined(rest) : { kind: 'none' }
    }
    if (/^(?:run-shell|run|if-shell|if)$/.test(sub)) {
      const body = words[skipOptions(words, i + 1, { arg: 'dtc' })]
      return body ? { kind: 'script', script: body } : { kind: 'none' }
    }
    if (/^(?:send-keys|send)$/.test(sub)) return joined(words.slice(skipOptions(words, i + 1, { arg: 'tNX' })).filter((w) => !/^(?:Enter|C-m|KPEnter)$/.test(w.value)))
    return { kind: 'none' }
  },
  // Remote and container commands: judged like local ones (a remote `rm -rf /` is no better).
  ssh: (words) => {
    const i = skipOptions(words, 1, { arg: 'BbcDEeFIiJLlmOopQRSWw' }) + 1
    const rest = words.slice(i)
    if (rest.length === 0) return i > words.length ? { kind: 'program' } : { kind: 'none', shell: true }
    return { kind: 'script', script: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal) } }
  },
  docker: (words) => (words[1]?.value === 'exec' ? { kind: 'run', rest: skipOptions(words, 2, { arg: 'eluw', long: ['env', 'env-file', 'user', 'workdir', 'detach-keys'] }) + 1 } : { kind: 'program' }),
  podman: (words) => (words[1]?.value === 'exec' ? { kind: 'run', rest: skipOptions(words, 2, { arg: 'eluw', long: ['env', 'env-file', 'user', 'workdir', 'detach-keys'] }) + 1 } : { kind: 'program' }),
  kubectl: (words) => {
    const dash = words.findIndex((w) => w.value === '--')
    return words[1]?.value === 'exec' && dash > 0 ? { kind: 'run', rest: dash + 1 } : { kind: 'program' }
  },
  watch: (words) => {
    const i = skipOptions(words, 1, { arg: 'nq', long: ['interval', 'differences', 'equexit'] })
    if (/x/.test(shortFlags(words, 1, i)) || words.slice(1, i).some((w) => w.value === '--exec')) return { kind: 'run', rest: i }
    const rest = words.slice(i)
    return { kind: 'script', script: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal) } }
  },
}

/** Long options of systemd-run / run0 that take the next word (`--user` is a flag of systemd-run only). */
const SYSTEMD_LONG = ['unit', 'property', 'description', 'slice', 'uid', 'gid', 'nice', 'working-directory', 'setenv', 'machine', 'host', 'service-type', 'on-active', 'on-boot', 'on-startup', 'on-unit-active', 'on-unit-inactive', 'on-calendar', 'on-clock-change', 'on-timezone-change', 'timer-property', 'path-property', 'socket-property', 'capsule', 'json']

function joined(rest: Word[]): Step {
  return { kind: 'script', script: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal) } }
}

/** A program that runs another program given in its arguments (`sudo`, `env`, `xargs`, …). */
export const isWrapper = (name: string): boolean => Object.hasOwn(WRAPPERS, name)

/** Strips wrappers until the program that runs is reached. */
export function unwrap(words: Word[]): Unwrapped {
  const via: string[] = []
  const assignments: Word[] = []
  const stages: Word[][] = []
  let argv = words
  for (let depth = 0; depth < 32 && argv.length > 0; depth++) {
    const first = argv[0]!
    if (!first.literal) break
    const name = basename(first.value)
    // Own entries only: a program named `__proto__` or `constructor` is not a wrapper.
    const wrapper = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined
    if (!wrapper) break
    const step = wrapper(argv)
    if (step.kind === 'program') break
    via.push(name)
    stages.push(argv)
    if (step.kind === 'script') return { argv: [], via, script: step.script, assignments, stages }
    if (step.kind === 'none') return { argv: step.shell ? [literalWord('sh')] : [], via, assignments, stages }
    if (step.assignments) assignments.push(...argv.slice(step.rest - step.assignments, step.rest))
    // `sudo -e FILE` / sudoedit: an editor writing FILE, judged like other writers.
    if (step.edit) return { argv: [literalWord('sudoedit'), ...argv.slice(step.rest)], via, assignments, stages }
    argv = argv.slice(step.rest)
    if (step.shell) argv = [literalWord('bash'), ...argv]
    const replace = step.replace
    if (replace) argv = argv.map((w) => (w.value.includes(replace) ? { ...w, value: w.value.replaceAll(replace, UNKNOWN), literal: false } : w))
  }
  return { argv, via, assignments, stages }
}
