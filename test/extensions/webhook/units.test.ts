// Webhook unit checks: templates (dot paths, missing keys kept, objects as JSON, __raw__), route
// validation (a route without a secret fails startup), signature helpers, the rate limit failing closed.

import assert from 'node:assert/strict'
import { test } from 'node:test'
import { renderTemplate } from '../../../extensions/webhook/template.ts'
import { signRequest, verifySignature } from '../../../extensions/webhook/signature.ts'
import { loadRoutes } from '../../../extensions/webhook/routes.ts'
import { handleWebhook, type IntakeState } from '../../../extensions/webhook/intake.ts'
import type { HttpContext, Settings } from '../../../sdk/index.ts'

const settings = (extra: unknown, env: Record<string, string> = {}) => ({ get: (p: string) => (p === 'platforms.webhook.extra' ? extra : undefined), env: (n: string) => env[n] }) as unknown as Settings

test('templates read the payload by dot path', () => {
  const payload = { a: { b: { c: 7 } }, list: [1, 2], s: 'x' }
  assert.equal(renderTemplate('{a.b.c}-{s}-{nope.x}-{list.0}', payload), '7-x-{nope.x}-{list.0}')
  assert.equal(renderTemplate('{a.b}', payload), JSON.stringify({ c: 7 }, null, 2))
  assert.equal(renderTemplate('{__raw__}', payload), JSON.stringify(payload, null, 2))
  assert.ok(renderTemplate('{__raw__}', { big: 'y'.repeat(10_000) }).length <= 4_001)
})

test('a route without a secret fails startup; WEBHOOK_SECRET fills it', () => {
  assert.throws(() => loadRoutes(settings({ routes: { ci: {} } })), /routes\.ci has no secret/)
  assert.equal(loadRoutes(settings({ routes: { ci: {} } }, { WEBHOOK_SECRET: 'g' })).routes.get('ci')!.secret, 'g')
  assert.throws(() => loadRoutes(settings({ routes: { ci: { secret: 's', signature: 'svix' } } })), /signature must be one of/)
  const loaded = loadRoutes(settings({ rate_limit: 5, max_body_bytes: 10, routes: { ci: { secret: 's', events: 'push' } } }))
  assert.equal(loaded.maxBodyBytes, 10)
  assert.deepEqual(loaded.routes.get('ci')!.events, ['push'])
  assert.equal(loaded.routes.get('ci')!.rateLimit, 5)
})

test('signed headers verify under their scheme only', () => {
  const body = Buffer.from('{"x":1}')
  for (const scheme of ['github', 'gitlab', 'generic'] as const) {
    const headers = Object.fromEntries(Object.entries(signRequest(scheme, 'k', body)).map(([k, v]) => [k.toLowerCase(), v]))
    const get = (n: string) => headers[n] ?? ''
    assert.ok(verifySignature(get, body, 'k'), scheme)
    assert.ok(verifySignature(get, body, 'k', scheme), scheme)
    assert.ok(!verifySignature(get, body, 'other'), scheme)
    for (const other of ['github', 'gitlab', 'generic'] as const) if (other !== scheme) assert.ok(!verifySignature(get, body, 'k', other), `${scheme} under ${other}`)
  }
})

test('a rate limit that cannot be counted refuses with 503 (fail closed); a counted one lets the delivery through', async () => {
  const loaded = loadRoutes(settings({ routes: { ci: { secret: 's', signature: 'github' } } }))
  const body = Buffer.from('{"type":"build"}')
  const headers = Object.fromEntries(Object.entries(signRequest('github', 's', body)).map(([k, v]) => [k.toLowerCase(), v]))
  const ctx = () => ({ state: { rawBody: body }, params: { route: 'ci' }, get: (n: string) => headers[n.toLowerCase()] ?? '', status: 404, body: undefined as unknown }) as unknown as HttpContext & { body: any }
  const claims: string[] = []
  const intake = (take: () => Promise<number>): IntakeState => ({
    settings: () => loaded,
    limiter: { take },
    ledger: { claim: async (c) => (claims.push(c.deliveryId), { duplicate: false }), settle: async () => undefined },
    onAccepted: () => undefined,
    onError: () => undefined,
  })
  await assert.rejects(handleWebhook(ctx(), intake(() => Promise.reject(new Error('database unreachable')))), (error: any) => error.status === 503 && error.code === 'rate_limit_unavailable')
  assert.deepEqual(claims, [], 'nothing claimed, nothing run')
  const accepted = ctx()
  await handleWebhook(accepted, intake(async () => 0))
  assert.equal(accepted.status, 202)
  assert.equal(claims.length, 1)
  await assert.rejects(handleWebhook(ctx(), intake(async () => 12)), (error: any) => error.status === 429)
})
