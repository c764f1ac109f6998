// One webhook request, checked in the order of DECISIONS.md: unknown route 404 → body over the limit
// 413 (before the payload is read) → bad signature 401 → rate limit 429 (signed requests only) → bad
// JSON 400 → event filter (200 ignored) → duplicate delivery (200 duplicate) → 202 accepted, the run
// going on in the background.

import { createHash } from 'node:crypto'
import { HttpError, readBody, type HttpContext } from 'agent/sdk'
import type { RateLimiter, SeenDeliveries } from './limits.ts'
import type { WebhookSettings, WebhookRoute } from './routes.ts'
import { verifySignature } from './signature.ts'

export interface Accepted {
  route: WebhookRoute
  event: string
  deliveryId: string
  payload: unknown
}

export interface IntakeState {
  settings(): WebhookSettings | undefined
  limiter: RateLimiter
  seen: SeenDeliveries
  onAccepted(delivery: Accepted): void
}

export function eventType(ctx: HttpContext, payload: unknown): string {
  const header = ctx.get('x-github-event') || ctx.get('x-gitlab-event')
  if (header) return header
  const body = (payload ?? {}) as Record<string, unknown>
  for (const key of ['event_type', 'type']) if (typeof body[key] === 'string' && body[key]) return body[key] as string
  return 'unknown'
}

export function deliveryId(ctx: HttpContext, raw: Buffer): string {
  return ctx.get('x-github-delivery') || ctx.get('x-request-id') || createHash('sha256').update(raw).digest('hex').slice(0, 32)
}

export async function handleWebhook(ctx: HttpContext, state: IntakeState): Promise<void> {
  const settings = state.settings()
  if (!settings) throw new HttpError(503, 'The webhook adapter is not running', { type: 'server_error', code: 'not_running' })
  const route = settings.routes.get(String((ctx as { params?: Record<string, string> }).params?.route ?? ''))
  if (!route) throw new HttpError(404, 'Unknown webhook route', { code: 'unknown_route' })
  const raw = await readBody(ctx, settings.maxBodyBytes)
  if (!verifySignature((name) => ctx.get(name), raw, route.secret, route.signature)) {
    throw new HttpError(401, 'Invalid signature', { code: 'invalid_signature' })
  }
  const retryAfter = state.limiter.take(route.name, route.rateLimit)
  if (retryAfter > 0) throw new HttpError(429, 'Rate limit exceeded for this route', { code: 'rate_limited', headers: { 'Retry-After': String(retryAfter) } })
  let payload: unknown
  try {
    payload = JSON.parse(raw.toString('utf8'))
  } catch {
    throw new HttpError(400, 'Request body is not valid JSON', { code: 'invalid_json' })
  }
  const event = eventType(ctx, payload)
  if (route.events.length > 0 && !route.events.includes(event)) {
    ctx.status = 200
    ctx.body = { status: 'ignored', event }
    return
  }
  const id = deliveryId(ctx, raw)
  const key = `${route.name}:${id}`
  if (state.seen.has(key)) {
    ctx.status = 200
    ctx.body = { status: 'duplicate', delivery_id: id }
    return
  }
  state.seen.add(key)
  ctx.status = 202
  ctx.body = { status: 'accepted', route: route.name, event, delivery_id: id }
  state.onAccepted({ route, event, deliveryId: id, payload })
}
