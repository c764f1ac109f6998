// The three signature schemes of webhook routes (DECISIONS.md):
//   github  X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>
//   gitlab  X-Gitlab-Token: <secret>, compared in constant time
//   generic X-Webhook-Signature: <hex HMAC-SHA256 of "<timestamp>.<body>">, X-Webhook-Timestamp within 300 s
// A route may pin one scheme; otherwise the first recognised header decides. No header: rejected.

import { createHash, createHmac } from 'node:crypto'
import { safeEqual } from 'agent/sdk'

export type SignatureScheme = 'github' | 'gitlab' | 'generic'
export const SIGNATURE_SCHEMES: readonly SignatureScheme[] = ['github', 'gitlab', 'generic']
export const TIMESTAMP_TOLERANCE_S = 300

export type HeaderGetter = (name: string) => string

const HEADER: Record<SignatureScheme, string> = {
  github: 'x-hub-signature-256',
  gitlab: 'x-gitlab-token',
  generic: 'x-webhook-signature',
}

export function detectScheme(header: HeaderGetter): SignatureScheme | undefined {
  return SIGNATURE_SCHEMES.find((scheme) => header(HEADER[scheme]) !== '')
}

export const hmacHex = (secret: string, data: string | Buffer) => createHmac('sha256', secret).update(data).digest('hex')

/** The scheme under which the request carries a valid signature for `secret` (`pinned`, or the detected one); undefined if none. */
export function verifySignature(header: HeaderGetter, raw: Buffer, secret: string, pinned?: SignatureScheme, nowMs = Date.now()): SignatureScheme | undefined {
  const scheme = pinned ?? detectScheme(header)
  if (!scheme) return undefined
  return checkScheme(scheme, header, raw, secret, nowMs) ? scheme : undefined
}

function checkScheme(scheme: SignatureScheme, header: HeaderGetter, raw: Buffer, secret: string, nowMs: number): boolean {
  const value = header(HEADER[scheme]).trim()
  if (!value) return false
  if (scheme === 'github') return value.startsWith('sha256=') && safeEqual(value.toLowerCase(), `sha256=${hmacHex(secret, raw)}`)
  if (scheme === 'gitlab') return safeEqual(value, secret)
  const timestamp = header('x-webhook-timestamp').trim()
  if (!/^\d{1,13}$/.test(timestamp)) return false
  const seconds = Number(timestamp) > 1e11 ? Math.floor(Number(timestamp) / 1000) : Number(timestamp)
  if (Math.abs(nowMs / 1000 - seconds) > TIMESTAMP_TOLERANCE_S) return false
  return safeEqual(value.toLowerCase(), hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), raw])))
}

/**
 * The replay key of a verified request: a hash of exactly what its scheme covers. github and gitlab:
 * the body; generic: "<timestamp>.<body>" (the same body signed at another time is another delivery).
 * Headers the scheme does not cover (delivery ids, event names) never enter it.
 */
export function signedKey(scheme: SignatureScheme, header: HeaderGetter, raw: Buffer): string {
  const hash = createHash('sha256')
  if (scheme === 'generic') hash.update(`${header('x-webhook-timestamp').trim()}.`)
  return hash.update(raw).digest('hex')
}

/** Headers that sign `body` under a scheme (for tests, benchmarks and `agent webhook test`-style tools). */
export function signRequest(scheme: SignatureScheme, secret: string, body: string | Buffer, nowMs = Date.now()): Record<string, string> {
  if (scheme === 'github') return { 'X-Hub-Signature-256': `sha256=${hmacHex(secret, body)}` }
  if (scheme === 'gitlab') return { 'X-Gitlab-Token': secret }
  const timestamp = String(Math.floor(nowMs / 1000))
  return { 'X-Webhook-Timestamp': timestamp, 'X-Webhook-Signature': hmacHex(secret, Buffer.concat([Buffer.from(`${timestamp}.`), Buffer.from(body)])) }
}
