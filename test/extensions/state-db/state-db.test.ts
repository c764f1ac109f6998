// The database service: lazily opened state.db with WAL, foreign keys, mode 0600, per-owner
// versioned migrations (once each, in order, rolled back on failure), closed on shutdown.

import assert from 'node:assert/strict'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { DATABASE_SERVICE, type DatabaseService } from 'agent/sdk'
import { createTestKernel } from 'agent/sdk/testing'

async function kernelWithDb(t: import('node:test').TestContext, home?: string) {
  const tk = await createTestKernel({ builtins: ['state-db'], home })
  t.after(() => tk.close())
  return { tk, database: tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE) }
}

test('state.db is opened on first use, in WAL mode, private to the user', async (t) => {
  const { tk, database } = await kernelWithDb(t)
  assert.equal(database.path, join(tk.home, 'state.db'))
  assert.equal(existsSync(database.path), false, 'setup must not open the database')
  const db = database.db()
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal')
  assert.equal(db.pragma('foreign_keys', { simple: true }), 1)
  assert.equal(db.pragma('synchronous', { simple: true }), 1, 'NORMAL by default (kill -9 safe in WAL mode)')
  assert.ok(Number(db.pragma('busy_timeout', { simple: true })) >= 1000)
  assert.equal(statSync(database.path).mode & 0o777, 0o600)
  db.exec('CREATE TABLE t (x)')
  db.prepare('INSERT INTO t VALUES (1)').run()
  for (const suffix of ['-wal', '-shm']) if (existsSync(database.path + suffix)) assert.equal(statSync(database.path + suffix).mode & 0o777, 0o600)
  assert.equal(database.db(), db, 'one handle per process')
})

test('state_db.synchronous: full is configurable; an unknown level is refused', async (t) => {
  const tk = await createTestKernel({ builtins: ['state-db'], config: { state_db: { synchronous: 'full' } } })
  t.after(() => tk.close())
  assert.equal(tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db().pragma('synchronous', { simple: true }), 2)
  const bad = await createTestKernel({ builtins: ['state-db'], config: { state_db: { synchronous: 'off' } } })
  t.after(() => bad.close())
  const info = bad.kernel.extensions().find((e) => e.name === 'state-db')!
  assert.equal(info.state, 'failed')
  assert.match(String(info.reason), /synchronous/)
})

test('migrations run once each, in version order, per owner', async (t) => {
  const { database } = await kernelWithDb(t)
  const order: number[] = []
  const migrations = [
    { version: 2, up: (db: any) => { order.push(2); db.exec('ALTER TABLE things ADD COLUMN note TEXT') } },
    { version: 1, up: 'CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL)' },
  ]
  database.migrate('things', migrations)
  database.migrate('things', migrations)
  assert.deepEqual(order, [2])
  const cols = database.db().prepare("SELECT name FROM pragma_table_info('things')").pluck().all()
  assert.deepEqual(cols, ['id', 'name', 'note'])
  const rows = database.db().prepare('SELECT owner, version FROM schema_migrations ORDER BY owner, version').all()
  assert.deepEqual(rows, [{ owner: 'things', version: 1 }, { owner: 'things', version: 2 }])
  // Another owner with the same version numbers is independent.
  database.migrate('other', [{ version: 1, up: 'CREATE TABLE other_things (x)' }])
  assert.equal(database.db().prepare("SELECT count(*) FROM schema_migrations WHERE owner = 'other'").pluck().get(), 1)
})

test('a failing migration rolls back, is not recorded, and names owner@version', async (t) => {
  const { database } = await kernelWithDb(t)
  database.migrate('good', [{ version: 1, up: 'CREATE TABLE a (x)' }])
  assert.throws(
    () => database.migrate('bad', [{ version: 1, up: 'CREATE TABLE b (x); INSERT INTO nowhere VALUES (1)' }]),
    (error: Error) => /migration bad@1 failed: no such table: nowhere/.test(error.message) && !error.message.includes('\n'),
  )
  const tables = database.db().prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'b'").all()
  assert.equal(tables.length, 0, 'the partial migration was rolled back')
  assert.equal(database.db().prepare("SELECT count(*) FROM schema_migrations WHERE owner = 'bad'").pluck().get(), 0)
  assert.throws(() => database.migrate('bad', [{ version: 0, up: 'SELECT 1' }]), /version 0 must be an integer of 1 or more/)
  assert.throws(() => database.migrate('bad', [{ version: 1, up: 'SELECT 1' }, { version: 1, up: 'SELECT 2' }]), /listed twice/)
})

test('a second kernel on the same home sees applied migrations and data; shutdown closes the handle', async (t) => {
  const first = await createTestKernel({ builtins: ['state-db'] })
  t.after(() => first.close())
  const db1 = first.kernel.services.require<DatabaseService>(DATABASE_SERVICE)
  let runs = 0
  const migrations = [{ version: 1, up: (db: any) => { runs++; db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)') } }]
  db1.migrate('kv', migrations)
  db1.db().prepare('INSERT INTO kv VALUES (?, ?)').run('a', '1')

  const second = await createTestKernel({ builtins: ['state-db'], home: first.home })
  const db2 = second.kernel.services.require<DatabaseService>(DATABASE_SERVICE)
  db2.migrate('kv', migrations)
  assert.equal(runs, 1, 'the second process found the migration applied')
  assert.equal(db2.db().prepare('SELECT v FROM kv WHERE k = ?').pluck().get('a'), '1')
  const handle = db2.db()
  await second.close()
  assert.equal(handle.open, false, 'closed on shutdown')
  assert.throws(() => db2.db(), /closed/)
})
