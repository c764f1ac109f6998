// What the PostgreSQL session store does differently from SQLite's (the shared behaviour is in
// sessions.test.ts): text search (tsquery from plain words, web search syntax for raw, ts_headline
// snippets, an index kept by a generated column), a schema that mirrors SQLite's, and several
// instances on one database: each sees the others' writes at once, titles stay unique across them,
// and concurrent appends to one session keep every message once, in commit order.

import assert from 'node:assert/strict'
import { describe, test, type TestContext } from 'node:test'
import { DATABASE_SERVICE, SESSIONS_SERVICE, STORAGE_SERVICE, type DatabaseService, type PostgresService, type SessionStore, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, testStorage } from 'agent/sdk/testing'

/** `count` kernels (homes of their own: only PostgreSQL is shared) on one fresh database. */
async function instances(t: TestContext, count: number) {
  const storage = await testStorage(t, 'postgres')
  const kernels = await Promise.all(Array.from({ length: count }, () => createTestKernel({ builtins: ['state-db', 'sessions'], config: storage.config })))
  t.after(() => Promise.all(kernels.map((k) => k.close())))
  return kernels.map((tk) => ({
    store: tk.kernel.services.require<SessionStore>(SESSIONS_SERVICE),
    pg: tk.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres() as PostgresService,
  }))
}

const instance = async (t: TestContext) => (await instances(t, 1))[0]!

describe('session store on PostgreSQL', { skip: backendSkip('postgres') }, () => {
  test('plain search: every word required, operators and quotes are words, multi-token words are phrases, prefixes', async (t) => {
    const { store: s } = await instance(t)
    const a = await s.create({
      messages: [
        { role: 'user', content: 'walrus and dolphin swim together' },
        { role: 'user', content: 'a walrus alone' },
        { role: 'user', content: "it's the foo-bar config, mail bob@example.com" },
        { role: 'user', content: 'back\\slash and O\'Brien' },
      ],
    })
    assert.equal((await s.search('walrus dolphin')).length, 1, 'all words required')
    assert.equal((await s.search('walrus & !dolphin | (x) <-> y:*')).length, 0, 'tsquery operators are words: x and y are required too')
    assert.equal((await s.search('walrus & !dolphin')).length, 1)
    assert.equal((await s.search("it's")).length, 1, 'a quote inside a word')
    assert.equal((await s.search("O'Brien back\\slash")).length, 1, 'quotes and backslashes are escaped')
    assert.equal((await s.search('foo-bar')).length, 1, 'a hyphenated word')
    assert.equal((await s.search('bar-foo')).length, 0, 'its parts in order only')
    assert.equal((await s.search('bob@example.com')).length, 1, 'an address')
    assert.equal((await s.search('dolph* walr*')).length, 1, 'prefixes')
    assert.equal((await s.search('dolph')).length, 0, 'no prefix without the star')
    assert.equal((await s.search('WALRUS', { sessionId: a.id })).length, 2, 'case folded')
  })

  test('raw search is web search syntax: phrases, OR, exclusion; never a syntax error', async (t) => {
    const { store: s } = await instance(t)
    await s.create({ messages: [{ role: 'user', content: 'walrus and dolphin' }, { role: 'user', content: 'dolphin and walrus' }, { role: 'user', content: 'narwhal' }] })
    assert.equal((await s.search('"walrus and dolphin"', { raw: true })).length, 1, 'a phrase')
    assert.equal((await s.search('walrus -narwhal', { raw: true })).length, 2)
    assert.equal((await s.search('walrus -dolphin', { raw: true })).length, 0, 'excluded')
    assert.equal((await s.search('narwhal OR walrus', { raw: true })).length, 3)
    assert.equal((await s.search('"unbalanced', { raw: true })).length, 0, 'unbalanced quotes are no error')
    await assert.rejects(s.search('   ', { raw: true }), /no words/)
  })

  test('rank orders by relevance (lower is better); snippets are bounded excerpts with [matches]', async (t) => {
    const { store: s } = await instance(t)
    const filler = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ')
    const [once, thrice] = await s.append((await s.create()).id, [
      { role: 'user', content: `${filler} walrus ${filler}` },
      { role: 'user', content: 'walrus walrus walrus' },
    ])
    const hits = await s.search('walrus')
    assert.deepEqual(hits.map((h) => h.messageId), [thrice!.id, once!.id])
    assert.ok(hits[0]!.rank < hits[1]!.rank && hits[0]!.rank < 0)
    assert.equal(hits[0]!.snippet, '[walrus] [walrus] [walrus]')
    assert.match(hits[1]!.snippet, /\[walrus\]/)
    assert.ok(hits[1]!.snippet.split(' ').length <= 16, hits[1]!.snippet)
    assert.deepEqual((await s.search('walrus', { order: 'recent' })).map((h) => h.messageId), [thrice!.id, once!.id].sort((x, y) => y - x))
  })

  test('the index follows edits and deletes made in SQL (a generated column); NUL in text is stored as U+FFFD', async (t) => {
    const { store: s, pg } = await instance(t)
    const session = await s.create({ messages: [{ role: 'user', content: 'walrus one' }, { role: 'user', content: 'walrus two' }] })
    await pg.query("UPDATE messages SET content = 'dolphin one' WHERE content = 'walrus one'")
    await pg.query("DELETE FROM messages WHERE content = 'walrus two'")
    assert.equal((await s.search('walrus')).length, 0)
    assert.equal((await s.search('dolphin')).length, 1)
    const [stored] = await s.append(session.id, [{ role: 'tool', content: 'binary\u0000walrus', toolCallId: 'c\u00001', name: 'read_file' }])
    assert.equal(stored!.content, 'binary\ufffdwalrus', 'answered as stored')
    assert.deepEqual((await s.messages(session.id)).at(-1), stored)
    assert.equal((await s.search('walrus')).length, 1)
  })

  test('sessions started in the same millisecond: the later one is the newer (seq stands in for rowid)', async (t) => {
    const { store: s, pg } = await instance(t)
    const root = await s.create({ title: 'tie' })
    const first = await s.create({ parentId: root.id, lineage: 'compression', title: 'tie #2' })
    const second = await s.create({ parentId: root.id, lineage: 'compression', title: 'tie #3' })
    await pg.query('UPDATE sessions SET started_at = 1, updated_at = 1 WHERE id = ANY($1)', [[first.id, second.id]])
    assert.equal((await s.tip(root.id))!.id, second.id)
    assert.equal((await s.resolve('tie'))!.id, second.id)
    const listed = (await s.list()).map((x) => x.id)
    assert.ok(listed.indexOf(second.id) < listed.indexOf(first.id))
  })

  test('the schema mirrors SQLite: the same tables and columns, apart from the search vector and seq', async (t) => {
    const { store: s, pg } = await instance(t)
    await s.list()
    const sqlite = await createTestKernel({ builtins: ['state-db', 'sessions'] })
    t.after(() => sqlite.close())
    await sqlite.kernel.services.require<SessionStore>(SESSIONS_SERVICE).list()
    const db = sqlite.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db()
    for (const table of ['sessions', 'messages']) {
      const lite = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as Array<{ name: string }>).map((c) => c.name).sort()
      const rows = await pg.query<{ name: string }>('SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1', [table])
      const postgres = rows.map((c) => c.name).filter((n) => n !== 'search_vector' && n !== 'seq').sort()
      assert.deepEqual(postgres, lite, table)
    }
  })

  describe('two instances on one database', () => {
    test("each sees the other's sessions, messages, titles and deletes at once", async (t) => {
      const [a, b] = await instances(t, 2)
      const session = await a!.store.create({ title: 'shared', source: 'telegram', messages: [{ role: 'user', content: 'walrus on a' }] })
      assert.deepEqual(await b!.store.get(session.id), session)
      assert.equal((await b!.store.resolve('shared'))!.id, session.id)
      await b!.store.append(session.id, [{ role: 'assistant', content: 'walrus on b' }], { usage: { inputTokens: 3 }, apiCalls: 1 })
      assert.deepEqual((await a!.store.messages(session.id)).map((m) => m.content), ['walrus on a', 'walrus on b'])
      assert.equal((await a!.store.get(session.id))!.usage.inputTokens, 3)
      assert.equal((await a!.store.search('walrus')).length, 2)
      await a!.store.setTitle(session.id, 'renamed')
      assert.equal((await b!.store.get(session.id))!.title, 'renamed')
      assert.equal(await b!.store.delete(session.id), true)
      assert.equal(await a!.store.get(session.id), undefined)
      assert.deepEqual(await a!.store.messages(session.id), [])
    })

    test('titles stay unique across instances: racing renames, one wins; racing automatic titles are numbered', async (t) => {
      const [a, b] = await instances(t, 2)
      for (let round = 0; round < 5; round++) {
        const [x, y] = await Promise.all([a!.store.create(), b!.store.create()])
        const renames = await Promise.allSettled([a!.store.setTitle(x!.id, `race ${round}`), b!.store.setTitle(y!.id, `race ${round}`)])
        assert.equal(renames.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(renames))
        const refused = renames.find((r) => r.status === 'rejected') as PromiseRejectedResult
        assert.match(refused.reason.message, /already used/)
        assert.equal(refused.reason.exitCode, 2, 'a usage error')
        const autos = await Promise.all([a!.store.titleIfUntitled(x!.id, `auto ${round}`), b!.store.titleIfUntitled(y!.id, `auto ${round}`)])
        // The one that lost the rename is untitled: it gets the automatic title; the other keeps its own.
        assert.deepEqual(autos.filter(Boolean), [`auto ${round}`])
      }
      const untitled = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b)!.store.create()))
      const titles = await Promise.all(untitled.map((u, i) => (i % 2 ? b : a)!.store.titleIfUntitled(u.id, 'same words')))
      assert.deepEqual([...titles].sort(), ['same words', 'same words (2)', 'same words (3)', 'same words (4)', 'same words (5)', 'same words (6)'])
    })

    test('a write chosen as a deadlock victim is run again', async (t) => {
      const { store: s, pg } = await instance(t)
      const root = await s.create({ title: 'plan' })
      const next = await s.create({ parentId: root.id, lineage: 'compression' })
      let reached!: () => void
      const locked = new Promise<void>((resolve) => (reached = resolve))
      // Another instance's transaction: root's row first, then (once the rename waits for root) next's.
      const other = pg.transaction(async (c) => {
        await c.query('UPDATE sessions SET cwd = $1 WHERE id = $2', ['/other', root.id])
        reached()
        await new Promise((r) => setTimeout(r, 200))
        await c.query('UPDATE sessions SET cwd = $1 WHERE id = $2', ['/other', next.id])
      })
      await locked
      // The rename locks next's row, then root's (to take its title): a deadlock; the rename waited
      // first, so PostgreSQL's detector picks it, and the store runs it again once root is free.
      assert.equal(await s.setTitle(next.id, 'plan'), 'plan')
      await other
      assert.equal((await s.get(next.id))!.title, 'plan')
      assert.equal((await s.get(next.id))!.cwd, '/other')
      assert.equal((await s.get(root.id))!.title, undefined)
    })

    test('concurrent appends to one session from both keep every message once, in commit order', async (t) => {
      const [a, b, reader] = await instances(t, 3)
      const session = await a!.store.create({ id: 'shared-chat' })
      const rounds = 25
      // Each instance appends in bursts (three appends in one tick share its group commit).
      const writer = async (name: string, store: SessionStore) => {
        for (let i = 0; i < rounds; i++) {
          await Promise.all([0, 1, 2].map((j) => store.append(session.id, [{ role: 'user', content: `${name} ${i}.${j}` }], { apiCalls: 1 })))
        }
      }
      // Meanwhile a third instance reads: every read must be a prefix of the final order (a message
      // never appears before one with a lower id that was not yet visible).
      const snapshots: number[][] = []
      let writing = true
      const polling = (async () => {
        while (writing) snapshots.push((await reader!.store.messages(session.id)).map((m) => m.id))
      })()
      await Promise.all([writer('a', a!.store), writer('b', b!.store)])
      writing = false
      await polling
      const final = await reader!.store.messages(session.id)
      assert.equal(final.length, 2 * rounds * 3)
      assert.equal(new Set(final.map((m) => m.content)).size, final.length, 'each message once')
      for (const name of ['a', 'b']) {
        const mine = final.filter((m) => String(m.content).startsWith(`${name} `)).map((m) => Number(String(m.content).split(' ')[1]!.split('.')[0]))
        assert.deepEqual(mine, [...mine].sort((x, y) => x - y), `${name}'s rounds in order`)
      }
      const ids = final.map((m) => m.id)
      assert.deepEqual(ids, [...ids].sort((x, y) => x - y))
      assert.ok(snapshots.length > 2, `the reader read while both wrote (${snapshots.length} reads)`)
      for (const snapshot of snapshots) assert.deepEqual(snapshot, ids.slice(0, snapshot.length), 'a read is a prefix of the commit order')
      const record = (await reader!.store.get(session.id))!
      assert.equal(record.messageCount, final.length)
      assert.equal(record.apiCalls, final.length)
    })
  })
})
