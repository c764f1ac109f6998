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

type Step = { rest: number; edit?: boolean; script?: undefined; none?: undefined } | { script: Word; rest?: undefined; none?: undefined } | { none: true; rest?: undefined; script?: undefined }
type Unwrap = (words: Word[]) => Step

const skip = (spec: OptSpec, operands = 0): Unwrap => (words) => ({ rest: skipOptions(words, 1, spec) + operands })

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
    const split = optionValue(words, 'S', 'split-string')
    if (split) return { script: split }
    let i = skipOptions(words, 1, { arg: 'uCP', long: ['unset', 'chdir'], optional: '' })
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++
    return { rest: i }
  },
  sudo: (words) => {
    let i = skipOptions(words, 1, { arg: 'ugpCDhrtTUR', long: ['user', 'group', 'prompt', 'close-from', 'chdir', 'host', 'role', 'type', 'command-timeout', 'other-user', 'chroot'] })
    if (/e/.test(shortFlags(words, 1, i)) || words[i - 1]?.value === '--edit') return { rest: i, edit: true }
    while (i < words.length && ASSIGNMENT.test(words[i]!.value)) i++
    return { rest: i }
  },
  doas: skip({ arg: 'uC' }),
  pkexec: skip({ long: ['user'] }),
  su: (words) => {
    const body = optionValue(words, 'c', 'command')
    return body ? { script: body } : { none: true }
  },
  runuser: (words) => {
    const body = optionValue(words, 'c', 'command')
    if (body) return { script: body }
    const i = skipOptions(words, 1, { arg: 'ugGs', long: ['user', 'group', 'supp-group', 'shell'] })
    return { rest: i }
  },
  command: (words) => {
    const i = skipOptions(words, 1)
    return /[vV]/.test(shortFlags(words, 1, i)) ? { none: true } : { rest: i }
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
    return /[pP]/.test(shortFlags(words, 1, i)) ? { none: true } : { rest: i }
  },
  chrt: (words) => {
    const i = skipOptions(words, 1, { arg: 'TPD' })
    return /p/.test(shortFlags(words, 1, i)) ? { none: true } : { rest: i + 1 }
  },
  taskset: (words) => {
    const i = skipOptions(words, 1, { long: ['cpu-list'] })
    return /p/.test(shortFlags(words, 1, i)) ? { none: true } : { rest: i + 1 }
  },
  flock: (words) => {
    const body = optionValue(words, 'c', 'command')
    if (body) return { script: body }
    return { rest: skipOptions(words, 1, { arg: 'wE', long: ['timeout', 'conflict-exit-code'] }) + 1 }
  },
  chroot: skip({ long: ['userspec', 'groups'] }, 1),
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
    return body ? { script: body } : { none: true }
  },
  watch: (words) => {
    const i = skipOptions(words, 1, { arg: 'nq', long: ['interval', 'differences', 'equexit'] })
    if (/x/.test(shortFlags(words, 1, i)) || words.slice(1, i).some((w) => w.value === '--exec')) return { rest: i }
    const rest = words.slice(i)
    return { script: { value: rest.map((w) => w.value).join(' '), literal: rest.every((w) => w.literal) } }
  },
}

/** Strips wrappers until the program that runs is reached. */
export function unwrap(words: Word[]): Unwrapped {
  const via: string[] = []
  let argv = words
  for (let depth = 0; depth < 32 && argv.length > 0; depth++) {
    const first = argv[0]!
    if (!first.literal) break
    const name = basename(first.value)
    const wrapper = WRAPPERS[name]
    if (!wrapper) break
    via.push(name)
    const step = wrapper(argv)
    if (step.script) return { argv: [], via, script: step.script }
    if (step.none) return { argv: [], via }
    // `sudo -e FILE` / sudoedit: an editor writing FILE, judged like other writers.
    if (step.rest !== undefined && step.edit) return { argv: [literalWord('sudoedit'), ...argv.slice(step.rest)], via }
    argv = argv.slice(step.rest ?? argv.length)
  }
  return { argv, via }
}
