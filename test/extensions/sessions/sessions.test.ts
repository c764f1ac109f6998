// The session store on both backends: create/append/read, usage totals, titles (sanitised, unique,
// ≤100 characters, lineage numbering, transfer from a compressed ancestor), resolve by id or title to
// the compression tip, search, cascade delete, and the schema migration record. The batch indexing of
// FTS5 is SQLite's alone (tests at the end); what PostgreSQL does differently is in postgres.test.ts.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, SESSIONS_SERVICE, STORAGE_SERVICE, type DatabaseService, type SessionStore, type StorageBackend, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage } from 'agent/sdk/testing'
import { MIGRATIONS } from '../../../extensions/sessions/schema.ts'

/** A kernel with the session store on `backend`, and `all(sql, …params)` to look at its tables directly (`?` placeholders). */
async function storeOn(t: TestContext, backend: StorageBackend) {
  const storage = await testStorage(t, backend)
  const tk = await createTestKernel({ builtins: ['state-db', 'sessions'], config: storage.config })
  t.after(() => tk.close())
  const all = async (sql: string, ...params: unknown[]): Promise<Array<Record<string, unknown>>> => {
    if (backend === 'sqlite') return tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().prepare(sql).all(...params) as Array<Record<string, unknown>>
    let n = 0
    return tk.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres().query(sql.replace(/\?/g, () => `$${++n}`), params)
  }
  const count = async (table: string) => Number(Object.values((await all(`SELECT count(*) AS n FROM ${table}`))[0]!)[0])
  return { tk, store: tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE), all, count }
}

for (const backend of STORAGE_BACKENDS) {
  describe(`session store [${backend}]`, { skip: backendSkip(backend) }, () => {
    const store = (t: TestContext) => storeOn(t, backend)

    test('sessions and messages round-trip with usage totals', async (t) => {
      const { store: s, all } = await store(t)
      const session = await s.create({ source: 'telegram', userId: 'u1', chatId: 'c1', model: 'm', provider: 'custom', cwd: '/tmp' })
      assert.match(session.id, /^\d{8}_\d{6}_[0-9a-f]{8}$/)
      assert.equal(session.messageCount, 0)
      const stored = await s.append(
        session.id,
        [
          { role: 'user', content: 'hello' },
          { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }], reasoning: 'thinking' },
          { role: 'tool', content: 'file text', toolCallId: 'c1', name: 'read_file' },
          { role: 'user', content: [{ type: 'text', text: 'look at' }, { type: 'image_url', image_url: { url: 'data:x' } }] },
        ],
        { usage: { inputTokens: 100, outputTokens: 20, reasoningTokens: 5, costUsd: 0.25 }, apiCalls: 1 },
      )
      assert.equal(stored.length, 4)
      const messages = await s.messages(session.id)
      assert.deepEqual(stored, messages, 'append answers with the messages exactly as stored')
      assert.deepEqual(messages.map((m) => m.role), ['user', 'assistant', 'tool', 'user'])
      assert.deepEqual(messages[1]!.toolCalls, [{ id: 'c1', name: 'read_file', arguments: '{"path":"a"}' }])
      assert.equal(messages[1]!.reasoning, 'thinking')
      assert.equal(messages[2]!.toolCallId, 'c1')
      assert.deepEqual(messages[3]!.content, [{ type: 'text', text: 'look at' }, { type: 'image_url', image_url: { url: 'data:x' } }])
      assert.deepEqual((await s.messages(session.id, { limit: 2 })).map((m) => m.role), ['tool', 'user'])
      await s.append(session.id, [], { lastExitReason: 'completed' })
      assert.equal((await s.get(session.id))!.lastExitReason, 'completed', 'recorded in the append transaction')
      await s.addUsage(session.id, { inputTokens: 1, outputTokens: 1 }, 1)
      const after = (await s.get(session.id))!
      assert.equal(after.messageCount, 4)
      assert.deepEqual(after.usage, { inputTokens: 101, outputTokens: 21, reasoningTokens: 5, totalTokens: 122, costUsd: 0.25 })
      assert.equal(after.apiCalls, 2)
      assert.equal(after.source, 'telegram')
      assert.equal(after.userId, 'u1')
      await assert.rejects(s.append('nope', [{ role: 'user', content: 'x' }]), /no session "nope"/)
      await assert.rejects(s.append(session.id, [{ role: 'bogus' as never, content: 'x' }]), /invalid message role/)
      assert.equal((await s.get(session.id))!.messageCount, 4, 'a rejected append changes nothing')
      const versions = (await all("SELECT version FROM schema_migrations WHERE owner = 'sessions' ORDER BY version")).map((r) => Number(r.version))
      assert.deepEqual(versions, backend === 'sqlite' ? [1, 2] : [1])
    })

    test('a session created with its first messages: one transaction, all or nothing', async (t) => {
      const { store: s, count } = await store(t)
      await s.list()
      const sessionCount = () => count('sessions')
      const before = await sessionCount()
      const session = await s.create({ source: 'api_server', title: 'seeded', messages: [{ role: 'user', content: 'first words' }, { role: 'assistant', content: 'an answer' }] })
      assert.equal(session.messageCount, 2)
      assert.deepEqual(await s.get(session.id), session, 'the answered record is what is stored')
      assert.deepEqual((await s.messages(session.id)).map((m) => [m.role, m.content, m.createdAt]), [['user', 'first words', session.startedAt], ['assistant', 'an answer', session.startedAt]])
      assert.equal((await s.search('first words')).some((h) => h.sessionId === session.id), true, 'indexed for search')
      await assert.rejects(s.create({ id: 'broken', messages: [{ role: 'user', content: 'ok' }, { role: 'bogus' as never, content: 'x' }] }), /invalid message role/)
      await assert.rejects(s.create({ title: 'seeded', messages: [{ role: 'user', content: 'x' }] }), /already used/)
      assert.equal(await sessionCount(), before + 1, 'a refused create stores neither the session nor its messages')
      assert.equal(await count('messages'), 2)
    })

    test('a session created with its first messages and their totals holds what create then append would', async (t) => {
      const { store: s } = await store(t)
      const messages = [{ role: 'user' as const, content: 'hi' }, { role: 'assistant' as const, content: 'hello' }]
      const totals = { usage: { inputTokens: 12, outputTokens: 6, reasoningTokens: 2, costUsd: 0.5 }, apiCalls: 1, lastExitReason: 'completed' }
      const once = await s.create({ source: 'api_server', messages, ...totals })
      const twice = await s.create({ source: 'api_server', messages: messages.slice(0, 1) })
      await s.append(twice.id, messages.slice(1), totals)
      const [a, b] = [(await s.get(once.id))!, (await s.get(twice.id))!]
      assert.deepEqual(await s.get(once.id), once, 'the answered record is what is stored')
      for (const field of ['messageCount', 'usage', 'apiCalls', 'lastExitReason'] as const) assert.deepEqual(a[field], b[field], field)
      assert.deepEqual(a.usage, { inputTokens: 12, outputTokens: 6, reasoningTokens: 2, totalTokens: 18, costUsd: 0.5 })
      assert.deepEqual((await s.messages(once.id)).map((m) => [m.role, m.content]), [['user', 'hi'], ['assistant', 'hello']])
    })

    test('titles are sanitised, unique and at most 100 characters', async (t) => {
      const { store: s } = await store(t)
      const a = await s.create()
      const b = await s.create()
      assert.equal(await s.setTitle(a.id, '  My\u200b  project\n\tplan \u202e '), 'My project plan')
      assert.equal((await s.get(a.id))!.title, 'My project plan')
      await assert.rejects(s.setTitle(b.id, 'My project plan'), (e: Error) => /already used by session/.test(e.message) && (e as any).exitCode === 2)
      assert.equal(await s.setTitle(a.id, 'My project plan'), 'My project plan', 'a session may keep its own title')
      await assert.rejects(s.setTitle(b.id, 'x'.repeat(101)), /at most 100 characters/)
      assert.equal(await s.setTitle(b.id, 'y'.repeat(100)), 'y'.repeat(100))
      assert.equal(await s.setTitle(b.id, '   '), undefined, 'empty clears')
      assert.equal(await s.setTitle(a.id, null), undefined)
      // Many untitled sessions are fine.
      await s.create()
      await s.create()
      assert.equal((await s.list()).filter((x) => !x.title).length, 4)
      await assert.rejects(s.create({ title: 'z'.repeat(101) }), /at most 100/)
      await assert.rejects(s.setTitle('missing', 'x'), /no session "missing"/)
    })

    test('lineage: continuations are numbered #2, #3 …, resolve by title finds the newest, ids project to the tip', async (t) => {
      const { store: s } = await store(t)
      const root = await s.create({ title: 'refactor' })
      assert.equal(await s.nextTitle('refactor'), 'refactor #2')
      const second = await s.create({ parentId: root.id, lineage: 'compression', title: await s.nextTitle('refactor') })
      await s.end(root.id, 'compression')
      assert.equal(second.title, 'refactor #2')
      assert.equal(second.parentId, root.id)
      assert.equal(await s.nextTitle('refactor #2'), 'refactor #3', 'an existing #N is stripped first')
      const third = await s.create({ parentId: second.id, lineage: 'compression', title: await s.nextTitle('refactor') })
      assert.equal(third.title, 'refactor #3')
      assert.equal((await s.resolve('refactor'))!.id, third.id, 'the newest numbered variant')
      assert.equal((await s.resolve(root.id))!.id, third.id, 'an id is projected to the compression tip')
      assert.equal((await s.tip(second.id))!.id, third.id)
      assert.equal((await s.resolve('refactor #2'))!.id, third.id, 'an exact numbered title, then its tip')
      assert.equal(await s.resolve('nothing like it'), undefined)
      // A branch is not a compression continuation: it does not move the tip.
      await s.create({ parentId: third.id, lineage: 'branch', title: 'side quest' })
      assert.equal((await s.resolve(root.id))!.id, third.id)
      // Renaming the continuation back to the base name takes the title from its compressed ancestor.
      assert.equal(await s.setTitle(third.id, 'refactor'), 'refactor')
      assert.equal((await s.get(root.id))!.title, undefined)
      assert.equal((await s.get(third.id))!.title, 'refactor')
      // Long bases are shortened so the numbered title still fits.
      const long = 'L'.repeat(100)
      await s.create({ title: long })
      const next = await s.nextTitle(long)
      assert.equal(next.length, 100)
      assert.ok(next.endsWith(' #2'))
      assert.equal(await s.nextTitle('fresh name'), 'fresh name', 'an unused base is returned as is')
      // LIKE wildcards in titles are literal.
      await s.create({ title: '100%_done' })
      await s.create({ title: '100xxdone #2' })
      assert.equal(await s.nextTitle('100%_done'), '100%_done #2')
    })

    test('list, latest, end and reopen', async (t) => {
      const { store: s } = await store(t)
      const a = await s.create({ source: 'cli' })
      await new Promise((r) => setTimeout(r, 5))
      const b = await s.create({ source: 'telegram', userId: 'u9' })
      await new Promise((r) => setTimeout(r, 5))
      await s.append(a.id, [{ role: 'user', content: 'bump' }])
      assert.deepEqual((await s.list()).map((x) => x.id), [a.id, b.id], 'most recently active first')
      assert.deepEqual((await s.list({ source: 'telegram' })).map((x) => x.id), [b.id])
      await s.setTitle(b.id, 'Exact  one')
      assert.deepEqual((await s.list({ title: ' Exact one ' })).map((x) => x.id), [b.id], 'a title filter is sanitised first')
      assert.deepEqual(await s.list({ title: 'Exact' }), [])
      assert.equal((await s.latest({ source: 'telegram', userId: 'u9' }))!.id, b.id)
      assert.equal((await s.latest({ source: 'cli' }))!.id, a.id)
      await s.end(a.id, 'one_shot')
      assert.equal((await s.get(a.id))!.endReason, 'one_shot')
      assert.deepEqual((await s.list({ includeEnded: false })).map((x) => x.id), [b.id])
      await s.reopen(a.id)
      assert.equal((await s.get(a.id))!.endReason, undefined)
      await s.update(a.id, { personality: 'pirate', lastExitReason: 'max_iterations' })
      assert.equal((await s.get(a.id))!.personality, 'pirate')
      assert.equal((await s.get(a.id))!.lastExitReason, 'max_iterations')
      await assert.rejects(s.create({ id: a.id }), /already exists/)
      await assert.rejects(s.create({ id: '../etc' }), /invalid session id/)
      await assert.rejects(s.create({ parentId: 'ghost' }), /no parent session "ghost"/)
    })

    test('full-text search: ranked hits with snippets, filters, safe query syntax, index follows deletes', async (t) => {
      const { store: s } = await store(t)
      const a = await s.create({ source: 'cli', title: 'db work' })
      const b = await s.create({ source: 'telegram' })
      await s.append(a.id, [
        { role: 'user', content: 'The deployment of the postgres database failed at migration 42' },
        { role: 'assistant', content: 'Let me look at the database migration logs.' },
      ])
      await s.append(b.id, [{ role: 'user', content: 'Café résumé: deploy the website tonight' }])
      const hits = await s.search('database migration')
      assert.equal(hits.length, 2)
      assert.ok(hits.every((h) => h.sessionId === a.id && h.title === 'db work'))
      assert.match(hits[0]!.snippet, /\[database\]/)
      assert.ok(hits[0]!.rank <= hits[1]!.rank)
      assert.equal((await s.search('cafe resume')).length, 1, 'diacritics are folded')
      const recent = await s.search('database', { order: 'recent' })
      assert.ok(recent[0]!.messageId > recent[1]!.messageId, 'newest first')
      await assert.rejects(s.search('database', { order: 'sideways' as never }), /"rank" or "recent"/)
      assert.equal((await s.search('deploy*')).length, 2, 'a prefix query')
      assert.equal((await s.search('deploy*', { source: 'telegram' })).length, 1)
      assert.equal((await s.search('database', { role: 'assistant' })).length, 1)
      assert.equal((await s.search('database', { sessionId: b.id })).length, 0)
      // FTS5 operators in user text are plain words, never a syntax error.
      assert.deepEqual(await s.search('database AND OR NOT "unbalanced ( NEAR'), [])
      assert.equal((await s.search('"database" OR website', { raw: true })).length, 3, 'raw syntax: FTS5 on SQLite, web search on PostgreSQL')
      await assert.rejects(s.search('  ** '), /no words/)
      assert.equal(await s.delete(a.id), true)
      assert.equal((await s.search('database')).length, 0, 'deleted messages leave the index')
      assert.equal((await s.messages(a.id)).length, 0)
    })

    test('concurrent conversations writing in the same turn each get their own session and messages; a bad write fails alone', async (t) => {
      const { store: s } = await store(t)
      // Thirty-two conversations start at once (their writes share group commits), then all answer at once.
      const sessions = await Promise.all(Array.from({ length: 32 }, (_, i) => s.create({ source: 'api_server', messages: [{ role: 'user', content: `question ${i}` }] })))
      assert.equal(new Set(sessions.map((x) => x.id)).size, 32)
      const appended = await Promise.allSettled([
        ...sessions.map((x, i) => s.append(x.id, [{ role: 'assistant', content: `answer ${i}` }], { usage: { inputTokens: 10, outputTokens: 2 }, apiCalls: 1 })),
        s.append('no-such-session', [{ role: 'assistant', content: 'lost' }]),
      ])
      assert.deepEqual(appended.map((o) => o.status), [...sessions.map(() => 'fulfilled'), 'rejected'])
      for (const [i, x] of sessions.entries()) {
        assert.deepEqual((await s.messages(x.id)).map((m) => m.content), [`question ${i}`, `answer ${i}`])
        const record = (await s.get(x.id))!
        assert.equal(record.messageCount, 2)
        assert.equal(record.usage.inputTokens, 10)
      }
      assert.equal((await s.search('lost')).length, 0, 'the failed write left nothing behind, not even in the index')
    })
  })
}

// SQLite only: FTS5's index is filled in batches from a queue (PostgreSQL's tsvector column is
// computed in the row's own insert).
async function sqliteStore(t: TestContext) {
  const { tk, store } = await storeOn(t, 'sqlite')
  return { store, database: tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE) }
}

test('messages are indexed in batches: queued in their own commit, indexed later or before a search, deletes and edits keep the index whole', async (t) => {
  const { store: s, database } = await sqliteStore(t)
  const db = database.db()
  const queued = () => Number(db.prepare('SELECT count(*) FROM messages_fts_pending').pluck().get())
  const indexed = (word: string) => Number(db.prepare('SELECT count(*) FROM messages_fts WHERE messages_fts MATCH ?').pluck().get(word))
  // The index's own structure; what it holds is checked by the searches below.
  const wholeIndex = () => db.prepare("INSERT INTO messages_fts(messages_fts) VALUES ('integrity-check')").run()
  const a = await s.create({ messages: [{ role: 'user', content: 'walrus one' }, { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'x', arguments: '{}' }] }] })
  assert.equal(queued(), 1, 'a message without text is not queued')
  assert.equal(indexed('walrus'), 0, 'not indexed in the turn commit')
  // By itself, a moment later (bounded wait).
  for (let i = 0; i < 100 && queued() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  assert.equal(queued(), 0)
  assert.equal(indexed('walrus'), 1)
  // Before a search, whatever is queued is indexed first.
  await s.append(a.id, [{ role: 'user', content: 'walrus two' }])
  assert.equal(queued(), 1)
  assert.equal((await s.search('walrus')).length, 2)
  assert.equal(queued(), 0)
  // Deleting or editing a message still queued, or one indexed already, leaves a consistent index.
  const b = await s.create({ messages: [{ role: 'user', content: 'narwhal queued' }] })
  await s.append(a.id, [{ role: 'user', content: 'walrus three' }])
  const [edited] = await s.append(a.id, [{ role: 'user', content: 'walrus four' }])
  db.prepare('UPDATE messages SET content = ? WHERE id = ?').run('dolphin four', edited!.id)
  db.prepare('UPDATE messages SET content = ? WHERE content = ?').run('dolphin one', 'walrus one')
  assert.equal(await s.delete(b.id), true)
  assert.deepEqual((await s.search('walrus')).map((h) => h.snippet).sort(), ['[walrus] three', '[walrus] two'])
  assert.equal((await s.search('dolphin')).length, 2)
  assert.equal((await s.search('narwhal')).length, 0)
  wholeIndex()
  assert.equal(await s.delete(a.id), true)
  wholeIndex()
  assert.equal((await s.search('walrus OR dolphin', { raw: true })).length, 0)
  assert.equal(queued(), 0)
})

test('raw FTS5 syntax is passed through; its syntax errors are usage errors', async (t) => {
  const { store: s } = await sqliteStore(t)
  const a = await s.create({ messages: [{ role: 'user', content: 'walrus and dolphin' }, { role: 'user', content: 'walrus alone' }] })
  assert.equal((await s.search('walrus NOT dolphin', { raw: true, sessionId: a.id })).length, 1)
  await assert.rejects(s.search('"unbalanced', { raw: true }), /invalid search query/)
})

test('a state.db indexed message by message (schema 1) moves to batch indexing with its index intact', async (t) => {
  const { store: s, database } = await sqliteStore(t)
  database.migrate('sessions', MIGRATIONS.slice(0, 1))
  const db = database.db()
  db.exec(`INSERT INTO sessions (id, started_at, updated_at) VALUES ('old', 1, 1);
    INSERT INTO messages (session_id, role, content, created_at) VALUES ('old', 'user', 'walrus kept', 1), ('old', 'user', 'walrus dropped', 1)`)
  assert.equal((await s.search('walrus')).length, 2, 'migrated on first use, the old index still answers')
  db.prepare("DELETE FROM messages WHERE content = 'walrus dropped'").run()
  // The deleted row's id is free again: the new message takes it, queued.
  await s.append('old', [{ role: 'user', content: 'walrus added' }])
  assert.deepEqual((await s.search('walrus')).map((h) => h.snippet).sort(), ['[walrus] added', '[walrus] kept'])
  db.prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)").run()
})
