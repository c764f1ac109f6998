// The storage service: the backend chosen by storage.url / AGENT_DATABASE_URL (a bad value fails
// closed, never echoing a password), leases on both backends (one holder at a time, taken over
// after expiry), and PostgreSQL's group commit and migrations.

import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { spawnSync } from 'node:child_process'
import { hostname } from 'node:os'
import { DATABASE_SERVICE, STORAGE_SERVICE, type DatabaseService, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, STORAGE_BACKENDS, testStorage, type TestStorage } from 'agent/sdk/testing'
import { resolveStorage } from '../../../extensions/storage/url.ts'

const BUILTINS = ['state-db', 'storage']

describe('storage URL', () => {
  test('unset is SQLite; a postgres URL is PostgreSQL, labelled without its password', () => {
    assert.deepEqual(resolveStorage(undefined, undefined), { backend: 'sqlite' })
    assert.deepEqual(resolveStorage('  ', ''), { backend: 'sqlite' })
    const pg = resolveStorage('postgres://bob:hunter22@db.internal:5432/agent', undefined)
    assert.equal(pg.backend, 'postgres')
    assert.doesNotMatch(pg.label!, /hunter22/)
    assert.match(pg.label!, /bob:\*\*\*@db\.internal:5432\/agent \(storage\.url\)/)
    assert.match(resolveStorage('postgres://a@x/y', 'postgresql://b:pw@z/w').label!, /z\/w \(AGENT_DATABASE_URL\)/, 'the environment wins')
  })

  test('anything else is an error naming the key, never the value', () => {
    for (const bad of ['sqlite:///state.db', 'mysql://u:hunter22@h/d', 'hunter22', 'http://u:hunter22@h/d', 'postgres://u:hunter22@/d']) {
      assert.throws(() => resolveStorage(bad, undefined), (e: Error) => /storage\.url/.test(e.message) && !e.message.includes('hunter22'), bad)
    }
  })

  test('a kernel with a bad storage.url fails the storage extension and what depends on it', async (t) => {
    const tk = await createTestKernel({ builtins: [...BUILTINS, 'sessions'], config: { storage: { url: 'mysql://u:hunter22@h/d' } } })
    t.after(() => tk.close())
    assert.throws(() => tk.kernel.services.require(STORAGE_SERVICE))
    const failed = tk.kernel.extensions().filter((e: any) => e.state === 'failed').map((e: any) => e.name)
    assert.ok(failed.includes('storage'), JSON.stringify(failed))
  })
})

for (const backend of STORAGE_BACKENDS) {
  describe(`leases [${backend}]`, { skip: backendSkip(backend) }, () => {
    async function twoHolders(t: test.TestContext) {
      const storage: TestStorage = await testStorage(t, backend)
      const a = await createTestKernel({ builtins: BUILTINS, config: storage.config })
      const b = await createTestKernel({ builtins: BUILTINS, config: storage.config, home: a.home })
      t.after(async () => {
        await b.close()
        await a.close()
      })
      return [a, b].map((k) => k.kernel.services.require<StorageService>(STORAGE_SERVICE))
    }

    test('one holder at a time; renewal keeps it; release or expiry hands it over', async (t) => {
      const [a, b] = await twoHolders(t)
      assert.equal(a!.backend, backend)
      assert.notEqual(a!.leases.holder, b!.leases.holder)
      assert.equal(await a!.leases.acquire('adapter:telegram', 10_000), true)
      assert.equal(await b!.leases.acquire('adapter:telegram', 10_000), false, 'held by a')
      assert.equal(await b!.leases.acquire('adapter:slack', 10_000), true, 'another name is free')
      assert.equal(await a!.leases.acquire('adapter:telegram', 10_000), true, 'renewed by its holder')
      assert.equal((await b!.leases.holderOf('adapter:telegram'))?.holder, a!.leases.holder)
      await b!.leases.release('adapter:telegram')
      assert.equal(await b!.leases.acquire('adapter:telegram', 10_000), false, 'release by a non-holder changes nothing')
      await a!.leases.release('adapter:telegram')
      assert.equal(await a!.leases.holderOf('adapter:telegram'), undefined)
      assert.equal(await b!.leases.acquire('adapter:telegram', 150), true, 'released: taken')
      assert.equal(await a!.leases.acquire('adapter:telegram', 10_000), false)
      await new Promise((r) => setTimeout(r, 300))
      assert.equal(await a!.leases.acquire('adapter:telegram', 10_000), true, 'expired: taken over')
    })

    test('racing holders: exactly one wins', async (t) => {
      const [a, b] = await twoHolders(t)
      for (let i = 0; i < 10; i++) {
        const won = await Promise.all([a!.leases.acquire(`race:${i}`, 10_000), b!.leases.acquire(`race:${i}`, 10_000)])
        assert.equal(won.filter(Boolean).length, 1, JSON.stringify(won))
      }
    })
  })
}

test('SQLite: a lease held by a dead process of this machine is taken at once; a live or remote holder keeps it', async (t) => {
  const tk = await createTestKernel({ builtins: BUILTINS })
  t.after(() => tk.close())
  const storage = tk.kernel.services.require<StorageService>(STORAGE_SERVICE)
  assert.equal(await storage.leases.acquire('probe', 10), true, 'the table exists')
  const db = tk.kernel.services.require<DatabaseService>(DATABASE_SERVICE).db()
  const dead = spawnSync(process.execPath, ['-e', '']).pid
  const hold = (name: string, holder: string) => db.prepare('INSERT INTO leases (name, holder, expires_at) VALUES (?, ?, ?)').run(name, holder, Date.now() + 60_000)
  hold('adapter:dead', `${hostname()}:${dead}:abcd1234`)
  hold('adapter:live', `${hostname()}:${process.ppid}:abcd1234`)
  hold('adapter:remote', `elsewhere.example:${dead}:abcd1234`)
  assert.equal(await storage.leases.acquire('adapter:dead', 10_000), true, 'its holder is gone')
  assert.equal((await storage.leases.holderOf('adapter:dead'))?.holder, storage.leases.holder)
  assert.equal(await storage.leases.acquire('adapter:live', 10_000), false, 'its holder runs')
  assert.equal(await storage.leases.acquire('adapter:remote', 10_000), false, 'another machine: only expiry tells')
})

describe('PostgreSQL service', { skip: backendSkip('postgres') }, () => {
  async function postgres(t: test.TestContext) {
    const storage = await testStorage(t, 'postgres')
    const tk = await createTestKernel({ builtins: BUILTINS, config: storage.config })
    t.after(() => tk.close())
    return tk.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres()
  }

  test('group commit: writes of one tick share a transaction; a failing one is rolled back alone', async (t) => {
    const pg = await postgres(t)
    await pg.migrate('test-owner', [{ version: 1, up: 'CREATE TABLE things (id INTEGER PRIMARY KEY, txid BIGINT NOT NULL)' }])
    const insert = (id: number) => pg.write((c) => c.query('INSERT INTO things (id, txid) VALUES ($1, txid_current()) RETURNING id', [id]))
    const results = await Promise.allSettled([insert(1), insert(2), insert(1), insert(3)])
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    const rows = await pg.query<{ id: number; txid: string }>('SELECT id, txid FROM things ORDER BY id')
    assert.deepEqual(rows.map((r) => r.id), [1, 2, 3])
    assert.equal(new Set(rows.map((r) => r.txid)).size, 1, 'one transaction')
    await assert.rejects(insert(2), /duplicate key/, 'a failing write alone in its batch is refused')
    await assert.rejects(pg.write(async (c) => (await c.query('INSERT INTO things (id, txid) VALUES (9, 0)'), await c.query('NOT SQL'))), /syntax/)
    assert.deepEqual((await pg.query<{ id: number }>('SELECT id FROM things ORDER BY id')).map((r) => r.id), [1, 2, 3], 'and leaves nothing of itself')
    assert.deepEqual(await insert(4), [{ id: 4 }], 'the next write goes through')
  })

  test('migrations: applied once across instances racing; a failing version leaves nothing behind', async (t) => {
    const storage = await testStorage(t, 'postgres')
    const kernels = await Promise.all([0, 1, 2].map(() => createTestKernel({ builtins: BUILTINS, config: storage.config })))
    t.after(() => Promise.all(kernels.map((k) => k.close())))
    const services = kernels.map((k) => k.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres())
    const migrations = [
      { version: 1, up: 'CREATE TABLE counted (n INTEGER)' },
      { version: 2, up: 'INSERT INTO counted VALUES (1)' },
    ]
    await Promise.all(services.map((s) => s.migrate('racer', migrations)))
    assert.deepEqual(await services[0]!.query('SELECT n FROM counted'), [{ n: 1 }])
    await assert.rejects(services[1]!.migrate('broken', [{ version: 1, up: 'CREATE TABLE half (n INTEGER)' }, { version: 2, up: 'NOT SQL' }]), /broken@2 failed/)
    assert.deepEqual(await services[0]!.query(`SELECT to_regclass('half') AS t`), [{ t: null }], 'rolled back whole')
  })

  test('migrations in one process: callers while it runs share the run; a failed run is tried again', async (t) => {
    const pg = await postgres(t)
    const migrations = [{ version: 1, up: 'CREATE TABLE shared_run (n INTEGER)' }]
    const first = pg.migrate('sharer', migrations)
    assert.equal(pg.migrate('sharer', migrations), first, 'one run for callers arriving meanwhile')
    await first
    await pg.migrate('sharer', migrations)
    await assert.rejects(pg.migrate('retried', [{ version: 1, up: 'CREATE TABL retried (n INTEGER)' }]), /retried@1 failed/)
    await pg.migrate('retried', [{ version: 1, up: 'CREATE TABLE retried (n INTEGER)' }])
    assert.deepEqual(await pg.query(`SELECT to_regclass('retried') AS t`), [{ t: 'retried' }], 'the failure was not kept')
  })

  test('locked: a second holder of the key waits, or with wait false gets nothing', async (t) => {
    const pg = await postgres(t)
    const order: string[] = []
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const first = pg.locked('conversation:x', async () => {
      order.push('first in')
      await gate
      order.push('first out')
    })
    t.after(release)
    // The first holder is inside once it has pushed; a fixed sleep would race a loaded machine.
    for (let i = 0; i < 200 && order.length === 0; i++) await new Promise((r) => setTimeout(r, 25))
    assert.deepEqual(order, ['first in'])
    assert.equal(await pg.locked('conversation:x', async () => 'ran', { wait: false }), undefined)
    assert.equal(await pg.locked('conversation:y', async () => 'ran', { wait: false }), 'ran', 'another key is free')
    const second = pg.locked('conversation:x', async () => void order.push('second'))
    setTimeout(release, 50)
    await Promise.all([first, second])
    assert.deepEqual(order, ['first in', 'first out', 'second'])
    assert.match((await pg.ping()).version, /^\d+/)
  })
})
