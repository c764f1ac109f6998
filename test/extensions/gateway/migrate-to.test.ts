// The gateway's continuity tables and the webhook ledger mirror their state.db tables in
// PostgreSQL: a SQLite home with a resume point, a seen message, a pending prompt, a queued reply and
// a seen webhook delivery is copied by `agent storage migrate-to`, then read back by a kernel in
// another home pointed at that database (nothing can come from the first home's state.db): the
// cursor continues, the message and the delivery are duplicates, the reply still waits, and new
// rows get ids past the copied ones.

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { DATABASE_SERVICE, GATEWAY_SERVICE, STORAGE_SERVICE, type DatabaseService, type GatewayService, type StorageService } from 'agent/sdk'
import { backendSkip, createTestKernel, fakeAdapter, makeTempHome, recordingRuntime, runSubcommand, testStorage } from 'agent/sdk/testing'
import { PgContinuityStore } from '../../../extensions/gateway/continuity-store-pg.ts'
import { SqliteContinuityStore } from '../../../extensions/gateway/continuity-store-sqlite.ts'
import { PgDeliveryLedger } from '../../../extensions/webhook/ledger-pg.ts'
import { SqliteDeliveryLedger } from '../../../extensions/webhook/ledger-sqlite.ts'

const BUILTINS = ['state-db', 'storage', 'http', 'gateway', 'gateway-auth', 'delivery', 'webhook']
const chat = { platform: 'fake', userId: 'u1', chatId: 'c1', chatType: 'dm' as const }

test('resume points, seen messages, pending prompts, queued replies and webhook deliveries round-trip into PostgreSQL', { skip: backendSkip('postgres') }, async (t) => {
  const pg = await testStorage(t, 'postgres')
  const homeA = makeTempHome('agent-migrate-gw-a-')
  const homeB = makeTempHome('agent-migrate-gw-b-')
  t.after(() => [homeA, homeB].forEach((h) => rmSync(h, { recursive: true, force: true })))

  // Home A on SQLite.
  const a = await createTestKernel({ home: homeA, builtins: BUILTINS })
  const database = () => a.kernel.services.require<DatabaseService>(DATABASE_SERVICE)
  const sqlite = new SqliteContinuityStore(database)
  await a.kernel.services.require<GatewayService>(GATEWAY_SERVICE).resumePoint('fake').set('42:1001')
  await sqlite.settle((await sqlite.claim('fake', 'seen-1'))!)
  await sqlite.markPending((await sqlite.claim('fake', 'cut-1'))!, chat, 'left unanswered')
  const queued = (await sqlite.enqueue({ platform: 'fake', chatId: 'c1', text: 'waiting reply' }))!
  assert.deepEqual(await new SqliteDeliveryLedger(database).claim({ route: 'ci', signedKey: 'k1', headerId: 'gh-1', deliveryId: 'gh-1' }), { duplicate: false })

  const migrated = await runSubcommand(a, ['storage', 'migrate-to'], { url: pg.url, json: true })
  assert.equal(migrated.code, 0, migrated.stderr)
  const report = JSON.parse(migrated.stdout)
  assert.equal(report.verified, true)
  const copied = Object.fromEntries(report.tables.map((r: any) => [r.table, r.copied]))
  for (const table of ['gateway_resume', 'gateway_inbox', 'gateway_outbox', 'webhook_deliveries']) assert.ok(copied[table] >= 1, `${table} copied: ${JSON.stringify(report.tables)}`)
  await a.close()

  // Home B on PostgreSQL reads them back.
  const fake = fakeAdapter()
  const b = await createTestKernel({ home: homeB, builtins: BUILTINS, extensions: [fake.definition, recordingRuntime().definition], env: { GATEWAY_ALLOWED_USERS: 'u1' }, config: pg.config })
  t.after(() => b.close())
  assert.equal(await b.kernel.services.require<GatewayService>(GATEWAY_SERVICE).resumePoint('fake').get(), '42:1001')
  assert.equal((await fake.inbound({ userId: 'u1', chatId: 'c1' }, 'again', 'seen-1')).status, 'ignored', 'a message seen before the move')
  const store = new PgContinuityStore(() => b.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres())
  assert.deepEqual((await store.pendingPrompts()).map((p) => [p.source, p.text]), [[chat, 'left unanswered']])
  assert.deepEqual((await store.queued('fake')).map((r) => [r.id, r.text]), [[queued.id, 'waiting reply']])
  assert.ok((await store.enqueue({ platform: 'fake', chatId: 'c1', text: 'new' }))!.id > queued.id, 'the identity continues past the copied ids')
  const ledger = new PgDeliveryLedger(() => b.kernel.services.require<StorageService>(STORAGE_SERVICE).postgres())
  assert.deepEqual(await ledger.claim({ route: 'ci', signedKey: 'k1', deliveryId: 'k1' }), { duplicate: true, deliveryId: 'gh-1' })
  assert.deepEqual(await ledger.claim({ route: 'ci', signedKey: 'k2', deliveryId: 'k2' }), { duplicate: false }, 'a new delivery is new')
})
