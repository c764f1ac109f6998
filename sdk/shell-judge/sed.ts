// sed: the commands a sed script runs (GNU `e`, the `e` flag of `s///`), the files it writes (`w FILE`,
// the `w` flag, `-i`) and reads (`r FILE`), whether the script is given inline (`-e`, the first operand)
// or as a file (`-f F`; `-f -` reads it from stdin: a literal heredoc is judged, anything else is not
// known). sed scripts have no parser here: their commands are found by shape, after an address.

import { programFile } from './interpreters.ts'
import { getopt, hasOption, valuesOf, type Getopt, type Judge, type Rule } from './judge.ts'
import { reads } from './readers.ts'
import { writes } from './writers.ts'
import type { Word } from './words.ts'

const SED: Getopt = { arg: 'efl', optional: 'i', long: ['expression', 'file', 'line-length'] }

export const sed: Rule = (argv, j) => {
  const read = getopt(argv, SED)
  const scripts = valuesOf(read, 'e', 'expression')
  const files = valuesOf(read, 'f', 'file')
  const inline = !scripts.length && !files.length
  for (const script of inline ? read.operands.slice(0, 1) : scripts) sedScript(script, j)
  for (const file of files) programFile(file, j, (text) => sedScript(text, j))
  if (hasOption(read, 'i', 'in-place')) writes(read.operands.slice(inline ? 1 : 0), j)
}

/** A line address or range (`3`, `$`, `/re/`, `1,/re/`, `0~4`). */
const ADDRESS = String.raw`(?:\d+|\$|\/(?:[^/\\\n]|\\.)*\/)(?:\s*[,~]\s*(?:\d+|\$|\/(?:[^/\\\n]|\\.)*\/))?`
/** Where a command starts: the script's start or after `;`, a newline or a brace, then an address, `!`. */
const START = String.raw`(?:^|[;\n{}])\s*(?:${ADDRESS})?\s*!?\s*`
/** `s` with any delimiter, its two parts, and its flags (`s/a/b/gw F`, `s|a|b|e`). */
const SUBST = String.raw`s(.)(?:(?!\1)[^\\\n]|\\.)*\1(?:(?!\1)[^\\\n]|\\.)*\1`

const EXECUTES = [new RegExp(`${START}e(?:\\s|;|$)`), new RegExp(`${SUBST}[gpIiMm0-9w]*e`)]
const WRITES = [new RegExp(`${START}[wW]\\s*([^\\n]+)`, 'g'), new RegExp(`${SUBST}[gpIiMme0-9]*w\\s*([^\\n]+)`, 'g')]
const READS = new RegExp(`${START}[rR]\\s*([^\\n;}]+)`, 'g')

/** One sed script: `e` runs a command (needs approval); `w FILE` writes FILE; `r FILE` reads it. */
function sedScript(script: Word, j: Judge): void {
  if (EXECUTES.some((re) => re.test(script.value))) j.emit('inline-script')
  const file = (m: RegExpMatchArray): Word => ({ value: m[m.length - 1]!.trim(), literal: script.literal })
  for (const re of WRITES) writes([...script.value.matchAll(re)].map(file), j)
  reads('sed', [{ value: 'sed', literal: true }, ...[...script.value.matchAll(READS)].map(file)], j)
}
