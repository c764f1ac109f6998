// Start-up of the `agent` command against a bare `node -e 0`:
//   --version within 2.5× bare; --help within 6× bare (warm); the first --help after a fresh
//   install (loader cache and help snapshot empty) within 3 s.
// Each figure is the median of several runs of a fresh process.

import { execFileSync, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AGENT_BIN } from '../helpers/agent-process.ts'
import { hermeticEnv } from '../../sdk/testing/index.ts'

const root = join(AGENT_BIN, '..', '..', '..')
const home = mkdtempSync(join(tmpdir(), 'agent-bench-'))
const env = hermeticEnv({}, home)

function timeRun(args: string[]): number {
  const start = process.hrtime.bigint()
  const result = spawnSync(process.execPath, args, { env, cwd: home, stdio: ['ignore', 'ignore', 'pipe'] })
  if (result.status !== 0) throw new Error(`${args.join(' ')} failed: ${result.stderr}`)
  return Number(process.hrtime.bigint() - start) / 1e6
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

function runs(n: number, fn: () => number): number {
  return median(Array.from({ length: n }, fn))
}

function clearCaches(): void {
  rmSync(join(root, 'node_modules', '.cache', 'agent'), { recursive: true, force: true })
  rmSync(join(home, 'cache'), { recursive: true, force: true })
}

timeRun(['-e', '0'])
const bare = runs(11, () => timeRun(['-e', '0']))
const version = runs(11, () => timeRun([AGENT_BIN, '--version']))
timeRun([AGENT_BIN, '--help'])
const helpWarm = runs(11, () => timeRun([AGENT_BIN, '--help']))
const helpFull = runs(5, () => {
  rmSync(join(home, 'cache'), { recursive: true, force: true })
  return timeRun([AGENT_BIN, '--help'])
})
const helpCold = runs(3, () => {
  clearCaches()
  return timeRun([AGENT_BIN, '--help'])
})
timeRun([AGENT_BIN, '--help'])

const extensions = JSON.parse(execFileSync(process.execPath, [AGENT_BIN, 'extensions', 'list', '--json'], { env, cwd: home, encoding: 'utf8' })).length
const line = (name: string, ms: number, target: string, ok: boolean) => console.log(`${name.padEnd(42)} ${ms.toFixed(0).padStart(6)} ms   ${target.padEnd(22)} ${ok ? 'ok' : 'MISSED'}`)
console.log(`extensions loaded: ${extensions}`)
line('node -e 0 (bare)', bare, '', true)
line('agent --version', version, `≤ 2.5× bare (${(version / bare).toFixed(2)}×)`, version <= 2.5 * bare)
line('agent --help (warm, snapshot)', helpWarm, `≤ 6× bare (${(helpWarm / bare).toFixed(2)}×)`, helpWarm <= 6 * bare)
line('agent --help (warm loader, full load)', helpFull, `info (${(helpFull / bare).toFixed(2)}×)`, true)
line('agent --help (fresh install, caches empty)', helpCold, '≤ 3000 ms', helpCold <= 3000)
rmSync(home, { recursive: true, force: true })
