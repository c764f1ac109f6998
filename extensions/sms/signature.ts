// The SMS provider's request signature (Twilio's documented algorithm, implemented here): base64 of
// HMAC-SHA1, keyed by the auth token, over the public webhook URL followed by every POST parameter
// sorted by name, name and value concatenated. The URL is also tried with its default port toggled
// (:443 for https, :80 for http), as the provider may sign either form.

import { createHmac } from 'node:crypto'
import { safeEqual } from 'agent/sdk'

export function twilioSignature(authToken: string, url: string, params: URLSearchParams | Record<string, string>): string {
  const entries = params instanceof URLSearchParams ? [...params.entries()] : Object.entries(params)
  entries.sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
  let data = url
  for (const [key, value] of entries) data += key + value
  return createHmac('sha1', authToken).update(Buffer.from(data, 'utf8')).digest('base64')
}

/** The URL as given, and with the scheme's default port added or removed. */
export function urlVariants(url: string): string[] {
  const variants = [url]
  try {
    const parsed = new URL(url)
    const defaultPort = parsed.protocol === 'https:' ? '443' : parsed.protocol === 'http:' ? '80' : undefined
    if (!defaultPort) return variants
    // new URL() drops a default port, so look at the text itself.
    const explicit = new RegExp(`^${parsed.protocol}//[^/]*:${defaultPort}(?=[/?#]|$)`).test(url)
    if (explicit) variants.push(url.replace(`:${defaultPort}`, ''))
    else if (parsed.port === '') variants.push(url.replace(`${parsed.protocol}//${parsed.host}`, `${parsed.protocol}//${parsed.hostname}:${defaultPort}`))
  } catch {}
  return variants
}

export function verifyTwilioSignature(authToken: string, url: string, params: URLSearchParams, signature: string | undefined): boolean {
  if (!signature) return false
  return urlVariants(url).some((candidate) => safeEqual(twilioSignature(authToken, candidate, params), signature))
}
