// Dangerous-command detection on the shell parse: every simple command the script would run
// (through pipelines, lists, subshells, functions, substitutions, heredocs and `sh -c` bodies) is
// judged after its wrappers by the per-program rules, and every redirection by its target.

import { FINDINGS, type FindingKey } from './patterns.ts'
import { isProcessEnviron, isSecretRead, writeTargetKey, type PathContext } from './paths.ts'
import { commandOptions, judgeAssignment } from './interpreters.ts'
import { execTargetsOf, judgeProgram, sqlFindings, type Judge } from './rules.ts'
import { parseScript, shellParser, type ParsedScript, type SimpleCommand, type Stdin } from './shell-parse.ts'
import { basename, unwrap } from './wrappers.ts'
import type { Word } from './words.ts'

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
    const judgeScript = (source: string, depth: number, stdin?: Stdin): void => {
      if (depth > MAX_DEPTH) return void keys.add('unparseable')
      const script = parseScript(parser, source, stdin)
      if (script.hasError) keys.add('unparseable')
      judgeRedirects(script, options, keys)
      const execTargets = new Set(script.commands.flatMap((c) => execTargetsOf(unwrap(c.words).argv)))
      const judgeFor = (cmd: SimpleCommand, cwd?: string): Judge => {
        const j: Judge = {
          emit: (key) => void keys.add(key),
          // The body reads what the command reads (`curl … | bash -c 'source /dev/stdin'`).
          script: (body: Word) => (body.literal ? judgeScript(body.value, depth + 1, cmd.stdin) : void keys.add('inline-script')),
          argv: (words, via) => judgeWords(words, via, j),
          cmd,
          execTargets,
          paths: options,
          cwd,
        }
        return j
      }
      const bare = judgeFor({ words: [], redirects: [], inPipeline: false, background: false })
      for (const { name, value } of script.assignments) judgeAssignment(name, value, bare)
      for (const key of sqlFindings(script.commands)) keys.add(key)
      let cwd: string | undefined
      for (const cmd of script.commands) {
        judgeWords(cmd.words, [], judgeFor(cmd, cwd))
        cwd = cwdAfter(cmd, cwd)
      }
    }
    judgeScript(command.normalize('NFKC'), 0)
    return toAssessment(keys)
  }
}

/** Reserved words tree-sitter leaves as plain words after a keyword (`time { …; }`, `time ! …`). */
const RESERVED = new Set(['{', '!'])

function judgeWords(words: Word[], outer: string[], j: Judge): void {
  const unwrapped = unwrap(words)
  const start = unwrapped.argv.findIndex((w) => !RESERVED.has(w.value))
  const { via, script, assignments, stages } = unwrapped
  const argv = start > 0 ? unwrapped.argv.slice(start) : unwrapped.argv
  for (const stage of [...stages, argv]) if (stage[0]?.literal) commandOptions(basename(stage[0].value), stage, j)
  for (const w of assignments) judgeAssignment(w.value.slice(0, w.value.indexOf('=')), { ...w, value: w.value.slice(w.value.indexOf('=') + 1) }, j)
  if (script) j.script(script)
  judgeProgram(argv, [...outer, ...via], j)
}

/** The working directory after `cd DIR` / `pushd DIR` when it is literal (`cd` alone: home). */
function cwdAfter(cmd: SimpleCommand, cwd: string | undefined): string | undefined {
  const { argv } = unwrap(cmd.words)
  if (!/^(?:cd|pushd)$/.test(argv[0]?.value ?? '')) return cwd
  const dir = argv.slice(1).find((w) => !/^-./.test(w.value))
  if (!dir) return '~'
  if (!dir.literal) return undefined
  if (/^[/~]/.test(dir.value)) return dir.value
  return cwd === undefined ? undefined : `${cwd}/${dir.value}`
}

function judgeRedirects(script: ParsedScript, options: AssessOptions, keys: Set<FindingKey>): void {
  for (const { op, target } of script.redirects) {
    if (op.includes('>') && !DESCRIPTOR.test(target.value)) {
      const key = writeTargetKey(target.value, options)
      if (key) keys.add(key)
    }
    if (/^\/dev\/(?:tcp|udp)\//.test(target.value)) keys.add('network-shell')
    if (op.startsWith('<') && isProcessEnviron(target.value)) keys.add('process-environ')
    else if (op.startsWith('<') && isSecretRead(target.value, options)) keys.add('secret-read')
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
