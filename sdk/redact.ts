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

/** Last words that end as a secret word does but are none: `MONKEY`, `HOTKEY`, `CACHE_BYPASS`, `COMPASS`. */
const LOOK_ALIKE = /(?:MON|DON|TUR|TURN|HOC|JOC|WHIS|LAC|HOT)KEYS?$|(?:BY|COM|SUR|TRES|OVER|UNDER)PASS$/i
const SECRET_END = /(?:KEYS?|TOKENS?|SECRETS?|PASSWORDS?|PASS|PASSWD|_PWD|_PW|_PAT|PASSPHRASE|AUTH|AUTHORIZATION|CREDENTIALS?|SID|_DSN|WEBHOOK|WEBHOOK_URL|COOKIE)$/i
const SECRET_MIDDLE = /_(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS)_/i

/**
 * Environment variable names whose values are secrets (for .env routing and redaction): keys,
 * tokens, secrets and passwords (plurals too: a list of keys; `_PASS`, `_PWD`, `_PW`, `_PAT`), passphrases,
 * an `Authorization` header's value (`mcp add --header` keeps it in .env as
 * `MCP_<SERVER>_HEADER_AUTHORIZATION`), a Sentry-style DSN and a webhook URL (each holds its key),
 * cookies; such a word inside (`DB_PASSWORD_FILE`, `API_KEY_ID`), or numbered (`API_KEY2`,
 * `DB_PASSWORD_2`, `TOKEN2`: a second account's). Not: `PWD` and `OLDPWD` (the shell's folders),
 * words that only end like one (`MONKEY`, `CACHE_BYPASS`), or a secret word starting a name
 * (`PASSWORD_MIN_LENGTH`, `TOKENIZER_MODEL`, `KEYBOARD_LAYOUT`: settings about them).
 */
export function isSecretName(name: string): boolean {
  // A numbered name as the name without its number: `MONKEY2` is no more a secret than `MONKEY`.
  const base = name.replace(/_?\d+$/, '')
  if (/^(?:OLD)?PWD$/i.test(base)) return false
  return (SECRET_END.test(base) && !LOOK_ALIKE.test(base)) || SECRET_MIDDLE.test(name)
}

/**
 * Config keys whose values are secrets: `api_key`, `token`, `secret`, `password` and their
 * compounds (`bot_token`, `client_secret`, `summary_api_key`, `signing_key`, `smtp_pass`),
 * `authorization`, `proxy-authorization`, `cookie` and `x-auth` headers; not other keys
 * (`sort_key`, `primary_key`). camelCase keys (`accessToken`, `clientSecret`, `apiKey`) as their
 * snake_case, a numbered key (`api_key_2`) as the key without its number, and environment-style
 * names inside config (`env: {GITHUB_TOKEN: …}`) by isSecretName.
 */
export function isSecretConfigKey(key: string): boolean {
  if (/^[A-Z0-9_]+$/.test(key)) return isSecretName(key)
  const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[_-]?\d+$/, '')
  return (
    /(^|[_-])(api[_-]?keys?|apikey|(?:access|private|secret|encryption|signing|master|license|hmac|app|consumer)[_-]?keys?|tokens?|secrets?|passwords?|passwd|passphrase|credentials?|auth|dsn|webhook[_-]?url|cookie)$/i.test(snake) ||
    /[_-](?:pass|pwd|pw)$/i.test(snake) ||
    /^(?:proxy-)?authorization$/i.test(snake)
  )
}

/** A URL or a file path: where something is, not a credential (the credentials inside a URL are found apart). */
export function isLocation(value: string): boolean {
  return value.includes('://') || /^(?:[./~]|[A-Za-z]:[\\/])/.test(value)
}

/**
 * Shaped like a credential whatever it is called: a private key, or one word of 16 characters or
 * more with letters and digits that is not a URL or a path.
 */
export function isCredentialShaped(value: string): boolean {
  if (/^-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/.test(value.trim())) return true
  return value.length >= 16 && !/\s/.test(value) && !isLocation(value) && /[A-Za-z]/.test(value) && /\d/.test(value)
}

/** Headers whose values are public (content negotiation, the client, the calling app): every other header's is a secret. */
const PUBLIC_HEADER = /^(?:accept(?:-[a-z]+)?|content-(?:type|language|encoding)|user-agent|cache-control|origin|(?:http-)?referer|x-title)$/i

/**
 * Whether the config value at `keys` (the keys down to it, list indexes left out:
 * `['mcp_servers', 'gh', 'env', 'GITHUB_PAT']`) is a secret. The one rule for what is collected
 * as a known secret (kernel/config/secrets.ts) and what `agent config show` masks. A value under a
 * secret key (isSecretConfigKey); a credential-shaped variable of an MCP server's `env` whatever
 * its name (`GITHUB_PAT: ghp_…`; not `NODE_ENV: production`, which would erase that word
 * everywhere, nor a URL or path: a filesystem server's root would erase every path under it); and
 * the values of a `headers` mapping, which hand a credential to a server under names of its
 * choosing (`X-Acme-Id`), but for the public headers (`Content-Type: application/json`).
 */
export function isSecretConfigValue(keys: readonly string[], value: string): boolean {
  const key = keys.at(-1) ?? ''
  if (isSecretConfigKey(key)) return true
  if (keys.length === 4 && keys[0] === 'mcp_servers' && keys[2] === 'env') return isCredentialShaped(value)
  if (keys.length >= 2 && /(^|[_-])headers$/i.test(keys.at(-2)!)) return !PUBLIC_HEADER.test(key)
  return false
}

/**
 * The redactor for every secret `settings` knows (its secretEntries), markers `[REDACTED:NAME]`.
 * Reads the current set on each call (the matcher is cached while the set stays the same); throws
 * when the secrets cannot be read, so a caller can withhold what it was about to pass on.
 */
export function knownSecretsRedactor(settings: { secretEntries(options?: { fresh?: boolean }): SecretEntry[] }, options?: { fresh?: boolean }): (text: string) => string {
  return secretMatcher(settings.secretEntries(options)).redact
}
