// awk: what an awk program does besides reading and printing. It runs commands (`system(…)`,
// `print | "cmd"`, `"cmd" | getline`, `|&`), writes files (`print > "F"`, `>>`, gawk `-i inplace`,
// `--pretty-print=F` …) and reads them (`getline < "F"`), whether the program is given inline, with
// gawk `-e`, or as a file (`-f F`; `-f -` reads it from stdin, a literal heredoc is judged).
// gawk `--sandbox` (`-S`) turns all of that off. The program text is read by awk-tokens.ts.

import { awkEffects } from './awk-tokens.ts'
import { programFile } from './interpreters.ts'
import { getopt, hasOption, valuesOf, type Getopt, type Judge, type Rule } from './judge.ts'
import { reads } from './readers.ts'
import { writes } from './writers.ts'
import type { Word } from './words.ts'

/** Options of gawk, mawk and the one true awk that take a value (`-d`, `-o`, `-p`, `-L` only attached). */
const AWK: Getopt = { arg: 'vFfieElW', optional: 'dDopL', long: ['assign', 'field-separator', 'file', 'source', 'include', 'exec', 'load'], posix: true }

const awk: Rule = (argv, j) => {
  const read = getopt(argv, AWK)
  const sandbox = hasOption(read, 'S', 'sandbox')
  const sources = valuesOf(read, 'e', 'source')
  const files = valuesOf(read, 'f', 'file', 'E', 'exec')
  const includes = valuesOf(read, 'i', 'include')
  const inplace = includes.some((w) => /^inplace(?:\.awk)?$/.test(w.value))
  const inline = !sources.length && !files.length
  for (const program of inline ? read.operands.slice(0, 1) : sources) awkProgram(program, j, sandbox)
  for (const file of [...files, ...includes.filter((w) => !/^inplace(?:\.awk)?$/.test(w.value))]) programFile(file, j, (text) => awkProgram(text, j, sandbox))
  if (inplace) writes(read.operands.slice(inline ? 1 : 0).filter((w) => !/^\w+=/.test(w.value)), j)
  // Debugging output files: `--dump-variables=F`, `--pretty-print=F`, `--profile=F`, `-oF`.
  writes(valuesOf(read, 'd', 'o', 'p', 'dump-variables', 'pretty-print', 'profile'), j)
}

/** One awk program: a run-time one cannot be judged; a literal one by what it runs, writes and reads. */
function awkProgram(program: Word, j: Judge, sandbox: boolean): void {
  if (sandbox) return
  if (!program.literal) return j.emit('inline-script')
  const effects = awkEffects(program.value)
  if (effects.commands.length) j.emit('inline-script')
  // A literal command is judged as the shell command it is (`system("rm -rf ~")` is `rm -rf ~`);
  // one that awk prints into reads a pipe (`print | "sh"` is a pipe into a shell).
  for (const { text, piped } of effects.commands) if (text !== undefined) j.script({ value: text, literal: true }, undefined, piped ? { kind: 'pipe' } : undefined)
  writes(effects.writes.map((value) => ({ value, literal: true })), j)
  reads('awk', [{ value: 'awk', literal: true }, ...effects.reads.map((value) => ({ value, literal: true }))], j)
}

/** Rules of the awk family (part of the table in rules.ts). */
export const AWKS: Record<string, Rule> = { awk, gawk: awk, mawk: awk, nawk: awk }
