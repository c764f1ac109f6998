// Command wrappers: programs that run another program given in their arguments (`sudo -u root rm`,
// `env -i A=1 rm`, `timeout 5 rm`, `xargs rm`, `busybox rm`, …). Unwrapping them (with their options)
// finds the program that really runs; some take a shell command string instead (`su -c`, `flock -c`).

import { literalWord, type Word } from './words.ts'

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
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/

type Step =
  | { kind: 'run'; rest: number; assignments?: number; edit?: boolean }
  | { kind: 'script'; script: Word }
  | { kind: 'none'; shell?: boolean }
  | { kind: 'program' }
type Unwrap = (words: Word[]) => Step

const skip = (spec: OptSpec, operands = 0): Unwrap => (words) => ({ kind: 'run', rest: skipOptions(words, 1, spec) + operands })

/** The value of option `-x` / `--long` (attached, `=`, or the next word). */
function optionValue(words: Word[], short: string, long?: string): Word | undefined {
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value
    if (long && w.startsWith(`--${long}=`)) return { ...words[i]!, value: w.slice(long.length + 3) }
    if ((long && w === `--${long}`) || (/^-[^-]/.test(w) && w.endsWith(short))) return words[i + 1]
  }
  return undefined
}

const WRAPPERS: Record<string, Unwrap> = {
  env: (words) => {
    const from = skipOptions(words, 1, { arg: 'uCPS', long: ['unset', 'chdir', 'split-string'] })
    // Only env's own options: a `-S` further on belongs to the program it runs.
    const split = optionValue(words.slice(0, from), 'S', 'split-string')
    if (split) return { kind: 'script', script: split }
    let i = from
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++
    return { kind: 'run', rest: i, assignments: i - from }
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
    const body = optionValue(words, 'c', 'command')
    return body ? { kind: 'script', script: body } : { kind: 'none', shell: true }
  },
  runuser: (words) => {
    const body = optionValue(words, 'c', 'command')
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
  coproc: skip({}),
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
  xargs: skip({ arg: 'adEILnPs', optional: 'eil', long: ['arg-file', 'delimiter', 'max-lines', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'] }),
  busybox: skip({}),
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
    const body = optionValue(words, 'c', 'command')
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

function joined(rest: Word[]): Step {
  return { kind: 'script', script: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal) } }
}

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
    const wrapper = WRAPPERS[name]
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
  }
  return { argv, via, assignments, stages }
}
