// Group commit (DatabaseService.write): writes queued together share one transaction, each in its
// own savepoint; a failing write rejects alone; reads see queued writes; a promise resolves only
// once its write is committed (another connection sees it); queued writes survive shutdown.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { DATABASE_SERVICE, type DatabaseService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'
import { tempDir } from '../../helpers/temp.ts'

async function setUp(t: import('node:test').TestContext) {
  const tk = await createTestKernel({ builtins: ['state-db'], home: tempDir(t) })
  t.after(() => tk.close())
  const database = tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE)
  database.migrate('notes', [{ version: 1, up: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)' }])
  return { tk, database }
}

const insert = (text: string) => (db: import('agent/sdk').SqliteDatabase) => Number(db.prepare('INSERT INTO notes (text) VALUES (?)').run(text).lastInsertRowid)

test('writes queued in one turn share a commit; each resolves with its own result', async (t) => {
  const { database } = await setUp(t)
  const db = database.db()
  /** Frames in the WAL after `work`: every commit appends the pages it changed. */
  const framesWritten = async (work: () => Promise<unknown>) => {
    db.pragma('wal_checkpoint(TRUNCATE)')
    await work()
    return (database.db().pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log
  }
  const together = await framesWritten(async () => assert.deepEqual(await Promise.all(['a', 'b', 'c', 'd'].map((text) => database.write(insert(text)))), [1, 2, 3, 4]))
  const oneByOne = await framesWritten(async () => {
    for (const text of ['e', 'f', 'g', 'h']) await database.write(insert(text))
  })
  assert.ok(together < oneByOne, `four queued writes, one commit: ${together} WAL frames against ${oneByOne} for four commits`)
  // Seen from a second connection: committed, in the order they were queued.
  const other = new Database(database.path, { readonly: true })
  t.after(() => other.close())
  assert.deepEqual(other.prepare('SELECT text FROM notes ORDER BY id').pluck().all(), ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
})

test('one failing write rolls back alone and rejects only its caller', async (t) => {
  const { database } = await setUp(t)
  const outcomes = await Promise.allSettled([
    database.write(insert('first')),
    database.write((db) => {
      insert('half-done')(db)
      insert('first')(db) // UNIQUE violation: the whole write, half-done included, is undone
    }),
    database.write((db) => {
      throw new Error('refused by the caller')
    }),
    database.write(insert('last')),
  ])
  assert.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'rejected', 'fulfilled'])
  assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /UNIQUE/)
  assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /refused by the caller/)
  assert.deepEqual(database.db().prepare('SELECT text FROM notes ORDER BY id').pluck().all(), ['first', 'last'])
})

test('a read through db() sees every write already requested (read-your-writes)', async (t) => {
  const { database } = await setUp(t)
  const pending = database.write(insert('queued'))
  // Not awaited: db() commits the queue before handing out the handle.
  assert.deepEqual(database.db().prepare('SELECT text FROM notes').pluck().all(), ['queued'])
  assert.equal(await pending, 1)
})

test('a write may read through the service inside its own transaction', async (t) => {
  const { database } = await setUp(t)
  const count = await database.write((db) => {
    insert('x')(db)
    return database.db().prepare('SELECT count(*) FROM notes').pluck().get()
  })
  assert.equal(count, 1)
})

test('writes still queued at shutdown are committed, not lost', async (t) => {
  const { tk, database } = await setUp(t)
  const pending = database.write(insert('at shutdown'))
  await tk.close()
  assert.equal(await pending, 1)
  const other = new Database(database.path, { readonly: true })
  t.after(() => other.close())
  assert.deepEqual(other.prepare('SELECT text FROM notes').pluck().all(), ['at shutdown'])
})

test('a write that returns a promise is refused (writes are synchronous)', async (t) => {
  const { database } = await setUp(t)
  await assert.rejects(database.write(async () => 1), /promise/)
  assert.equal(await database.write(insert('after')), 1)
})
