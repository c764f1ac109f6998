// The sessions schema on PostgreSQL mirrors SQLite's closely enough for `agent storage migrate-to`
// to copy it generically: every session and message reads back from PostgreSQL as it was in
// state.db (lineage, titles, totals, parts, tool calls), search finds the copied messages, ties of
// the same millisecond resolve as on SQLite (seq follows the copy's rowid order), and new ids
// follow the copied ones.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { DATABASE_SERVICE, SESSIONS_SERVICE, type DatabaseService, type SessionStore } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, testStorage } from 'agent/sdk/testing'
import { runAgent } from '../../helpers/agent-process.ts'

test('agent storage migrate-to copies sessions and messages into PostgreSQL as they were', { skip: backendSkip('postgres') }, async (t) => {
  const storage = await testStorage(t, 'postgres')
  const home = makeTempHome()
  t.after(() => rmSync(home, { recursive: true, force: true }))

  const source = await createTestKernel({ builtins: ['state-db', 'sessions'], home })
  const local = source.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  // A parent whose id sorts after its child's: rows are copied in rowid order, parents first.
  const root = await local.create({ id: 'z-root', title: 'plan', source: 'api_server', model: 'm', provider: 'p' })
  await local.append(root.id, [
    { role: 'user', content: [{ type: 'text', text: 'walrus picture' }, { type: 'image_url', image_url: { url: 'data:x' } }] },
    { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], reasoning: 'look first' },
    { role: 'tool', content: 'walrus facts', toolCallId: 'c1', name: 'read_file' },
  ], { usage: { inputTokens: 120, outputTokens: 30, reasoningTokens: 4, costUsd: 0.5 }, apiCalls: 2, lastExitReason: 'completed' })
  await local.end(root.id, 'compression')
  const early = await local.create({ id: 'b-early', parentId: root.id, lineage: 'compression', title: 'plan #2', messages: [{ role: 'user', content: 'walrus again' }] })
  const late = await local.create({ id: 'a-late', parentId: root.id, lineage: 'compression', title: 'plan #3' })
  const gone = await local.create({ messages: [{ role: 'user', content: 'walrus deleted' }] })
  await local.delete(gone.id)
  const tail = await local.create({ source: 'telegram', userId: 'u', messages: [{ role: 'user', content: 'last walrus' }] })
  // Both continuations in the same millisecond: the later row is the tip on SQLite (whose id sorts first).
  source.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().prepare('UPDATE sessions SET started_at = 5 WHERE id IN (?, ?)').run(early.id, late.id)
  assert.equal((await local.tip(root.id))!.id, late.id)
  const sessions = await local.list({ limit: 100 })
  const messages = Object.fromEntries(await Promise.all(sessions.map(async (s) => [s.id, await local.messages(s.id)] as const)))
  const hits = (await local.search('walrus')).map((h) => h.messageId).sort()
  await source.close()

  const migrate = await runAgent(['storage', 'migrate-to', storage.url!], { home, timeoutMs: 90_000 })
  assert.equal(migrate.code, 0, migrate.stderr)

  const target = await createTestKernel({ builtins: ['state-db', 'sessions'], config: storage.config })
  t.after(() => target.close())
  const shared = target.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  assert.deepEqual(await shared.list({ limit: 100 }), sessions)
  for (const s of sessions) assert.deepEqual(await shared.messages(s.id), messages[s.id], s.id)
  assert.deepEqual((await shared.search('walrus')).map((h) => h.messageId).sort(), hits, 'copied messages are indexed')
  assert.equal((await shared.tip(root.id))!.id, late.id, 'the same tie-break')
  assert.equal((await shared.resolve('plan'))!.id, late.id)
  const [next] = await shared.append(tail.id, [{ role: 'assistant', content: 'after the move' }])
  assert.ok(next!.id > Math.max(...Object.values(messages).flat().map((m) => m.id)), `message id ${next!.id} after the copied ones`)
  assert.equal(await shared.nextTitle('plan'), 'plan #4')
})
