// One webhook request, checked in the order of DECISIONS.md: unknown route 404 → body over the limit
// 413 (before the payload is read) → bad signature 401 → rate limit 429 (signed requests only) → bad
// JSON, or JSON nested too deep / too many members 400 → event filter (200 ignored), and an event the
// filter would pass on a header the payload contradicts 400 → duplicate delivery (200 duplicate) →
// 202 accepted, the run going on in the background. Nothing past the signature is trusted unless the
// scheme covers it: the replay key is a hash of the signed bytes, never of a header.

import { errorMessage, HttpError, parseJsonBounded, readBody, type HttpContext } from 'agent/sdk'
import { resolveEvent } from './events.ts'
import type { DeliveryLedger } from './ledger.ts'
import type { RateLimit } from './limits.ts'
import type { WebhookSettings, WebhookRoute } from './routes.ts'
import { signedKey, verifySignature } from './signature.ts'

export interface Accepted {
  route: WebhookRoute
  event: string
  deliveryId: string
  /** The replay key the ledger holds the delivery under (to mark how it ended). */
  signedKey: string
  payload: unknown
}

export interface IntakeState {
  settings(): WebhookSettings | undefined
  limiter: RateLimit
  ledger: DeliveryLedger
  onAccepted(delivery: Accepted): void
  onError(message: string): void
}

/** Delivery ids from headers are labels (chat ids, logs): a plain token or nothing. */
const HEADER_ID = /^[A-Za-z0-9._:-]{1,128}$/

/** The delivery id the sender claims (X-GitHub-Delivery, else X-Request-ID), when it is a plain token. */
export function headerDeliveryId(ctx: HttpContext): string | undefined {
  const id = (ctx.get('x-github-delivery') || ctx.get('x-request-id')).trim()
  return HEADER_ID.test(id) ? id : undefined
}

export async function handleWebhook(ctx: HttpContext, state: IntakeState): Promise<void> {
  const settings = state.settings()
  if (!settings) throw new HttpError(503, 'The webhook adapter is not running', { type: 'server_error', code: 'not_running' })
  const route = settings.routes.get(String((ctx as { params?: Record<string, string> }).params?.route ?? ''))
  if (!route) throw new HttpError(404, 'Unknown webhook route', { code: 'unknown_route' })
  const raw = await readBody(ctx, settings.maxBodyBytes)
  const header = (name: string) => ctx.get(name)
  const scheme = verifySignature(header, raw, route.secret, route.signature)
  if (!scheme) throw new HttpError(401, 'Invalid signature', { code: 'invalid_signature' })
  let retryAfter: number
  try {
    retryAfter = await state.limiter.take(route.name, route.rateLimit)
  } catch (error) {
    // Fail closed: a limit that cannot be counted lets nothing through.
    state.onError(`rate limit check failed on route "${route.name}": ${errorMessage(error)}`)
    throw new HttpError(503, 'Rate limiting is unavailable; try again later', { type: 'server_error', code: 'rate_limit_unavailable', headers: { 'Retry-After': '30' } })
  }
  if (retryAfter > 0) throw new HttpError(429, 'Rate limit exceeded for this route', { code: 'rate_limited', headers: { 'Retry-After': String(retryAfter) } })
  // Bounded before use: a signed body nested 5,000 deep is a 400 here, never a stack overflow later.
  const payload = parseJsonBounded(raw.toString('utf8'), settings.jsonBounds)

  const resolved = resolveEvent(scheme, header, payload)
  if (route.events.length > 0) {
    if (!resolved.names.some((name) => route.events.includes(name))) {
      ctx.status = 200
      ctx.body = { status: 'ignored', event: resolved.event }
      return
    }
    // The filter would let it through on an unsigned header: the payload must agree.
    if (resolved.mismatch) {
      throw new HttpError(400, `The claimed event "${resolved.event}" does not match the payload (${resolved.mismatch}); event headers are not signed`, { code: 'event_mismatch' })
    }
  }

  const key = signedKey(scheme, header, raw)
  const headerId = headerDeliveryId(ctx)
  const id = headerId ?? key.slice(0, 32)
  let claim
  try {
    claim = await state.ledger.claim({ route: route.name, signedKey: key, headerId, deliveryId: id })
  } catch (error) {
    // Fail closed: without the ledger a replay cannot be told apart, so nothing is accepted.
    state.onError(`replay check failed on route "${route.name}": ${errorMessage(error)}`)
    throw new HttpError(503, 'Replay protection is unavailable; try again later', { type: 'server_error', code: 'replay_check_unavailable', headers: { 'Retry-After': '30' } })
  }
  if (claim.duplicate) {
    ctx.status = 200
    ctx.body = { status: 'duplicate', delivery_id: claim.deliveryId }
    return
  }
  ctx.status = 202
  ctx.body = { status: 'accepted', route: route.name, event: resolved.event, delivery_id: id }
  state.onAccepted({ route, event: resolved.event, deliveryId: id, signedKey: key, payload })
}
