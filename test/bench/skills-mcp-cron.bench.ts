// Figures for skills, MCP and cron, in a real kernel:
//   skills: list / load of 2 / catalog with 200 skills on disk (folders are read at call time):
//           target ≤ 20 ms each, so a run's skill lookups stay small next to a model call;
//   MCP:    first connect to a stdio server (spawn + initialize + tools/list), and bridged tool calls
//           through the registry (median and p95 of 200): target median ≤ 5 ms per call;
//   cron:   one scheduler query of due jobs among 1,000 (indexed): target ≤ 5 ms.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { DATABASE_SERVICE, SKILLS_SERVICE, type DatabaseService, type SkillsService, type ToolDefinition } from '../../sdk/index.ts'
import { createTestKernel, makeTempHome } from '../../sdk/testing/index.ts'

const SERVER = fileURLToPath(new URL('../fixtures/mcp/stdio-server.mjs', import.meta.url))
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!
const time = async (fn: () => unknown): Promise<number> => {
  const start = process.hrtime.bigint()
  await fn()
  return Number(process.hrtime.bigint() - start) / 1e6
}
const line = (name: string, ms: number, target: string, ok: boolean) => console.log(`${name.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms   ${target.padEnd(12)} ${ok ? 'ok' : 'MISSED'}`)

const home = makeTempHome('agent-bench-')
for (let i = 0; i < 200; i++) {
  const dir = join(home, 'skills', `skill-${String(i).padStart(3, '0')}`)
  mkdirSync(join(dir, 'references'), { recursive: true })
  writeFileSync(join(dir, 'SKILL.md'), `---\nname: skill-${String(i).padStart(3, '0')}\ndescription: Benchmark skill number ${i}\ntags: [bench]\n---\n${'Do the thing carefully. '.repeat(40)}\n`)
  writeFileSync(join(dir, 'references', 'notes.md'), 'notes\n')
}
const t = await createTestKernel({
  home,
  builtins: ['state-db', 'skills', 'mcp', 'cron'],
  config: { mcp_servers: { fx: { command: process.execPath, args: [SERVER] } } },
})
try {
  const skills = t.kernel.services.require<SkillsService>(SKILLS_SERVICE)
  const lists: number[] = []
  for (let i = 0; i < 21; i++) lists.push(await time(() => skills.list()))
  const list = percentile(lists, 0.5)
  const loads: number[] = []
  for (let i = 0; i < 21; i++) loads.push(await time(() => skills.load(['skill-010', 'skill-150'])))
  const catalogs: number[] = []
  for (let i = 0; i < 21; i++) catalogs.push(await time(() => skills.catalog()))
  line('skills.list() with 200 skills (median)', list, '≤ 20 ms', list <= 20)
  line('skills.load(2 of 200) (median)', percentile(loads, 0.5), '≤ 20 ms', percentile(loads, 0.5) <= 20)
  line('skills.catalog() with 200 skills (median)', percentile(catalogs, 0.5), '≤ 20 ms', percentile(catalogs, 0.5) <= 20)

  // MCP: a manager of our own, so the first connect is measured on its own.
  const { McpManager } = await import('../../extensions/mcp/connection.ts')
  const { bridgeTool } = await import('../../extensions/mcp/bridge.ts')
  const { readServers } = await import('../../extensions/mcp/config.ts')
  const manager = new McpManager({ settings: t.kernel.settings, log: t.kernel.log, services: t.kernel.services, clientVersion: 'bench' })
  manager.configure(readServers(t.kernel.settings).flatMap((e) => (e.ok ? [e.config] : [])))
  const connect = await time(() => manager.snapshot('fx'))
  const echo: ToolDefinition = bridgeTool('fx', { name: 'echo', inputSchema: { type: 'object' } }, () => manager)
  const calls: number[] = []
  for (let i = 0; i < 200; i++) calls.push(await time(() => echo.execute({ input: { text: `n${i}` }, callId: `c${i}`, signal: new AbortController().signal, session: { id: 's', cwd: home } })))
  await manager.closeAll()
  line('MCP stdio: spawn + initialize + tools/list', connect, 'info', true)
  line('MCP bridged call (median of 200)', percentile(calls, 0.5), '≤ 5 ms', percentile(calls, 0.5) <= 5)
  line('MCP bridged call (p95 of 200)', percentile(calls, 0.95), 'info', true)

  // Cron: 1,000 jobs, the scheduler's due query.
  const { SqliteCronStore } = await import('../../extensions/cron/store-sqlite.ts')
  const { parseSchedule } = await import('../../extensions/cron/schedule.ts')
  const store = new SqliteCronStore(() => t.kernel.services.require<DatabaseService>(DATABASE_SERVICE))
  const schedule = parseSchedule('every 1h', 'UTC')
  for (let i = 0; i < 1000; i++) await store.add({ prompt: `job ${i}`, schedule, skills: [], deliver: 'local', createdBy: 'cli', nextRunAt: Date.now() + 3_600_000 + i * 1000 })
  const due: number[] = []
  for (let i = 0; i < 51; i++) due.push(await time(async () => (await store.due(Date.now()), await store.nextDue())))
  line('cron due + next-due query, 1,000 jobs (median)', percentile(due, 0.5), '≤ 5 ms', percentile(due, 0.5) <= 5)
} finally {
  await t.close()
}
