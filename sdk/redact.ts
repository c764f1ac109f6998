// Redaction of secrets and phone numbers before anything reaches a log line or an error body.

const SECRET_PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g, // API keys in the common vendor shapes
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(gh[pousr]_[A-Za-z0-9]{20,})/g,
  /\bAC[0-9a-f]{32}\b/g, // SMS provider account ids
]

/** Replaces known secret values and secret-shaped strings with `***`. */
export function redactSecrets(text: string, secrets: Iterable<string | undefined> = []): string {
  let out = text
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('***')
  }
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
 * allowed, not part of a longer digit run, not a date. Longer ids (a chat platform's 17-19 digit snowflakes)
 * stay readable, so an operator can copy them into an allowlist.
 */
export function redactPhonesIn(text: string): string {
  return text.replace(/(?<![\d\w])\+?\d[\d\s().-]{6,}\d(?![\d\w])/g, (m) => {
    const digits = m.replace(/\D/g, '').length
    // A date (2026-11-21, perhaps with the hour after it) is not a phone number.
    if (/^\d{4}-\d{2}-\d{2}\b/.test(m)) return m
    return digits >= 8 && digits <= 15 ? redactPhone(m) : m
  })
}

/** Redacts E.164 numbers (`+` and 8-15 digits): safe to apply to any log line, unlike bare digit runs. */
export function redactE164In(text: string): string {
  return text.replace(/\+\d{8,15}\b/g, (m) => redactPhone(m))
}

/** Environment variable names whose values are secrets (for .env routing and redaction). */
export function isSecretName(name: string): boolean {
  return /(KEY|TOKEN|SECRET|PASSWORD|PASS|AUTH|CREDENTIAL|SID)$/i.test(name) || /_KEY_|_TOKEN_|_SECRET_/i.test(name)
}
