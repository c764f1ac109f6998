// The Gateway, Usage and Settings APIs over the real services: a pairing request approved by its
// code (a wrong code refused), cron jobs listed and paused/resumed, the extensions list; the usage
// document equals the insights service's; a setting changed through the config checks (comments
// kept, a bad value refused and nothing written), secrets masked.

import assert from 'node:assert/strict'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { CRON_SERVICE, GATEWAY_AUTH_SERVICE, INSIGHTS_SERVICE, type CronService, type GatewayAuthService, type InsightsService } from '../../../sdk/index.ts'
import { makeTempHome } from '../../../sdk/testing/index.ts'
import { startDashboard } from './harness.ts'

const BUILTINS = ['http', 'state-db', 'sessions', 'gateway-auth', 'approvals', 'cron', 'insights', 'config-cli', 'dashboard']

test('gateway: pairing approved by the code the user was sent; cron paused and resumed; extensions listed', async (t) => {
  const d = await startDashboard(t, { builtins: BUILTINS })
  const { cookie, csrf } = await d.signIn()
  const auth = d.test.kernel.services.require<GatewayAuthService>(GATEWAY_AUTH_SERVICE)
  const issued = (await auth.requestPairing({ platform: 'telegram', userId: '4242', userName: 'Ada', chatId: '4242', chatType: 'dm' } as never))!
  const snap = (await d.request('/api/gateway', { cookie })).body
  assert.equal(snap.pairing.pending.length, 1)
  assert.equal(snap.pairing.pending[0].userId, '4242')
  assert.ok(!JSON.stringify(snap).includes(issued.code), 'the code is not shown: the user proves it')
  assert.ok(snap.extensions.some((e: any) => e.name === 'dashboard' && e.state === 'loaded'))
  assert.equal((await d.request('/api/pairing/approve', { method: 'POST', cookie, csrf, body: JSON.stringify({ code: 'WRONG123' }) })).status, 400)
  const approved = await d.request('/api/pairing/approve', { method: 'POST', cookie, csrf, body: JSON.stringify({ code: issued.code }) })
  assert.equal(approved.status, 200)
  assert.equal(approved.body.userId, '4242')
  assert.equal((await d.request('/api/gateway', { cookie })).body.pairing.approved.length, 1)

  const cron = d.test.kernel.services.require<CronService>(CRON_SERVICE)
  assert.deepEqual(await cron.list(), [])
  assert.equal((await d.request('/api/cron/nope/pause', { method: 'POST', cookie, csrf })).status, 400)
})

test('usage: the same document as the insights service; a bad window is refused', async (t) => {
  const d = await startDashboard(t, { builtins: BUILTINS })
  const { cookie } = await d.signIn()
  const usage = await d.request('/api/usage?days=7', { cookie })
  assert.equal(usage.status, 200)
  const insights = await d.test.kernel.services.require<InsightsService>(INSIGHTS_SERVICE).collect({ days: 7 })
  assert.deepEqual({ ...usage.body, since: null }, JSON.parse(JSON.stringify({ ...insights, since: null })))
  assert.equal((await d.request('/api/usage?days=0', { cookie })).status, 400)
})

test('settings: a value set through the config checks keeps comments; a bad one is refused and nothing is written; secrets masked', async (t) => {
  const home = makeTempHome()
  t.after(() => rmSync(home, { recursive: true, force: true }))
  const path = join(home, 'config.yaml')
  writeFileSync(path, '# my comment\n_config_version: 10\nplatforms:\n  dashboard:\n    extra:\n      session_hours: 12 # keep me\n')
  const d = await startDashboard(t, { builtins: BUILTINS, home, env: { OPENAI_API_KEY: 'sk-dashboard-secret-000000' } })
  const { cookie, csrf } = await d.signIn()
  const before = readFileSync(path, 'utf8')
  const bad = await d.request('/api/settings', { method: 'PUT', cookie, csrf, body: JSON.stringify({ key: 'platforms.dashboard.extra.session_hours', value: 'lots' }) })
  assert.equal(bad.status, 400)
  assert.equal(readFileSync(path, 'utf8'), before, 'nothing written')
  assert.equal((await d.request('/api/settings', { method: 'PUT', cookie, csrf, body: JSON.stringify({ key: 'OPENAI_API_KEY', value: 'x' }) })).status, 400)
  const good = await d.request('/api/settings', { method: 'PUT', cookie, csrf, body: JSON.stringify({ key: 'platforms.dashboard.extra.session_hours', value: '6' }) })
  assert.equal(good.status, 200, JSON.stringify(good.body))
  assert.equal(good.body.value, 6)
  const after = readFileSync(path, 'utf8')
  assert.match(after, /# my comment/)
  assert.match(after, /session_hours: 6 # keep me/)
  const all = await d.request('/api/settings', { cookie })
  assert.ok(!JSON.stringify(all.body).includes('sk-dashboard-secret-000000'))
})
