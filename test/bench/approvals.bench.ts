// What judging a shell command costs: (1) the first assessment, which loads the tree-sitter-bash
// wasm parser (once per process, never at startup); (2) one assessment afterwards, over the
// dangerous and harmless cases of the approvals table (target p50 ≤ 200 µs). Prints figures;
// asserts nothing.

import { assessCommand, commandJudge } from '../../sdk/shell-judge/index.ts'
import { DANGEROUS, HARMLESS } from '../extensions/approvals/command-cases.ts'

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!

const coldStart = performance.now()
await assessCommand('ls -la')
const cold = performance.now() - coldStart

const judge = await commandJudge()
const commands = [...DANGEROUS.map(([c]) => c), ...HARMLESS]
for (const c of commands) judge(c) // warm up
const times: number[] = []
for (let round = 0; round < 20; round++) {
  for (const c of commands) {
    const started = performance.now()
    judge(c)
    times.push((performance.now() - started) * 1000)
  }
}
console.log(`first assessment (loads the parser): ${cold.toFixed(1)} ms`)
console.log(`assessment over ${commands.length} table commands: p50 ${pct(times, 50).toFixed(0)} µs, p99 ${pct(times, 99).toFixed(0)} µs (target p50 ≤ 200 µs)`)
