// The small gateway stores' PostgreSQL schemas mirror their state.db tables: a SQLite home with a
// pairing approved, one pending (with a failed guess on record), a chat route and a /voice mode is
// copied by `agent storage migrate-to`, then read back through the same services by a kernel in
// another home pointed at that database (so nothing can come from the first home's state.db).

import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { DATABASE_SERVICE, GATEWAY_AUTH_SERVICE, GATEWAY_SERVICE, VOICE_MODES_SERVICE, type DatabaseService, type GatewayAuthService, type GatewayService, type VoiceModes } from 'agent/sdk'
import { backendSkip, createTestKernel, makeTempHome, runSubcommand, testStorage } from 'agent/sdk/testing'
import { openRoutingStore } from '../../../extensions/gateway/routing.ts'

const BUILTINS = ['state-db', 'storage', 'http', 'gateway', 'gateway-auth', 'delivery', 'tts']
const chat = { platform: 'fake', userId: 'u1', chatId: 'u1', chatType: 'dm' as const }

test('pairings, chat routes and /voice modes round-trip from state.db into PostgreSQL', { skip: backendSkip('postgres') }, async (t) => {
  const pg = await testStorage(t, 'postgres')
  const homeA = makeTempHome('agent-migrate-a-')
  const homeB = makeTempHome('agent-migrate-b-')
  t.after(() => [homeA, homeB].forEach((h) => rmSync(h, { recursive: true, force: true })))

  // Home A on SQLite.
  const a = await createTestKernel({ home: homeA, builtins: BUILTINS })
  const authA = a.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  await authA.approve((await authA.requestPairing(chat))!.code)
  await authA.requestPairing({ ...chat, userId: 'u2', userName: 'Bea' })
  await assert.rejects(authA.approve('AAAAAAAA'))
  await openRoutingStore(a.kernel.services, () => a.kernel.services.get<DatabaseService>(DATABASE_SERVICE)).set('agent:main:fake:dm:u1', { sessionId: 's-42', lastActivity: Date.now() })
  await a.kernel.services.require<VoiceModes>(VOICE_MODES_SERVICE).set(chat, 'voice_only')

  // Copied with the stores' schemas declared by their extensions.
  const migrated = await runSubcommand(a, ['storage', 'migrate-to'], { url: pg.url, json: true })
  assert.equal(migrated.code, 0, migrated.stderr)
  const report = JSON.parse(migrated.stdout)
  assert.equal(report.verified, true)
  const copied = Object.fromEntries(report.tables.map((r: any) => [r.table, r.copied]))
  for (const table of ['gateway_pairing_approved', 'gateway_pairing_pending', 'gateway_pairing_requests', 'gateway_pairing_failures', 'gateway_routing', 'voice_modes']) {
    assert.ok(copied[table] >= 1, `${table} copied: ${JSON.stringify(report.tables)}`)
  }
  await a.close()

  // Home B on PostgreSQL reads them back through the services.
  const b = await createTestKernel({ home: homeB, builtins: BUILTINS, config: pg.config })
  t.after(() => b.close())
  const authB = b.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  assert.equal((await authB.authorize(chat)).allowed, true, 'the approved pairing')
  const [pending] = await authB.pending()
  assert.deepEqual([pending!.userId, pending!.userName], ['u2', 'Bea'])
  assert.equal(typeof pending!.expiresAt, 'number')
  assert.equal(await authB.requestPairing({ ...chat, userId: 'u2' }), undefined, 'its rate limit came along')
  assert.equal(await b.kernel.services.require<GatewayService>(GATEWAY_SERVICE).sessionFor(chat), 's-42')
  assert.equal(await b.kernel.services.require<VoiceModes>(VOICE_MODES_SERVICE).get(chat), 'voice_only')
})
