// The HTTP host: listeners start only with endpoints, one live dispatcher per listener, bearer auth
// in constant time, the origin gate and CORS, envelopes for errors, and the non-loopback refusal.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defineExtension, HttpError, readJson, type EndpointDefinition, type HttpService } from '../../../sdk/index.ts'
import { createTestKernel } from '../../../sdk/testing/index.ts'

function endpointsExtension(name: string, endpoints: EndpointDefinition[]) {
  return defineExtension({ name, setup: (api) => endpoints.forEach((e) => api.endpoints.register(e)) })
}

async function start(t: import('node:test').TestContext, endpoints: EndpointDefinition[], env: Record<string, string> = {}) {
  const testKernel = await createTestKernel({ builtins: ['http'], extensions: [endpointsExtension('routes', endpoints)], env: { API_SERVER_PORT: '0', WEBHOOK_PORT: '0', ...env } })
  t.after(testKernel.close)
  await testKernel.kernel.start('gateway')
  const http = testKernel.kernel.services.require<HttpService>('http')
  return { ...testKernel, http }
}

const echo: EndpointDefinition = {
  listener: 'api',
  method: 'POST',
  path: '/echo',
  auth: 'api-key',
  async handler(ctx) {
    ctx.body = { got: await readJson(ctx, 1024) }
  },
}

test('only listeners with endpoints start; requests reach the live registry', async (t) => {
  const { http } = await start(t, [echo])
  assert.deepEqual(http.running(), ['api'])
  const res = await fetch(`${http.address('api')!.url}/echo`, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } })
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff')
  assert.equal(res.headers.get('x-frame-options'), 'DENY')
  assert.deepEqual(await res.json(), { got: { a: 1 } })
})

test('errors use the envelope: 404, 405, 400, 413, HttpError status and headers, 500 without internals', async (t) => {
  const boom: EndpointDefinition = { listener: 'api', method: 'GET', path: '/boom', auth: 'none', handler() { throw new Error('secret internals sk-abcdefghijklmnop') } }
  const busy: EndpointDefinition = { listener: 'api', method: 'GET', path: '/busy', auth: 'none', handler() { throw new HttpError(429, 'Too many runs', { code: 'rate_limited', headers: { 'Retry-After': '2' } }) } }
  const { http } = await start(t, [echo, boom, busy])
  const url = http.address('api')!.url
  const notFound = await fetch(`${url}/nowhere`)
  assert.equal(notFound.status, 404)
  assert.deepEqual(await notFound.json(), { error: { message: 'No route for GET /nowhere', type: 'invalid_request_error', param: null, code: 'not_found' } })
  assert.equal((await fetch(`${url}/echo`)).status, 405)
  const bad = await fetch(`${url}/echo`, { method: 'POST', body: '{nope' })
  assert.equal(bad.status, 400)
  assert.equal(((await bad.json()) as any).error.code, 'invalid_json')
  const big = await fetch(`${url}/echo`, { method: 'POST', body: 'x'.repeat(5000) })
  assert.equal(big.status, 413)
  const limited = await fetch(`${url}/busy`)
  assert.equal(limited.status, 429)
  assert.equal(limited.headers.get('retry-after'), '2')
  const failed = await fetch(`${url}/boom`)
  assert.equal(failed.status, 500)
  assert.doesNotMatch(await failed.text(), /secret|sk-/)
})

test('api-key endpoints need the bearer key when one is set; others stay open', async (t) => {
  const health: EndpointDefinition = { listener: 'api', method: 'GET', path: '/health', auth: 'none', handler(ctx) { ctx.body = { ok: true } } }
  const { http } = await start(t, [echo, health], { API_SERVER_KEY: 'right-key-123' })
  const url = http.address('api')!.url
  const post = (auth?: string) => fetch(`${url}/echo`, { method: 'POST', body: '{}', headers: auth ? { authorization: auth } : {} })
  assert.equal((await post()).status, 401)
  const wrong = await post('Bearer wrong-key-123')
  assert.equal(wrong.status, 401)
  assert.equal(((await wrong.json()) as any).error.code, 'invalid_api_key')
  assert.equal((await post('Bearer right-key-123')).status, 200)
  assert.equal((await fetch(`${url}/health`)).status, 200)
})

test('browser origins: allowed ones get CORS headers and preflights; others get 403', async (t) => {
  const { http } = await start(t, [echo], { API_SERVER_CORS_ORIGINS: 'http://app.example:3000, http://other.example' })
  const url = http.address('api')!.url
  const preflight = await fetch(`${url}/echo`, { method: 'OPTIONS', headers: { origin: 'http://app.example:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } })
  assert.equal(preflight.status, 204)
  assert.equal(preflight.headers.get('access-control-allow-origin'), 'http://app.example:3000')
  // What browser clients send is reflected: openai-node's x-stainless-*, openai-*, idempotency keys.
  const clientHeaders = 'authorization,content-type,idempotency-key,openai-organization,x-stainless-arch,x-stainless-lang,x-stainless-retry-count,x-stainless-timeout,x-api-key'
  const stainless = await fetch(`${url}/echo`, { method: 'OPTIONS', headers: { origin: 'http://app.example:3000', 'access-control-request-method': 'POST', 'access-control-request-headers': clientHeaders } })
  assert.equal(stainless.status, 204)
  assert.equal(stainless.headers.get('access-control-allow-headers'), clientHeaders)
  const stainlessRefused = await fetch(`${url}/echo`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': clientHeaders } })
  assert.equal(stainlessRefused.status, 403)
  assert.equal(stainlessRefused.headers.get('access-control-allow-headers'), null)
  const allowed = await fetch(`${url}/echo`, { method: 'POST', body: '{}', headers: { origin: 'http://app.example:3000' } })
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://app.example:3000')
  assert.match(allowed.headers.get('access-control-expose-headers') ?? '', /X-Agent-Session-Id/)
  const refused = await fetch(`${url}/echo`, { method: 'POST', body: '{}', headers: { origin: 'http://evil.example' } })
  assert.equal(refused.status, 403)
  assert.equal(((await refused.json()) as any).error.code, 'origin_not_allowed')
  const refusedPreflight = await fetch(`${url}/echo`, { method: 'OPTIONS', headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' } })
  assert.equal(refusedPreflight.status, 403)
})

test('binding a non-loopback address without a key is refused with a clear message', async (t) => {
  const testKernel = await createTestKernel({ builtins: ['http'], extensions: [endpointsExtension('routes', [echo])], env: { API_SERVER_PORT: '0', API_SERVER_HOST: '0.0.0.0' } })
  t.after(testKernel.close)
  await assert.rejects(testKernel.kernel.start('gateway'), /refusing to serve the "api" listener on 0\.0\.0\.0:0 without API_SERVER_KEY/)
})

test('an endpoint registered later (hot reload) brings its listener up', async (t) => {
  const { kernel, http } = await start(t, [echo])
  assert.equal(http.address('webhook'), undefined)
  await kernel.add({ definition: endpointsExtension('late-hook', [{ listener: 'webhook', method: 'POST', path: '/webhooks/:route', auth: 'none', handler(ctx) { ctx.status = 202; ctx.body = { route: ctx.params.route } } }]) })
  let address = http.address('webhook')
  for (let i = 0; i < 100 && !address; i++) {
    await new Promise((r) => setTimeout(r, 20))
    address = http.address('webhook')
  }
  assert.ok(address)
  const res = await fetch(`${address.url}/webhooks/github`, { method: 'POST' })
  assert.equal(res.status, 202)
  assert.deepEqual(await res.json(), { route: 'github' })
})

test('a known secret the client sent (a path, an Origin) is redacted in every error envelope; other text is echoed as sent', async (t) => {
  const secret = 'zq7vkp3mwx9rtb2nlc8dhf4g'
  const { http } = await start(t, [echo], { DEPLOY_TOKEN: secret })
  const url = http.address('api')!.url
  const answers = [
    await fetch(`${url}/v1/${secret}`),
    await fetch(`${url}/nowhere`, { headers: { Origin: `http://${secret}.evil` } }),
    // A fixed path of one endpoint: the fast path's own origin gate.
    await fetch(`${url}/echo`, { method: 'POST', body: '{}', headers: { Origin: `http://${secret}.evil` } }),
  ]
  const bodies = await Promise.all(answers.map(async (res) => ({ status: res.status, text: await res.text() })))
  assert.deepEqual(bodies.map((b) => b.status), [404, 403, 403])
  for (const { text } of bodies) assert.doesNotMatch(text, new RegExp(secret.slice(0, 8)), text)
  assert.equal(JSON.parse(bodies[0]!.text).error.message, 'No route for GET /v1/***')
  assert.equal(JSON.parse(bodies[1]!.text).error.message, 'Origin http://***.evil is not allowed')
  assert.equal(JSON.parse(bodies[2]!.text).error.message, 'Origin http://***.evil is not allowed')
  const plain = await fetch(`${url}/v1/zq7vkp3m-not-a-secret`, { headers: { Origin: 'http://other.evil' } })
  assert.equal(((await plain.json()) as any).error.message, 'Origin http://other.evil is not allowed')
  assert.equal(((await (await fetch(`${url}/v1/zq7vkp3m-not-a-secret`)).json()) as any).error.message, 'No route for GET /v1/zq7vkp3m-not-a-secret')
})
