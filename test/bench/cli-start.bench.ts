// Time to first prompt of the interactive `agent`, in a real terminal (tmux): from starting the
// process to the input prompt and status bar on screen, against a scripted model. One cold run
// (loader cache cleared, as after a fresh install) and the median of warm runs. Target: warm ≤ 1 s.

import { execFileSync } from 'node:child_process'
import { rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import YAML from 'yaml'
import { makeTempHome, startScriptedModel } from '../../sdk/testing/index.ts'
import { AGENT_BIN } from '../helpers/agent-process.ts'
import { hasTmux, openTerminal } from '../helpers/tmux.ts'

if (!hasTmux()) {
  console.log('cli-start: tmux is not installed; skipped')
  process.exit(0)
}

const root = join(AGENT_BIN, '..', '..', '..')
const model = await startScriptedModel()
const home = makeTempHome('agent-bench-cli-')
writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10 }))

async function timeToPrompt(): Promise<number> {
  const started = process.hrtime.bigint()
  const t = openTerminal({ home, columns: 120, rows: 30, env: { AGENT_INFERENCE_PROVIDER: 'custom', OPENAI_BASE_URL: model.url } })
  try {
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      const screen = t.capture()
      // The prompt line and the status bar (which names the provider) are both drawn.
      if (/^› ?$/m.test(screen) && /custom:/.test(screen)) return Number(process.hrtime.bigint() - started) / 1e6
      await new Promise((r) => setTimeout(r, 2))
    }
    throw new Error(`no prompt within 30 s:\n${t.capture()}\n${t.stderr()}`)
  } finally {
    t.close()
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

// tmux's own start, for reference: a shell that prints a prompt-like line at once.
const tmuxStart = (() => {
  const started = process.hrtime.bigint()
  const socket = `agent-bench-${process.pid}`
  execFileSync('tmux', ['-L', socket, '-f', '/dev/null', 'new-session', '-d', '-s', 'ref', '-x', '80', '-y', '10', "printf '› '; sleep 5"])
  while (!execFileSync('tmux', ['-L', socket, 'capture-pane', '-p', '-t', 'ref'], { encoding: 'utf8' }).includes('›'));
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  execFileSync('tmux', ['-L', socket, 'kill-server'])
  return ms
})()

rmSync(join(root, 'node_modules', '.cache', 'agent'), { recursive: true, force: true, maxRetries: 10 })
const cold = await timeToPrompt()
const warm: number[] = []
for (let i = 0; i < 7; i++) warm.push(await timeToPrompt())
await model.close()
rmSync(home, { recursive: true, force: true })

const w = median(warm)
console.log(`cli-start: time to first prompt of \`agent\` in tmux (120x30):`)
console.log(`  cold (loader cache cleared): ${cold.toFixed(0)} ms`)
console.log(`  warm median of ${warm.length}:        ${w.toFixed(0)} ms (min ${Math.min(...warm).toFixed(0)}, max ${Math.max(...warm).toFixed(0)})`)
console.log(`  tmux itself (reference):     ${tmuxStart.toFixed(0)} ms`)
console.log(`  load average (1 min) while measuring: ${loadavg()[0]!.toFixed(2)} on 2 cores expected; figures grow with it`)
console.log(`  target warm ≤ 1000 ms: ${w <= 1000 ? 'met' : 'NOT met'}`)
