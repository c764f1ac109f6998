// What the terminal sandbox adds to one command: `true` through the terminal tool, unconfined and
// under bubblewrap (protected places read-only, its own /proc), p50 and p90 of 60 runs each after a
// warm-up. The figure to keep small next to what commands themselves take. Prints; asserts nothing.

import { createTestKernel } from '../../sdk/testing/index.ts'
import { bwrapWorks } from '../extensions/tools-terminal/helpers.ts'

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!

async function measure(sandbox: 'off' | 'auto'): Promise<number[]> {
  const k = await createTestKernel({ builtins: ['tools-terminal'], config: { terminal: { sandbox } } })
  try {
    const tool = k.kernel.registries.tools.get('terminal') as { execute(call: unknown): Promise<unknown> }
    const session = { id: 'bench', cwd: k.home }
    const run = () => tool.execute({ input: { command: 'true' }, callId: 'c', signal: new AbortController().signal, session })
    for (let i = 0; i < 10; i++) await run()
    const times: number[] = []
    for (let i = 0; i < 60; i++) {
      const started = performance.now()
      await run()
      times.push(performance.now() - started)
    }
    return times
  } finally {
    await k.close()
  }
}

if (!bwrapWorks) {
  console.log('terminal sandbox: bubblewrap cannot run here; nothing to measure')
} else {
  const off = await measure('off')
  const on = await measure('auto')
  console.log(`terminal command (\`true\`): unconfined p50 ${pct(off, 50).toFixed(1)} ms, p90 ${pct(off, 90).toFixed(1)} ms; in the sandbox p50 ${pct(on, 50).toFixed(1)} ms, p90 ${pct(on, 90).toFixed(1)} ms (adds ${(pct(on, 50) - pct(off, 50)).toFixed(1)} ms)`)
}
