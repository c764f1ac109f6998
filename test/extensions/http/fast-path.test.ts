// The fast path (a fixed path of one endpoint, served without Koa's middleware chain and the router)
// answers exactly as the Koa chain does: the same endpoints, once on a fixed path and once on a path
// with a param (which only the router serves), must give the same status, headers and body for
// every gate — auth, Host, origin, CORS on success and on error, preflight, envelopes —
// and both count in the http.request metrics events.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension, HttpError, readJson, type EndpointDefinition, type HttpContext, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'
import { send, type Answer } from './raw-request.ts'

type Handler = (ctx: HttpContext) => unknown
const behaviours: Record<string, Handler> = {
  echo: async (ctx) => void (ctx.body = { got: await readJson(ctx, 64) }),
  limited: () => {
    throw new HttpError(429, 'Too many runs', { code: 'rate_limited', headers: { 'Retry-After': '2', Vary: 'Accept' } })
  },
  boom: () => {
    throw new Error('internal detail')
  },
  silent: () => undefined,
  empty: (ctx) => void (ctx.status = 204),
}

/** Each behaviour twice: `/fixed/<name>` (fast path) and `/param/<name>/:x` (router). */
function endpoints(): EndpointDefinition[] {
  return Object.entries(behaviours).flatMap(([name, handler]) => [
    { listener: 'api', method: 'POST', path: `/fixed/${name}`, auth: 'api-key', handler: handler as EndpointDefinition['handler'] },
    { listener: 'api', method: 'POST', path: `/param/${name}/:x`, auth: 'api-key', handler: handler as EndpointDefinition['handler'] },
  ])
}

async function start(t: import('node:test').TestContext, env: Record<string, string>) {
  const events: Array<Record<string, unknown>> = []
  const routes = defineExtension({ name: 'routes', setup: (api) => endpoints().forEach((e) => api.endpoints.register(e)) })
  const watcher = defineExtension({ name: 'watcher', setup: (api) => api.hooks.observe.tap((e) => void (e.type === 'http.request' && events.push(e))) })
  const host = await createTestKernel({ builtins: ['http'], extensions: [routes, watcher], env: { API_SERVER_PORT: '0', ...env } })
  t.after(host.close)
  await host.kernel.start('gateway')
  return { url: host.kernel.services.require<HttpService>('http').address('api')!.url, events, host }
}

const json = { 'content-type': 'application/json' }
const cases: Array<[string, string, Record<string, string>, string?]> = [
  ['a good request', 'echo', json, '{"a":1}'],
  ['bad JSON', 'echo', json, '{nope'],
  ['a body over the limit', 'echo', json, JSON.stringify({ x: 'y'.repeat(100) })],
  ['an HttpError with headers', 'limited', {}],
  ['an unexpected failure', 'boom', {}],
  ['a handler that sets no body', 'silent', {}],
  ['a handler that answers 204', 'empty', {}],
  ['an allowed origin', 'echo', { ...json, origin: 'https://app.example' }, '{"a":1}'],
  ['an allowed origin and an error', 'limited', { origin: 'https://app.example/' }],
  ['an allowed origin and a failure', 'boom', { origin: 'https://app.example' }],
  ['a refused origin', 'echo', { ...json, origin: 'https://evil.example' }, '{}'],
  ['no Host', 'echo', { ...json, host: '' }, '{}'],
]

function same(fast: Answer, slow: Answer, what: string): void {
  // The message of a 404 names the path, which differs by construction (and so does its length).
  const plain = (a: Answer, body: string) => ({ status: a.status, headers: { ...a.headers, 'content-length': undefined }, body })
  assert.deepEqual(plain(fast, fast.body.replaceAll('/fixed/', '/P/')), plain(slow, slow.body.replaceAll(/\/param\/(\w+)\/x/g, '/P/$1')), what)
}

test('with a key: every case answers the same on the fast path and through the router', async (t) => {
  const { url, events } = await start(t, { API_SERVER_KEY: 'k-123', API_SERVER_CORS_ORIGINS: 'https://app.example' })
  for (const [what, name, headers, body] of cases) {
    for (const auth of [{ authorization: 'Bearer k-123' }, { authorization: 'Bearer wrong' }, {}] as Array<Record<string, string>>) {
      const fast = await send(url, `/fixed/${name}`, 'POST', { ...headers, ...auth }, body)
      const slow = await send(url, `/param/${name}/x`, 'POST', { ...headers, ...auth }, body)
      same(fast, slow, `${what}, ${JSON.stringify(auth)}`)
    }
  }
  const good = await send(url, '/fixed/echo', 'POST', { ...json, authorization: 'Bearer k-123', origin: 'https://app.example' }, '{"a":1}')
  assert.equal(good.status, 200)
  assert.equal(good.headers['access-control-allow-origin'], 'https://app.example')
  const limited = await send(url, '/fixed/limited', 'POST', { authorization: 'Bearer k-123', origin: 'https://app.example' })
  assert.equal(limited.status, 429)
  assert.equal(limited.headers['access-control-allow-origin'], 'https://app.example')
  assert.equal(limited.headers.vary, 'Accept, Origin')
  // Both paths are counted, each under its route template, with its final status (a request refused
  // before routing is unmatched on both). assert.ok is avoided: its message reads the transformed source.
  const seen = (route: string) => [...new Set(events.filter((e) => e.route === route).map((e) => e.status))].sort()
  assert.deepEqual(seen('/fixed/echo'), [200, 400, 401, 413])
  assert.deepEqual(seen('/param/echo/:x'), [200, 400, 401, 413])
  assert.deepEqual(seen('/fixed/boom'), [401, 500])
  assert.deepEqual(seen('(unmatched)'), [400, 403])
})

test('without a key (loopback): the Host rule and preflights answer the same on both paths', async (t) => {
  const { url } = await start(t, { API_SERVER_CORS_ORIGINS: '*' })
  for (const host of ['localhost', 'rebound.example', '127.0.0.1:9']) {
    same(await send(url, '/fixed/echo', 'POST', { ...json, host }, '{}'), await send(url, '/param/echo/x', 'POST', { ...json, host }, '{}'), `Host ${host}`)
  }
  const preflight = { origin: 'https://any.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-stainless-os,authorization' }
  const fast = await send(url, '/fixed/echo', 'OPTIONS', preflight)
  same(fast, await send(url, '/param/echo/x', 'OPTIONS', preflight), 'preflight')
  assert.equal(fast.status, 204)
  assert.equal(fast.headers['access-control-allow-headers'], 'x-stainless-os,authorization')
  // A query string does not change the route: the fast path still serves it.
  const withQuery = await send(url, '/fixed/echo?x=1', 'POST', json, '{"a":2}')
  assert.deepEqual(JSON.parse(withQuery.body), { got: { a: 2 } })
})
