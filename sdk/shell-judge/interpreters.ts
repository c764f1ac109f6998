// Rules for programs that run code: shells (`sh -c` bodies and heredocs are judged as scripts of
// their own), other interpreters (python, perl, node, … : inline code cannot be judged, so it needs
// approval), `source`/`.` and `eval`, and where their program comes from (a pipe, a heredoc, `<(…)`);
// makefiles from stdin; also code hidden in values: `alias`, `trap`, git settings, variables such as EDITOR.
// awk is awk.ts, sed is sed.ts.

import { agentScript } from './agent-bin.ts'
import { frameworkScript } from './infra-frameworks.ts'
import { getopt, valuesOf, type Getopt, type Judge, type Rule } from './judge.ts'
import { pathShape } from './paths.ts'
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
  /** Runs JavaScript files: its script may be the agent's bin (agent-bin.ts). */
  agentBin?: boolean
}

const SHELL: Interpreter = { inline: 'c', arg: 'oO', long: ['rcfile', 'init-file'], shell: true }
const SHELLS = ['sh', 'bash', 'rbash', 'dash', 'zsh', 'ksh', 'ksh93', 'mksh', 'pdksh', 'oksh', 'yash', 'ash', 'posh', 'fish', 'csh', 'tcsh', 'elvish', 'nu', 'xonsh']

const INTERPRETERS: Array<[RegExp, Interpreter]> = [
  [/^(?:python|pypy)[0-9.]*$/, { inline: 'c', arg: 'WXQ', module: 'm' }],
  [/^perl[0-9.]*$/, { inline: 'eE' }],
  [/^ruby[0-9.]*$/, { inline: 'e', arg: 'rIEC' }],
  [/^(?:node|nodejs|bun)$/, { inline: 'ep', inlineWords: /^--(?:eval|print)(?:=|$)/, arg: 'r', long: ['require', 'import', 'loader', 'experimental-loader'], agentBin: true }],
  [/^php[0-9.]*$/, { inline: 'rRBE', arg: 'cdz' }],
  [/^(?:lua[0-9.]*|luajit)$/, { inline: 'e', arg: 'l' }],
  [/^(?:osascript|rscript|groovy|julia)$/, { inline: 'eE', arg: 'l' }],
  [/^(?:expect|tclsh[0-9.]*|wish[0-9.]*)$/, { inline: 'c' }],
  [/^(?:pwsh|powershell)(?:\.exe)?$/, { inline: '', inlineWords: /^-(?:c|command|e|ec|enc|encodedcommand)$/i }],
  [/^(?:deno|irb|jshell|swift|guile|racket|sbcl|clisp|ghci|runghc|scala|kotlinc|jrunscript)$/, { inline: 'e' }],
]

const STDIN_PATHS = new Set(['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '/proc/thread-self/fd/0'])
/** A program read from stdin, however spelled (`/dev/./stdin`, `//dev/stdin`, `/proc/$$/fd/0`). */
const isStdin = (value: string) => STDIN_PATHS.has(value) || (value.startsWith('/') && (STDIN_PATHS.has(`/${pathShape(value).segments.join('/')}`) || /^\/proc\/[^/]+\/fd\/0$/.test(`/${pathShape(value).segments.join('/')}`)))
/** A program read from another descriptor (`bash /dev/fd/3` after `exec 3< <(curl …)`): where it comes from is not known. */
const isDescriptor = (value: string) => value.startsWith('/') && /^\/(?:dev\/fd|proc\/[^/]+\/fd)\/[^/]+$/.test(`/${pathShape(value).segments.join('/')}`)

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
    // `bash +x -c …`, `sh +o posix …`: set options with `+` are options too.
    if (spec.shell && /^\+[oO]$/.test(argv[i]?.value ?? '')) i += 2
    else if (spec.shell && /^\+[a-zA-Z]+$/.test(argv[i]?.value ?? '')) i += 1
    else break
  }
  if (/^-(?:e|ec|enc|encodedcommand)$/i.test(argv.find((w) => spec.inlineWords?.test(w.value))?.value ?? '') && /^(?:pwsh|powershell)/.test(name)) j.emit('windows-delete')
  const inline = flags.includes('\u0001') || [...spec.inline].some((c) => flags.includes(c))
  if (name === 'deno') return denoRun(argv, i, j)
  if (inline) {
    const body = argv[i]
    if (spec.shell && body?.literal) j.script(body, argv.slice(i + 1))
    else j.emit('inline-script')
    return
  }
  const module = Boolean(spec.module && [...spec.module].some((c) => flags.includes(c)))
  frameworkScript(argv.slice(i), module, j, name)
  if (module) return
  // `node …/kernel/bin/agent.mjs ARGS`: the agent's own CLI.
  const agent = spec.agentBin ? agentScript(argv, j) : undefined
  if (agent) j.argv(agent, [name])
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
  const fromStdin = forceStdin || !operand || isStdin(operand.value)
  if (!fromStdin && isDescriptor(operand.value)) return j.emit('remote-script')
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

/**
 * The program file of a language other than the shell (`awk -f F`, `sed -f F`, `make -f F`): from
 * stdin, a literal heredoc is judged by `analyse` when the language has one; otherwise it is judged
 * as any interpreter's program (a pipe, a process substitution, another descriptor need approval).
 */
export function programFile(operand: Word, j: Judge, analyse?: (text: Word) => void): void {
  const stdin = j.cmd.stdin
  if (analyse && isStdin(operand.value) && stdin?.kind === 'text' && stdin.text.literal) return analyse(stdin.text)
  programFrom(operand, j, false, false)
}

/** GNU make options that take a value (`-j`, `-l`, `-O` only attached). */
const MAKE: Getopt = { arg: 'CfIoWE', optional: 'jlO', long: ['directory', 'file', 'makefile', 'include-dir', 'old-file', 'assume-old', 'what-if', 'new-file', 'assume-new', 'eval', 'jobserver-style'] }

/** make: a makefile from stdin or a process substitution (`make -f -`), or given inline (`--eval`), runs its recipes. */
export const make: Rule = (argv, j) => {
  const read = getopt(argv, MAKE)
  if (valuesOf(read, 'E', 'eval').length) j.emit('inline-script')
  for (const file of valuesOf(read, 'f', 'file', 'makefile')) programFile(file, j)
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

/** Variables whose value is a command something runs (`GIT_SSH_COMMAND`, `EDITOR`, `PROMPT_COMMAND`). */
const COMMAND_VARS = /^(?:GIT_SSH_COMMAND|GIT_SSH|GIT_PROXY_COMMAND|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_PAGER|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|EDITOR|VISUAL|PAGER|MANPAGER|PROMPT_COMMAND|BROWSER|LESSOPEN|LESSCLOSE)$/
/** Variables that load code into whatever runs next. */
const CODE_VARS = /^(?:LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES|BASH_ENV|ENV|PERL5OPT|RUBYOPT|BASH_FUNC_.*)$/

/** An assignment (`A=1 cmd`, `export A=1`, `env A=1 cmd`) of a variable that carries code. */
export function judgeAssignment(name: string, value: Word, j: Judge): void {
  if (COMMAND_VARS.test(name)) return value.literal ? j.script(value) : j.emit('inline-script')
  // A function handed down through the environment (`env 'BASH_FUNC_ls%%=() { …; }' bash -c ls`).
  if (/^BASH_FUNC_/.test(name)) {
    j.emit('inline-script')
    if (value.literal && /^\s*\(\)/.test(value.value)) j.script({ ...value, value: `f${value.value}` })
    return
  }
  // Settings git reads from the environment (`GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=…`).
  if (/^GIT_CONFIG_KEY_\d+$/.test(name) && (!value.literal || COMMAND_KEY.test(value.value) || /^alias\./i.test(value.value))) return j.emit('inline-script')
  if (name === 'GIT_CONFIG_PARAMETERS' && (!value.literal || /alias\.|protocol\.|\b(?:sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy|helper|textconv|command|clean|smudge|process|driver|external|program|path|cmd|uploadpack|receivepack)\b/i.test(value.value))) return j.emit('inline-script')
  // The alias table and the command hash (`BASH_ALIASES[ls]=rm`, `BASH_CMDS[ls]=/bin/rm`): a name runs something else.
  if (/^BASH_(?:ALIASES|CMDS)(?:\[|$)/.test(name)) return j.emit('dynamic-command')
  if (CODE_VARS.test(name) || (name === 'NODE_OPTIONS' && /(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader)\b/.test(value.value))) j.emit('inline-script')
}

/** `git -c` settings that run a command: an alias with `!`, editors, pagers, hooks, ssh, filters. */
export function gitConfig(config: Word, j: Judge): void {
  const [key = '', ...rest] = config.value.split('=')
  const value = rest.join('=')
  if (/^alias\./i.test(key) && value.trimStart().startsWith('!')) return j.script({ ...config, value: value.trimStart().slice(1) })
  if (COMMAND_KEY.test(key)) j.emit('inline-script')
}

/** git settings whose value is a command git runs, or a file of more settings (include.path). */
const COMMAND_KEY = /^(?:core\.(?:sshcommand|pager|editor|fsmonitor|hookspath|askpass|gitproxy|alternaterefscommand)|sequence\.editor|credential\.(?:.*\.)?helper|(?:diff|filter|merge)\..*\.(?:textconv|command|clean|smudge|process|driver)|diff\.(?:external|.*\.command)|gpg\.(?:.*\.)?program|include\.path|includeif\..*\.path|pager\..*|remote\..*\.(?:uploadpack|receivepack|proxy)|(?:difftool|mergetool|browser|man)\..*\.(?:cmd|path)|web\.browser|interactive\.difffilter|ssh\.variant|.*\.sshcommand)$/i

/** Values a later command runs: `alias x='…'`, `trap '…' EXIT`. */
export function alias(argv: Word[], j: Judge): void {
  for (const w of argv.slice(1)) {
    const at = w.value.indexOf('=')
    if (at > 0) j.script({ ...w, value: w.value.slice(at + 1) })
  }
}
export function trap(argv: Word[], j: Judge): void {
  const i = skipOptions(argv, 1)
  const body = argv[i]
  if (body && body.value !== '-' && argv.length > i + 1) j.script(body)
}

/**
 * Options of other programs whose value is a shell command they run (the GTFOBins family):
 * `tar --to-command=…`, `tar -I …`, `rsync -e …`, `ssh -o ProxyCommand=…`, `zip -TT …`, `man -P …`.
 */
const COMMAND_OPTIONS: Record<string, RegExp> = {
  tar: /^(?:--to-command|-I|--use-compress-program|--info-script|-F|--new-volume-script)$/,
  rsync: /^(?:-e|--rsh|--rsync-path)$/,
  zip: /^(?:-TT|--unzip-command)$/,
  man: /^(?:-P|--pager|-H|--html)$/,
}
const SSH_COMMAND_SETTING = /^(?:ProxyCommand|LocalCommand|KnownHostsCommand)[=\s]+(.*)$/is

export function commandOptions(name: string, argv: Word[], j: Judge): void {
  const option = Object.hasOwn(COMMAND_OPTIONS, name) ? COMMAND_OPTIONS[name] : undefined
  argv.forEach((w, i) => {
    const eq = w.value.indexOf('=')
    const [flag, attached] = w.value.startsWith('--') && eq > 0 ? [w.value.slice(0, eq), w.value.slice(eq + 1)] : [w.value, undefined]
    if (option?.test(flag)) {
      const value = attached !== undefined ? { ...w, value: attached } : argv[i + 1]
      if (value) j.script(value)
    }
    if (name === 'tar' && /^--checkpoint-action=exec=/.test(w.value)) j.script({ ...w, value: w.value.slice('--checkpoint-action=exec='.length) })
    if (/^(?:ssh|scp|sftp|rsync)$/.test(name) && (w.value === '-o' || /^-o./.test(w.value))) {
      const setting = SSH_COMMAND_SETTING.exec(w.value === '-o' ? (argv[i + 1]?.value ?? '') : w.value.slice(2))
      if (setting) j.script({ ...w, value: setting[1]!, literal: w.value === '-o' ? (argv[i + 1]?.literal ?? false) : w.literal })
    }
  })
}
