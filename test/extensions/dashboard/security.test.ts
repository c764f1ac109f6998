// The dashboard's guards: the one-time sign-in link, the cookie's attributes, 401 without a
// session on every API route, 403 for a foreign Origin or a missing CSRF token, the Host check,
// the CSP on every answer, and the refusal to bind off loopback without DASHBOARD_KEY.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { request as httpRequest } from 'node:http'
import { KeyFailures } from '../../../extensions/dashboard/key-failures.ts'
import type { AdapterContext, Services } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'
import { assertBindAllowed } from '../../../extensions/dashboard/options.ts'
import { mintSignInToken } from '../../../extensions/dashboard/sign-in.ts'
import { startDashboard } from './harness.ts'

const apiRoutes = (d: Awaited<ReturnType<typeof startDashboard>>) =>
  d.test.kernel.registries.endpoints.list().filter((e) => e.listener === 'dashboard' && e.path.startsWith('/api/'))

const concrete = (path: string) => path.replace(/:[a-z_]+/gi, 'x')

test('a printed link signs in once; the cookie is HttpOnly and SameSite=Strict', async (t) => {
  const d = await startDashboard(t)
  const token = mintSignInToken(d.test.kernel.settings.home)
  const first = await d.request(`/auth?token=${token}`)
  assert.equal(first.status, 303)
  assert.equal(first.headers.get('location'), '/')
  const cookie = first.headers.get('set-cookie')!
  assert.match(cookie, /HttpOnly/)
  assert.match(cookie, /SameSite=Strict/)
  assert.match(cookie, /Path=\//)
  const again = await d.request(`/auth?token=${token}`)
  assert.equal(again.status, 401, 'the link works once')
  assert.equal((await d.request('/auth?token=made-up-token-of-good-length')).status, 401)
  assert.equal((await d.request('/auth')).status, 401)
  const me = await d.request('/api/me', { cookie: cookie.split(';')[0] })
  assert.equal(me.status, 200)
  assert.equal(typeof me.body.csrf, 'string')
})

test('no cookie → 401 on every API route; a made-up cookie too', async (t) => {
  const d = await startDashboard(t)
  const routes = apiRoutes(d)
  assert.ok(routes.length >= 2)
  for (const route of routes) {
    const res = await d.request(concrete(route.path), { method: route.method })
    assert.equal(res.status, 401, `${route.method} ${route.path}`)
    const forged = await d.request(concrete(route.path), { method: route.method, cookie: 'agent_dashboard=forged' })
    assert.equal(forged.status, 401, `${route.method} ${route.path} with a forged cookie`)
  }
})

test('signed in: a foreign Origin → 403, a write without or with a wrong CSRF token → 403, with it passes', async (t) => {
  const d = await startDashboard(t)
  const { cookie, csrf } = await d.signIn()
  const foreign = await d.request('/api/me', { cookie, headers: { origin: 'http://evil.example' } })
  assert.equal(foreign.status, 403)
  const crossSite = await d.request('/api/me', { cookie, headers: { 'sec-fetch-site': 'cross-site' } })
  assert.equal(crossSite.status, 403)
  const own = await d.request('/api/me', { cookie, headers: { origin: d.url } })
  assert.equal(own.status, 200, 'the own origin is the harmless look-alike')
  for (const route of apiRoutes(d).filter((r) => r.method !== 'GET')) {
    const path = concrete(route.path)
    assert.equal((await d.request(path, { method: route.method, cookie })).status, 403, `${route.method} ${route.path} without CSRF`)
    assert.equal((await d.request(path, { method: route.method, cookie, csrf: 'wrong' })).status, 403, `${route.method} ${route.path} wrong CSRF`)
    assert.equal((await d.request(path, { method: route.method, cookie, csrf, headers: { origin: 'http://evil.example' } })).status, 403, `${route.method} ${route.path} foreign origin`)
  }
  const out = await d.request('/api/sign-out', { method: 'POST', cookie, csrf, headers: { origin: d.url } })
  assert.equal(out.status, 200)
  assert.equal((await d.request('/api/me', { cookie })).status, 401, 'signed out')
})

test('every answer carries the CSP; the page has no inline script', async (t) => {
  const d = await startDashboard(t)
  for (const path of ['/', '/ui/app.js', '/vendor/preact.mjs', '/api/me', '/auth?token=x', '/no-such']) {
    const res = await d.request(path)
    if (path === '/no-such') continue
    assert.match(res.headers.get('content-security-policy') ?? '', /script-src 'self'/, path)
    assert.doesNotMatch(res.headers.get('content-security-policy') ?? '', /unsafe-inline|unsafe-eval/, path)
  }
  const page = await d.request('/')
  assert.equal(page.status, 200)
  for (const tag of String(page.body).match(/<script[^>]*>[^<]*<\/script>/g) ?? []) assert.match(tag, /src="\/ui\/[a-z]+\.js"><\/script>$/, 'scripts only by src')
  assert.equal((await d.request('/ui/..%2Fgate.ts')).status, 404)
  assert.equal((await d.request('/vendor/package.json')).status, 404)
})

test('Host: a foreign name is refused on a loopback bind, loopback names pass', async (t) => {
  const d = await startDashboard(t)
  const http = await import('node:http')
  const port = new URL(d.url).port
  const statusFor = (host: string) =>
    new Promise<number>((resolve, reject) => {
      http.get({ host: '127.0.0.1', port, path: '/', headers: { host } }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject)
    })
  assert.equal(await statusFor(`rebound.example:${port}`), 421)
  assert.equal(await statusFor(`localhost:${port}`), 200)
  assert.equal(await statusFor(`127.0.0.1:${port}`), 200)
})

test('off loopback without DASHBOARD_KEY the dashboard refuses to start; with a key it serves and the key signs in', async (t) => {
  const refused = await createTestKernel({ builtins: ['http', 'dashboard'], env: { DASHBOARD_ENABLED: 'true', DASHBOARD_PORT: '0', DASHBOARD_HOST: '0.0.0.0' } })
  t.after(() => refused.close())
  await refused.kernel.start('command')
  const adapter = refused.kernel.registries.adapters.get('dashboard')!
  const ctx: AdapterContext = { signal: new AbortController().signal, log: refused.kernel.log, settings: refused.kernel.settings, services: refused.kernel.services as Services }
  await assert.rejects(adapter.start(ctx), /refusing to serve the dashboard on 0\.0\.0\.0 without DASHBOARD_KEY/)

  // The look-alike: the same bind with a key passes the rule (not bound here: tests stay on loopback).
  const keyed = await createTestKernel({ builtins: ['http'], env: { DASHBOARD_HOST: '0.0.0.0', DASHBOARD_KEY: 'dashboard-test-key-0123456789' } })
  t.after(() => keyed.close())
  assert.doesNotThrow(() => assertBindAllowed(keyed.kernel.settings))
})

test('with DASHBOARD_KEY set, the key signs a browser in; a wrong key does not', async (t) => {
  const key = 'dashboard-test-key-0123456789'
  const d = await startDashboard(t, { env: { DASHBOARD_KEY: key } })
  assert.equal((await d.request('/auth/key', { method: 'POST', body: JSON.stringify({ key: 'wrong' }), headers: { 'content-type': 'application/json' } })).status, 401)
  assert.equal((await d.request('/auth/key', { method: 'POST', body: JSON.stringify({ key }), headers: { 'content-type': 'application/json', origin: 'http://evil.example' } })).status, 403)
  const good = await d.request('/auth/key', { method: 'POST', body: JSON.stringify({ key }), headers: { 'content-type': 'application/json' } })
  assert.equal(good.status, 200)
  const cookie = good.headers.get('set-cookie')!.split(';')[0]!
  assert.equal((await d.request('/api/me', { cookie })).status, 200)
  // Guessing: after 10 wrong keys in a minute even the right one waits.
  const tryKey = (k: string) => d.request('/auth/key', { method: 'POST', body: JSON.stringify({ key: k }), headers: { 'content-type': 'application/json' } })
  for (let i = 0; i < 9; i++) assert.equal((await tryKey(`guess-${i}`)).status, 401)
  const limited = await tryKey(key)
  assert.equal(limited.status, 429)
  assert.ok(Number(limited.headers.get('retry-after')) > 0)
  // Another address is not locked out by this one's guessing (Linux routes all of 127/8 to loopback).
  if (process.platform === 'linux') {
    const elsewhere = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ key })
      const req = httpRequest(`${d.url}/auth/key`, { method: 'POST', localAddress: '127.0.0.2', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => (res.resume(), resolve(res.statusCode ?? 0)))
      req.once('error', reject)
      req.end(body)
    })
    assert.equal(elsewhere, 200)
  }
})

test('wrong keys: counted per address and in total over a sliding minute', () => {
  const failures = new KeyFailures(3, 5)
  const t0 = 1_000_000
  for (let i = 0; i < 3; i++) failures.record('a', t0 + i)
  assert.ok(failures.retryAfter('a', t0 + 10) > 0, 'a is locked out')
  assert.equal(failures.retryAfter('b', t0 + 10), 0, 'b is not')
  failures.record('b', t0 + 20)
  failures.record('c', t0 + 30)
  assert.ok(failures.retryAfter('d', t0 + 40) > 0, 'five in total: everyone waits')
  assert.equal(failures.retryAfter('a', t0 + 60_001), 0, 'the window slid past a')
  assert.equal(failures.retryAfter('d', t0 + 60_031), 0)
})
