// Dangerous-command detection on the shell parse: every simple command the script would run
// (through pipelines, lists, subshells, functions, substitutions, heredocs and `sh -c` bodies) is
// judged after its wrappers by the per-program rules, and every redirection by its target.

import { FINDINGS, type FindingKey } from './patterns.ts'
import { isProcessEnviron, isSecretRead, writeTargetKey, type PathContext } from './paths.ts'
import { commandOptions, judgeAssignment } from './interpreters.ts'
import { placesOf, type Judge } from './judge.ts'
import { dataFindings } from './infra.ts'
import { aliasWords, execTargetsOf, judgeProgram, renamesOf } from './rules.ts'
import { parseScript, shellParser, type ParsedScript, type SimpleCommand, type Stdin } from './shell-parse.ts'
import { basename, optionValue, skipOptions, unwrap } from './wrappers.ts'
import { scriptPath } from './interpreters.ts'
import { UNKNOWN, type Word } from './words.ts'

export interface Finding {
  key: string
  description: string
}

export interface Assessment {
  neverAllowed: Finding[]
  dangerous: Finding[]
}

/** The agent's home (writes into it need approval) and the command's working directory. */
export type AssessOptions = PathContext

/** `sh -c "sh -c '…'"` nests; deeper than this is not something a person writes. */
const MAX_DEPTH = 8
/** Duplicating a descriptor (`2>&1`, `>&-`) is not a write to a file. */
const DESCRIPTOR = /^(?:\d+-?|-)$/

/** Parses and judges `command`; rejects if the parser cannot load (callers must refuse then). */
export async function assessCommand(command: string, options: AssessOptions = {}): Promise<Assessment> {
  return (await commandJudge())(command, options)
}

/** Loads the parser, then judges synchronously (for callers that judge many lines, e.g. a scan). */
export async function commandJudge(): Promise<(command: string, options?: AssessOptions) => Assessment> {
  const parser = await shellParser()
  return (command, options = {}) => {
    const keys = new Set<FindingKey>()
    const judgeScript = (source: string, depth: number, stdin?: Stdin, positional?: Word[], outerRenames?: Map<string, Word[][]>): void => {
      if (depth > MAX_DEPTH) return void keys.add('unparseable')
      const script = parseScript(parser, source, stdin, positional)
      if (script.hasError) keys.add('unparseable')
      const execTargets = new Set(script.commands.flatMap((c) => execTargetsOf(unwrap(c.words).argv)))
      const renames = renamesIn(script, outerRenames)
      const judgeFor = (cmd: SimpleCommand, cwd?: string): Judge => {
        const j: Judge = {
          emit: (key) => void keys.add(key),
          // The body reads what the command reads (`curl … | bash -c 'source /dev/stdin'`), unless told.
          script: (body: Word, args?: Word[], stdin?: Stdin) => (body.literal ? judgeScript(body.value, depth + 1, stdin ?? cmd.stdin, args, renames) : void keys.add('inline-script')),
          argv: (words, via) => judgeWords(words, via, j),
          cmd,
          execTargets,
          renames,
          paths: options,
          cwd,
        }
        return j
      }
      const bare = judgeFor({ words: [], redirects: [], inPipeline: false, background: false })
      for (const { name, value } of script.assignments) judgeAssignment(name, value, bare)
      for (const key of dataFindings(script.commands)) keys.add(key)
      // Every working directory the script may be in (a `cd` inside a subshell or a branch may or
      // may not apply later): redirections, which tree-sitter may hang on a list, are judged in each.
      let cwd: string | undefined
      const cwds = new Set<string | undefined>([undefined])
      for (const cmd of script.commands) {
        judgeWords(cmd.words, [], judgeFor(cmd, cwd))
        cwd = cwdAfter(cmd, cwd)
        cwds.add(cwd)
      }
      for (const at of cwds) judgeRedirects(script, options, at, keys)
    }
    for (const { text, structural } of variants(command)) {
      const before = keys.has('unparseable')
      judgeScript(text, 0)
      if (!structural && !before) keys.delete('unparseable')
    }
    return toAssessment(keys)
  }
}

/**
 * The texts to judge for one command, findings united. Bash runs the raw text, so it is always
 * judged as given (fullwidth `＃`, `＇`, `＼` are plain word characters to bash: judging only an
 * NFKC form hid `echo ＃; rm -rf ~`). Bash's lexer also removes every backslash-newline before it
 * splits words (outside single quotes and quoted heredocs), which tree-sitter reads as blanks
 * (`r\<newline>m`) or not at all (a continued heredoc delimiter): the text with every one removed
 * is judged too (a superset of what bash joins: more findings, never fewer). The NFKC form is still
 * judged for look-alike program names (`ｒｍ`), but its parse errors are not bash's, so it does not
 * add `unparseable` (CJK text with fullwidth brackets would otherwise be flagged). Each variant is
 * parsed only when it differs: an ordinary command is parsed once.
 */
function variants(command: string): Array<{ text: string; structural: boolean }> {
  const out = [{ text: command, structural: true }]
  const joined = command.includes('\\\n') ? command.replace(/\\\n/g, '') : command
  if (joined !== command) out.push({ text: joined, structural: true })
  for (const text of new Set([command.normalize('NFKC'), joined.normalize('NFKC')])) {
    if (!out.some((v) => v.text === text)) out.push({ text, structural: false })
  }
  return out
}

/** Reserved words tree-sitter leaves as plain words after a keyword (`time { …; }`, `time ! …`). */
const RESERVED = new Set(['{', '!'])

/**
 * What names stand for after the script renamed programs to them (see renamesOf), with those of the
 * script around it (a copied file stays; an alias is taken as staying too). `BASH_ALIASES[NAME]=…`
 * and `BASH_CMDS[NAME]=…` set aliases and the command hash as `alias` and `hash -p` do.
 */
function renamesIn(script: ParsedScript, outer?: Map<string, Word[][]>): Map<string, Word[][]> {
  const renames = new Map<string, Word[][]>(outer)
  const add = (name: string, words: Word[]) => renames.set(name, [...(renames.get(name) ?? []), words])
  for (const cmd of script.commands) for (const [name, words] of renamesOf(unwrap(cmd.words).argv)) add(name, words)
  for (const { name, value } of script.assignments) {
    const table = /^BASH_(ALIASES|CMDS)\[(.*)\]$/s.exec(name)
    if (table) add(table[2]!.replace(/^(['"])(.*)\1$/s, '$2'), table[1] === 'ALIASES' ? aliasWords(value) : [value.literal ? value : { value: UNKNOWN, literal: false }])
  }
  return renames
}

/** The words a program name stands for after a rename (none for a name not renamed). */
function renamedTo(program: Word | undefined, renames: Map<string, Word[][]>): Word[][] {
  if (!program?.literal || renames.size === 0) return []
  const names = new Set([program.value, scriptPath(program.value), basename(program.value)])
  return [...names].flatMap((n) => renames.get(n) ?? []).filter((words) => words.length > 0 && words[0]!.value !== program.value)
}

/** Renames followed at most this deep (`alias a=b b=c c=rm`). */
const MAX_RENAMES = 4

function judgeWords(words: Word[], outer: string[], j: Judge, renamed = 0): void {
  const unwrapped = unwrap(words)
  const start = unwrapped.argv.findIndex((w) => !RESERVED.has(w.value))
  const { via, script, assignments, stages } = unwrapped
  const argv = start > 0 ? unwrapped.argv.slice(start) : unwrapped.argv
  // `env -C DIR …`, `sudo -D DIR …`: the program runs there.
  const here = stages.reduce<Judge>((at, stage) => {
    const dir = wrapperDir(stage)
    return dir ? { ...at, cwd: joinCwd(at.cwd, dir) } : at
  }, j)
  for (const stage of [...stages, argv]) if (stage[0]?.literal) commandOptions(basename(stage[0].value), stage, here)
  for (const w of assignments) judgeAssignment(w.value.slice(0, w.value.indexOf('=')), { ...w, value: w.value.slice(w.value.indexOf('=') + 1) }, here)
  if (script) here.script(script)
  judgeProgram(argv, [...outer, ...via], here)
  // A name the script renamed runs that program too: `alias ls=rm; ls -rf ~`, `cp /bin/rm x; ./x -rf ~`.
  if (renamed < MAX_RENAMES) for (const to of renamedTo(argv[0], j.renames)) judgeWords([...to, ...argv.slice(1)], [...outer, ...via], here, renamed + 1)
}

/** The directory a wrapper runs its program in: `env -C DIR`, `env --chdir=DIR`, `sudo -D DIR`. */
function wrapperDir(stage: Word[]): Word | undefined {
  const name = basename(stage[0]?.value ?? '')
  if (name === 'env') return optionValue(stage.slice(0, skipOptions(stage, 1, ENV_SPEC)), 'C', 'chdir', ENV_SPEC)
  if (name === 'sudo') return optionValue(stage.slice(0, skipOptions(stage, 1, SUDO_SPEC)), 'D', 'chdir', SUDO_SPEC)
  return undefined
}
const ENV_SPEC = { arg: 'uCPSa', long: ['unset', 'chdir', 'split-string', 'argv0'] }
const SUDO_SPEC = { arg: 'ugpCDhrtTUR', long: ['user', 'group', 'prompt', 'close-from', 'chdir', 'host', 'role', 'type', 'command-timeout', 'other-user', 'chroot'] }

/**
 * The working directory after `cd DIR` / `pushd DIR` (`cd` alone: home). A relative one is kept
 * relative to the directory the command starts in; a run-time one (`cd "$d"`, `cd -`, `popd`)
 * holds UNKNOWN, so relative paths after it are unknown too.
 */
function cwdAfter(cmd: SimpleCommand, cwd: string | undefined): string | undefined {
  const { argv } = unwrap(cmd.words)
  const name = argv[0]?.value ?? ''
  if (name === 'popd') return UNKNOWN
  if (name !== 'cd' && name !== 'pushd') return cwd
  const dir = argv.slice(1).find((w) => !/^-[LPe@]+$/.test(w.value) && w.value !== '--')
  if (!dir) return name === 'cd' ? '~' : UNKNOWN
  if (dir.value === '-' || /^[+-]\d+$/.test(dir.value)) return UNKNOWN
  return joinCwd(cwd, dir)
}

function joinCwd(cwd: string | undefined, dir: Word): string {
  if (/^[/~]/.test(dir.value)) return dir.value
  return cwd === undefined ? dir.value : `${cwd}/${dir.value}`
}

function judgeRedirects(script: ParsedScript, options: AssessOptions, cwd: string | undefined, keys: Set<FindingKey>): void {
  for (const { op, target } of script.redirects) {
    const places = placesOf(target.value, cwd)
    if (op.includes('>') && !DESCRIPTOR.test(target.value)) {
      for (const place of places) {
        const key = writeTargetKey(place, options)
        if (key) keys.add(key)
      }
    }
    if (/^\/dev\/(?:tcp|udp)\//.test(target.value)) keys.add('network-shell')
    if (op.startsWith('<') && places.some(isProcessEnviron)) keys.add('process-environ')
    else if (op.startsWith('<') && places.some((p) => isSecretRead(p, options))) keys.add('secret-read')
  }
}

function toAssessment(keys: Set<FindingKey>): Assessment {
  const out: Assessment = { neverAllowed: [], dangerous: [] }
  for (const key of keys) {
    const { tier, description } = FINDINGS[key]
    ;(tier === 'never' ? out.neverAllowed : out.dangerous).push({ key, description })
  }
  return out
}
