// Rules for programs that run code: shells (`sh -c` bodies and heredocs are judged as scripts of
// their own), other interpreters (python, perl, node, … : inline code cannot be judged, so it needs
// approval), `source`/`.` and `eval`; and where their program comes from (a pipe, a heredoc, `<(…)`).

import type { Judge } from './rules.ts'
import { skipOptions } from './wrappers.ts'
import type { Word } from './words.ts'

interface Interpreter {
  /** Short options whose cluster means "the code is the next argument" (`-c`, `-e`). */
  inline: string
  /** Long or single-dash word options meaning the same (`--eval`, `-Command`). */
  inlineWords?: RegExp
  /** Short options that take an argument. */
  arg?: string
  long?: string[]
  /** Short option naming a module to run (python -m): the program does not come from stdin. */
  module?: string
  shell?: boolean
}

const SHELL: Interpreter = { inline: 'c', arg: 'oO', long: ['rcfile', 'init-file'], shell: true }
const SHELLS = ['sh', 'bash', 'rbash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'oksh', 'yash', 'ash', 'posh', 'fish', 'csh', 'tcsh', 'elvish', 'nu', 'xonsh']

const INTERPRETERS: Array<[RegExp, Interpreter]> = [
  [/^(?:python|pypy)[0-9.]*$/, { inline: 'c', arg: 'WXQ', module: 'm' }],
  [/^perl[0-9.]*$/, { inline: 'eE' }],
  [/^ruby[0-9.]*$/, { inline: 'e', arg: 'rIEC' }],
  [/^(?:node|nodejs|bun)$/, { inline: 'ep', inlineWords: /^--(?:eval|print)(?:=|$)/, arg: 'r', long: ['require', 'import', 'loader', 'experimental-loader'] }],
  [/^php[0-9.]*$/, { inline: 'rRBE', arg: 'cdz' }],
  [/^(?:lua[0-9.]*|luajit)$/, { inline: 'e', arg: 'l' }],
  [/^(?:osascript|rscript|groovy|julia)$/, { inline: 'eE', arg: 'l' }],
  [/^(?:expect|tclsh[0-9.]*|wish[0-9.]*)$/, { inline: 'c' }],
  [/^(?:pwsh|powershell)(?:\.exe)?$/, { inline: '', inlineWords: /^-(?:c|command|e|ec|enc|encodedcommand)$/i }],
  [/^(?:deno|irb|jshell|swift|guile|racket|sbcl|clisp|ghci|runghc|scala|kotlinc|jrunscript)$/, { inline: 'e' }],
]

const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'])

export function interpreterFor(name: string): Interpreter | undefined {
  if (SHELLS.includes(name)) return SHELL
  return INTERPRETERS.find(([re]) => re.test(name))?.[1]
}

/** A shell or interpreter run: inline code, code from stdin, code from a process substitution. */
export function judgeInterpreter(name: string, spec: Interpreter, argv: Word[], j: Judge): void {
  // `+o opt` (shells) are options too; skipOptions stops at them, so step over them here.
  let i = 1
  let flags = ''
  for (;;) {
    const next = skipOptions(argv, i, { arg: spec.arg, long: spec.long })
    flags += argv.slice(i, next).map((w) => clusterLetters(w.value, spec.arg ?? '')).join('')
    if (argv.slice(i, next).some((w) => spec.inlineWords?.test(w.value))) flags += '\u0001'
    i = next
    if (spec.shell && /^\+[oO]$/.test(argv[i]?.value ?? '')) i += 2
    else break
  }
  if (/^-(?:e|ec|enc|encodedcommand)$/i.test(argv.find((w) => spec.inlineWords?.test(w.value))?.value ?? '') && /^(?:pwsh|powershell)/.test(name)) j.emit('windows-delete')
  const inline = flags.includes('\u0001') || [...spec.inline].some((c) => flags.includes(c))
  if (name === 'deno') return denoRun(argv, i, j)
  if (inline) {
    const body = argv[i]
    if (spec.shell && body?.literal) j.script(body)
    else j.emit('inline-script')
    return
  }
  if (spec.module && [...spec.module].some((c) => flags.includes(c))) return
  programFrom(argv[i], j, Boolean(spec.shell), spec.shell === true && flags.includes('s'))
}

/** The option letters of a short cluster, up to one that takes the rest as its value (`-Werror::x` is W). */
function clusterLetters(word: string, arg: string): string {
  if (!/^-[^-]/.test(word)) return ''
  let letters = ''
  for (const c of word.slice(1)) {
    letters += c
    if (arg.includes(c)) break
  }
  return letters
}

/** `deno eval CODE` is inline; `deno run -` reads stdin. */
function denoRun(argv: Word[], i: number, j: Judge): void {
  const sub = argv[i]?.value
  if (sub === 'eval') return j.emit('inline-script')
  if (sub === 'run') programFrom(argv[skipOptions(argv, i + 1)], j, false, false)
}

/** Where the program of a shell or interpreter comes from, given its script operand. */
export function programFrom(operand: Word | undefined, j: Judge, shell: boolean, forceStdin: boolean): void {
  if (operand?.procSub) return j.emit('remote-script')
  const fromStdin = forceStdin || !operand || STDIN_PATHS.has(operand.value)
  if (!fromStdin) {
    if (j.execTargets.has(scriptPath(operand.value))) j.emit('chmod-exec-run')
    return
  }
  const stdin = j.cmd.stdin
  if (!stdin) return // an interactive session
  if (stdin.kind === 'pipe') return j.emit('pipe-to-shell')
  if (stdin.kind === 'file') {
    if (stdin.target.procSub) j.emit('remote-script')
    return
  }
  if (shell && stdin.text.literal) j.script(stdin.text)
  else j.emit('heredoc-script')
}

/** `source FILE` / `. FILE`: like a shell reading FILE. */
export function judgeSource(argv: Word[], j: Judge): void {
  const operand = argv[skipOptions(argv, 1)]
  if (!operand) return
  programFrom(operand, j, true, false)
}

/** `eval …`: always needs approval; its literal text is judged as a script too. */
export function judgeEval(argv: Word[], j: Judge): void {
  j.emit('eval')
  const args = argv.slice(1)
  if (args.length && args.every((w) => w.literal)) j.script({ value: args.map((w) => w.value).join(' '), literal: true })
}

/** `./x`, `x` and `/abs/x` all name the file a `chmod +x x` made executable. */
export function scriptPath(value: string): string {
  return value.replace(/^(?:\.\/)+/, '')
}

