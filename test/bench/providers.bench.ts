// Per-call cost of each provider client against a zero-latency loopback fake of its wire protocol:
// p50/p99 milliseconds of a plain completion and of a streamed one (a 400-character answer in
// 8-character deltas), after a warm-up. What the agent adds per model call, before any model latency.

import { createTestKernel } from '../../sdk/testing/index.ts'
import type { ModelsService } from '../../sdk/index.ts'
import { HARNESSES } from '../conformance/provider-harnesses.ts'

const WARMUP = 30
const CALLS = 200
const ANSWER = 'x'.repeat(400)

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(2)

for (const harness of HARNESSES) {
  const { fake, env, config } = await harness.start()
  const calls = harness.http ? CALLS : 20 // the ACP shim starts a process per call
  const tk = await createTestKernel({ builtins: harness.builtins, env, config })
  try {
    const client = await tk.kernel.services.require<ModelsService>('models').resolve()
    const figures: string[] = []
    for (const streaming of [false, true]) {
      const times: number[] = []
      for (let i = 0; i < (harness.http ? WARMUP : 2) + calls; i++) {
        fake.enqueue({ text: ANSWER, chunkSize: 8 })
        const started = performance.now()
        await client.complete({ messages: [{ role: 'user', content: 'bench' }] }, streaming ? { onDelta: () => {} } : {})
        if (i >= (harness.http ? WARMUP : 2)) times.push(performance.now() - started)
      }
      times.sort((a, b) => a - b)
      figures.push(`${streaming ? 'streamed' : 'plain'} p50 ${pct(times, 50)} ms p99 ${pct(times, 99)} ms`)
    }
    console.log(`${harness.name}: ${figures.join('; ')} (${calls} calls each)`)
  } finally {
    await tk.close()
    await fake.close()
  }
}
