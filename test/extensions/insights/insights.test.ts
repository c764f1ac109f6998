// `agent insights` over a real store, on each backend: sessions inside and outside the window, per
// source, tokens, cost, models and tool calls; /insights through the registry. Cost rules and bad
// --days (no storage of their own) run once, on SQLite.

import assert from 'node:assert/strict'
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test, type TestContext } from 'node:test'
import YAML from 'yaml'
import { DATABASE_SERVICE, SESSIONS_SERVICE, STORAGE_SERVICE, type DatabaseService, type SessionStore, type StorageService } from '../../../sdk/index.ts'
import { backendSkip, createTestKernel, makeTempHome, STORAGE_BACKENDS, testStorage } from '../../../sdk/testing/index.ts'
import { runAgent } from '../../helpers/agent-process.ts'

for (const backend of STORAGE_BACKENDS) {
  describe(`insights [${backend}]`, { skip: backendSkip(backend) }, () => {
    let home: string
    // The suite's own cleanups (the test database), run after its tests.
    const cleanups: Array<() => unknown> = []

    before(async () => {
      const storage = await testStorage({ after: (fn) => void cleanups.push(fn as () => unknown) } as Pick<TestContext, 'after'>, backend)
      home = makeTempHome('agent-insights-')
      writeFileSync(join(home, 'config.yaml'), YAML.stringify({ _config_version: 10, ...storage.config }))
      const tk = await createTestKernel({ home, builtins: ['state-db', 'sessions'] })
      const store = tk.kernel.services.get<SessionStore>(SESSIONS_SERVICE)!
      const add = async (source: string, model: string, tokens: [number, number], cost: number, tools: string[]) => {
        const s = await store.create({ source, model, provider: 'custom' })
        await store.append(s.id, [{ role: 'user', content: 'hi' }])
        await store.append(
          s.id,
          [{ role: 'assistant', content: null, toolCalls: tools.map((name, i) => ({ id: `c${i}`, name, arguments: '{}' })) }, { role: 'assistant', content: 'done' }],
          { usage: { inputTokens: tokens[0], outputTokens: tokens[1], totalTokens: tokens[0] + tokens[1], costUsd: cost }, apiCalls: 2 },
        )
        return s.id
      }
      await add('cli', 'alpha', [1000, 100], 0.5, ['terminal', 'read_file', 'terminal'])
      await add('cli', 'alpha', [2000, 200], 0.25, ['terminal'])
      await add('telegram', 'beta', [500, 50], 0.125, [])
      const old = await add('cli', 'gamma', [9000, 900], 9, ['patch'])
      // Forty days ago: outside a 30-day window.
      const fortyDaysAgo = Date.now() - 40 * 86_400_000
      if (backend === 'sqlite') tk.kernel.services.get<DatabaseService>(DATABASE_SERVICE)!.db().prepare('UPDATE sessions SET updated_at = ?, started_at = ? WHERE id = ?').run(fortyDaysAgo, fortyDaysAgo, old)
      else await tk.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres().query('UPDATE sessions SET updated_at = $1, started_at = $1 WHERE id = $2', [fortyDaysAgo, old])
      await tk.close()
    })
    after(async () => {
      rmSync(home, { recursive: true, force: true })
      for (const cleanup of cleanups) await cleanup()
    })

    test('the last 30 days, all sources', async () => {
      const r = await runAgent(['insights', '--json'], { home, timeoutMs: 60_000 })
      assert.equal(r.code, 0, r.stderr)
      const i = JSON.parse(r.stdout)
      assert.equal(i.sessions, 3)
      assert.deepEqual(i.by_source, { cli: 2, telegram: 1 })
      assert.deepEqual(i.tokens, { input: 3500, output: 350, reasoning: 0, total: 3850 })
      assert.equal(i.cost_usd, 0.875)
      assert.deepEqual(i.unpriced_models, [])
      assert.equal(i.api_calls, 6)
      assert.equal(i.tool_sessions, 3)
      const camel = (v: unknown): string[] => (Array.isArray(v) ? v.flatMap(camel) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => [...(/[a-z][A-Z]/.test(k) ? [k] : []), ...camel(x)]) : [])
      assert.deepEqual(camel(i), [], 'every key is snake_case')
      assert.equal(i.messages, 9)
      assert.deepEqual(i.models.map((m: any) => [m.model, m.sessions]), [['custom:alpha', 2], ['custom:beta', 1]])
      assert.deepEqual(i.tools, [{ tool: 'terminal', calls: 3 }, { tool: 'read_file', calls: 1 }])
    })

    test('--days 60 --source cli includes the old session; text output names it all', async () => {
      const r = await runAgent(['insights', '--days', '60', '--source', 'cli'], { home, timeoutMs: 60_000 })
      assert.equal(r.code, 0, r.stderr)
      assert.match(r.stdout, /Usage in the last 60 days \(source cli\)/)
      assert.match(r.stdout, /sessions:\s+3\n/)
      assert.match(r.stdout, /cost:\s+\$9\.75/)
      assert.match(r.stdout, /tools:\s+terminal 3, patch 1, read_file 1/)
    })

    test('/insights [days] through the registry', async () => {
      const tk = await createTestKernel({ home, builtins: ['state-db', 'sessions', 'insights'] })
      try {
        const { resolveSlash } = await import('../../../sdk/index.ts')
        const run = async (text: string) => {
          const r = resolveSlash(tk.kernel.registries.commands.list(), text, 'gateway')
          assert.ok(r && !('unknown' in r))
          const replies: string[] = []
          await r.command.slash!({ args: r.args, invokedAs: r.invokedAs, surface: 'gateway', reply: (t) => void replies.push(t) })
          return replies.join('\n')
        }
        assert.match(await run('/insights'), /Usage in the last 30 days \(all sources\):\n\s+sessions:\s+3 \(cli 2, telegram 1\)/)
        assert.match(await run('/insights 60'), /sessions:\s+4/)
        assert.match(await run('/insights lots'), /Usage: \/insights \[days\]/)
      } finally {
        await tk.close()
      }
    })
  })
}

test('no price is "unknown", never $0; a configured price of 0 is a known $0.00', async (t) => {
  const priceless = makeTempHome('agent-insights-')
  t.after(() => rmSync(priceless, { recursive: true, force: true }))
  writeFileSync(join(priceless, 'config.yaml'), '_config_version: 10\n')
  const tk = await createTestKernel({ home: priceless, builtins: ['state-db', 'sessions'] })
  const store = tk.kernel.services.get<SessionStore>(SESSIONS_SERVICE)!
  for (const model of ['delta', 'free-model']) {
    const s = await store.create({ source: 'cli', model, provider: 'custom' })
    await store.append(s.id, [{ role: 'assistant', content: 'hi' }], { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15, costUsd: 0 }, apiCalls: 1 })
  }
  await tk.close()
  const none = JSON.parse((await runAgent(['insights', '--json'], { home: priceless })).stdout)
  assert.equal(none.cost_usd, null)
  assert.deepEqual(none.unpriced_models, ['delta', 'free-model'])
  assert.match((await runAgent(['insights'], { home: priceless })).stdout, /cost:\s+unknown \(no price for delta, free-model; set pricing in config\.yaml\)\n/)

  writeFileSync(join(priceless, 'config.yaml'), '_config_version: 10\npricing:\n  free-model: { input: 0, output: 0 }\n')
  const some = JSON.parse((await runAgent(['insights', '--json'], { home: priceless })).stdout)
  assert.equal(some.cost_usd, 0)
  assert.deepEqual(some.unpriced_models, ['delta'])
  assert.match((await runAgent(['insights'], { home: priceless })).stdout, /cost:\s+\$0\.00 \+ unknown \(no price for delta; set pricing in config\.yaml\)\n/)
})

test('bad --days is a usage error', async (t) => {
  const home = makeTempHome('agent-insights-')
  t.after(() => rmSync(home, { recursive: true, force: true }))
  const r = await runAgent(['insights', '--days', '0'], { home, timeoutMs: 60_000 })
  assert.equal(r.code, 2)
  assert.match(r.stderr, /days must be a whole number from 1 to 3650/)
})
