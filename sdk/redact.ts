// Redaction of secrets and phone numbers before anything reaches a log line or an error body.
// Known secret values are matched by sdk/secrets/; this file adds secret-shaped strings,
// phone numbers and the rules that say which names hold secrets.

import { secretMatcher, type SecretEntry } from './secrets/index.ts'

export * from './secrets/index.ts'

const SECRET_PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // API keys in the common vendor shapes
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(gh[pousr]_[A-Za-z0-9]{20,})/g,
  /\bAC[0-9a-f]{32}\b/g, // SMS provider account ids
]

const LOG_MARKER = () => '***'

/**
 * Replaces known secret values (and their encodings, see secretForms) and secret-shaped strings with
 * `***`. Values too short or too common to be secrets (isRedactableSecret) are left alone.
 */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  const entries: { name: string; value: string }[] = []
  for (const value of secrets) if (value) entries.push({ name: '', value })
  let out = secretMatcher(entries, LOG_MARKER).redact(text)
  for (const pattern of SECRET_PATTERNS) out = out.replace(pattern, (m) => (m.toLowerCase().startsWith('bearer') ? 'Bearer ***' : '***'))
  return out
}

/** `+15551234567` → `+155****4567`: keeps the country code and the last four digits. */
export function redactPhone(phone: string): string {
  const digits = phone.replace(/[^\d+]/g, '')
  if (digits.length <= 7) return '****'
  return `${digits.slice(0, 4)}****${digits.slice(-4)}`
}

/**
 * Redacts every phone-number-shaped run in free text: 8 to 15 digits (E.164's bounds), separators
 * allowed, not part of a longer digit run, not a date, not part of an id. Longer ids (a chat
 * platform's 17-19 digit snowflakes) stay readable, so an operator can copy them into an allowlist.
 */
export function redactPhonesIn(text: string): string {
  return text.replace(/(?<![\d\w])\+?\d[\d\s().-]{6,}\d(?![\d\w])/g, (m, offset: number) => {
    const digits = m.replace(/\D/g, '').length
    // A date (2026-11-21, perhaps with the hour after it) is not a phone number.
    if (/^\d{4}-\d{2}-\d{2}\b/.test(m)) return m
    if (insideId(text, offset, offset + m.length)) return m
    return digits >= 8 && digits <= 15 ? redactPhone(m) : m
  })
}

/**
 * Whether the digits at [start, end) are part of an identifier joined to them by `-` or `_`: a UUID
 * or other hex id (`…-1043-5612-f570-…`), or a token with a segment mixing letters and digits
 * (`req_9f8e7d6c-1043-5612`). A word glued on (`phone-555-123-4567`) does not make an id.
 */
function insideId(text: string, start: number, end: number): boolean {
  let left = start
  while (left > 0 && /[A-Za-z0-9_-]/.test(text[left - 1]!)) left--
  let right = end
  while (right < text.length && /[A-Za-z0-9_-]/.test(text[right]!)) right++
  if (left === start && right === end) return false
  const token = text.slice(left, right)
  if (/[a-f]/i.test(token) && /^[0-9a-f_-]+$/i.test(token)) return true
  return token.split(/[-_]+/).some((part) => /[A-Za-z]/.test(part) && /\d/.test(part))
}

/** Redacts E.164 numbers (`+` and 8-15 digits): safe to apply to any log line, unlike bare digit runs. */
export function redactE164In(text: string): string {
  return text.replace(/\+\d{8,15}\b/g, (m) => redactPhone(m))
}

/**
 * Environment variable names whose values are secrets (for .env routing and redaction): keys,
 * tokens, secrets and passwords (plurals too: a list of keys), passphrases, a Sentry-style DSN and a
 * webhook URL (each holds its key), cookies. `PWD` and `OLDPWD` are folders, not passwords.
 */
export function isSecretName(name: string): boolean {
  if (/^(?:OLD)?PWD$/i.test(name)) return false
  return (
    /(KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASS|PASSWD|_PWD|PASSPHRASE|AUTH|CREDENTIALS?|SID|_DSN|WEBHOOK|WEBHOOK_URL|COOKIE)$/i.test(name) ||
    /_KEY_|_TOKEN_|_SECRET_/i.test(name)
  )
}

/**
 * Config keys whose values are secrets: `api_key`, `token`, `secret`, `password` and their
 * compounds (`bot_token`, `client_secret`, `summary_api_key`), `authorization`,
 * `proxy-authorization`, `cookie` and `x-auth` headers, and environment-style names inside config
 * (`env: {GITHUB_TOKEN: …}`) by isSecretName.
 */
export function isSecretConfigKey(key: string): boolean {
  if (/^[A-Z0-9_]+$/.test(key)) return isSecretName(key)
  return (
    /(^|[_-])(api[_-]?keys?|apikey|access[_-]?key|private[_-]?key|secret[_-]?key|tokens?|secrets?|password|passwd|passphrase|credentials?|auth|dsn|webhook[_-]?url|cookie)$/i.test(key) ||
    /^(?:proxy-)?authorization$/i.test(key)
  )
}

/**
 * The redactor for every secret `settings` knows (its secretEntries), markers `[REDACTED:NAME]`.
 * Reads the current set on each call (the matcher is cached while the set stays the same); throws
 * when the secrets cannot be read, so a caller can withhold what it was about to pass on.
 */
export function knownSecretsRedactor(settings: { secretEntries(options?: { fresh?: boolean }): SecretEntry[] }, options?: { fresh?: boolean }): (text: string) => string {
  return secretMatcher(settings.secretEntries(options)).redact
}
