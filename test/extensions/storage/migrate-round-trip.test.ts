// A populated SQLite home (a session with messages through the sessions service, a stored API
// response through the API server, a cron job through `agent cron add`) copied by `agent storage
// migrate-to` into PostgreSQL, then read back through the same services by a kernel in another home
// pointed at that database (so nothing can come from the first home's state.db); a second run
// copies nothing.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { SESSIONS_SERVICE, type SessionStore } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, runSubcommand, testStorage } from 'agent/sdk/testing'
import { startServer } from '../api-server/harness.ts'

const STORES = ['state-db', 'storage', 'sessions', 'cron']

test('a populated SQLite home round-trips through PostgreSQL; a second run copies nothing', { skip: backendSkip('postgres') }, async (t) => {
  const pg = await testStorage(t, 'postgres')
  const homeA = makeTempHome('agent-migrate-a-')
  const homeB = makeTempHome('agent-migrate-b-')
  t.after(() => [homeA, homeB].forEach((h) => rmSync(h, { recursive: true, force: true })))

  // 1. Home A on SQLite: a stored response (its session too), a session of its own, a cron job.
  const a = await startServer(t, { home: homeA, model: { turns: [{ text: 'Paris.' }] } })
  const response = await a.client().responses.create({ model: 'agent', input: 'Capital of France?', store: true })
  assert.equal(response.output_text, 'Paris.')
  const sessionsA = a.test.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  const session = await sessionsA.create({ title: 'migrated chat', source: 'cli', messages: [{ role: 'user', content: 'hello' }] })
  await sessionsA.append(session.id, [{ role: 'assistant', content: 'hi there' }, { role: 'user', content: 'bye' }])
  await a.stop()
  const cronA = await createTestKernel({ home: homeA, builtins: STORES })
  const added = await runSubcommand(cronA, ['cron', 'add'], { schedule: 'every 2h', prompt: 'Check the build', name: 'build-check', deliver: 'local', json: true })
  assert.equal(added.code, 0, added.stderr)
  const job = JSON.parse(added.stdout)
  await cronA.close()

  // 2. Migrate, from a kernel on home A with every store loaded (each declares its schema).
  const m = await createTestKernel({ home: homeA, builtins: [...STORES, 'http', 'model-resolver', 'provider-openai-compat', 'runtime', 'api-server'] })
  t.after(() => m.close())
  const first = await runSubcommand(m, ['storage', 'migrate-to'], { url: pg.url, json: true })
  assert.equal(first.code, 0, first.stderr)
  const report = JSON.parse(first.stdout)
  assert.equal(report.verified, true, first.stdout)
  const copied = Object.fromEntries(report.tables.map((r: any) => [r.table, r.copied]))
  for (const table of ['sessions', 'messages', 'cron_jobs']) assert.ok(copied[table] > 0, `${table} copied: ${first.stdout}`)

  // 3. Home B on PostgreSQL reads it all back through the services.
  const b = await startServer(t, { home: homeB, config: pg.config, model: { turns: [{ text: 'Lyon is not.' }] } })
  const back = await b.client().responses.retrieve(response.id)
  assert.equal(back.output_text, 'Paris.')
  const sessionsB = b.test.kernel.services.require<SessionStore>(SESSIONS_SERVICE)
  assert.equal((await sessionsB.get(session.id))?.title, 'migrated chat')
  assert.deepEqual((await sessionsB.messages(session.id)).map((x) => [x.role, x.content]), [['user', 'hello'], ['assistant', 'hi there'], ['user', 'bye']])
  assert.ok((await sessionsB.search('hello')).some((hit) => hit.sessionId === session.id), 'copied messages are searchable')
  // A chain started on home A continues on home B.
  const next = await b.client().responses.create({ model: 'agent', input: 'And Lyon?', previous_response_id: response.id })
  assert.equal(next.output_text, 'Lyon is not.')
  await b.stop()
  const cronB = await createTestKernel({ home: homeB, builtins: STORES, config: pg.config })
  t.after(() => cronB.close())
  const listed = await runSubcommand(cronB, ['cron', 'list'], { json: true })
  assert.deepEqual(JSON.parse(listed.stdout).map((j: any) => [j.id, j.name, j.schedule_display]), [[job.id, 'build-check', job.schedule_display]])

  // 4. Again: nothing left to copy, and what home B added is still there.
  const second = await runSubcommand(m, ['storage', 'migrate-to'], { url: pg.url, json: true })
  assert.equal(second.code, 0, second.stderr)
  const again = JSON.parse(second.stdout)
  assert.equal(again.verified, true)
  assert.deepEqual(again.tables.filter((r: any) => r.copied !== 0).map((r: any) => r.table), [], second.stdout)
})
