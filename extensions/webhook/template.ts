// Prompt templates of webhook routes: `{a.b.c}` reads the payload by dot path (lists are not
// indexed), a missing key stays literally, strings as they are and objects as JSON (each 2,000
// characters at most: a signed payload still carries text outsiders wrote, such as an issue body, and
// a template may name a field many times), `{__raw__}` is the whole payload (4,000 characters at most).
// A cut value ends with `…`.

const TOKEN = /\{([A-Za-z0-9_.]+)\}/g
const FIELD_LIMIT = 2_000
const RAW_LIMIT = 4_000

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text
  // Never split a surrogate pair: half an emoji is not text.
  const end = /[\uD800-\uDBFF]/.test(text[limit - 1]!) ? limit - 1 : limit
  return `${text.slice(0, end)}…`
}

export function lookup(payload: unknown, path: string): unknown {
  let current = payload
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, part)) return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

export function renderTemplate(template: string, payload: unknown): string {
  return template.replace(TOKEN, (token, path: string) => {
    if (path === '__raw__') return truncate(JSON.stringify(payload, null, 2), RAW_LIMIT)
    const value = lookup(payload, path)
    if (value === undefined) return token
    if (value !== null && typeof value === 'object') return truncate(JSON.stringify(value, null, 2), FIELD_LIMIT)
    return truncate(String(value), FIELD_LIMIT)
  })
}

export function defaultPrompt(event: string, route: string, payload: unknown): string {
  return `Webhook event '${event}' on route '${route}':\n\n\`\`\`json\n${truncate(JSON.stringify(payload, null, 2), RAW_LIMIT)}\n\`\`\``
}
