import { SESSIONS_SERVICE, type SessionStore } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
const tk = await createTestKernel({ builtins: ['state-db', 'sessions'] })
const s = tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
const turn = async () => {
  const x = await s.create({ source: 'api_server', model: 'm', provider: 'p', cwd: '/tmp', messages: [{ role: 'user', content: 'hello' }] })
  await new Promise((r) => setImmediate(r))
  await s.append(x.id, [{ role: 'assistant', content: 'Hello! How can I help?' }], { usage: { inputTokens: 12, outputTokens: 6 }, apiCalls: 1, lastExitReason: 'completed' })
}
for (let round = 0; round < 4; round++) {
  const N = 3000; let next = 0; const c = process.cpuUsage()
  await Promise.all(Array.from({ length: 16 }, async () => { while (next++ < N) await turn() }))
  const u = process.cpuUsage(c); console.log(((u.user + u.system) / N).toFixed(1), 'µs cpu per turn at 16')
}
await tk.close()
