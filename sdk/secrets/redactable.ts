// Which values may be treated as secrets at all: a value too short or too common would erase
// ordinary words and numbers from every output. Apart from index.ts so that forms.ts can ask it
// of each line of a multi-line value.

/** Shortest value treated as a secret: shorter ones would also match ordinary words and numbers. */
export const MIN_SECRET_LENGTH = 6

// Placeholder and switch values people put in secret-named variables; treating them as secrets
// would erase these words from every output.
const COMMON = new Set([
  'true', 'false', 'enabled', 'disabled', 'default', 'undefined', 'null', 'none', 'localhost', 'api-key', 'apikey',
  'bearer', 'secret', 'password', 'passwd', 'token', 'changeme', 'change-me', 'example', 'placeholder', 'required',
  'optional', 'oauth', 'basic', 'unset', 'empty', 'dummy', 'test', 'testing', 'xxxxxx', 'your-api-key', 'your_api_key',
])

/** Whether `value` may be treated as a secret: long enough, not a number, a switch or a placeholder. */
export function isRedactableSecret(value: string | undefined): value is string {
  if (typeof value !== 'string') return false
  const v = value.trim()
  if (v.length < MIN_SECRET_LENGTH) return false
  if (COMMON.has(v.toLowerCase())) return false
  // Ports, counts, timestamps: a short number is not a key, and matching it would erase numbers everywhere.
  if (/^[\d.,:+-]+$/.test(v) && v.replace(/\D/g, '').length < 12) return false
  // One repeated character (`xxxxxxxx`, `********`).
  if (/^(.)\1*$/s.test(v)) return false
  return true
}
