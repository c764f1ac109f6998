// Prompt templates of webhook routes: `{a.b.c}` reads the payload by dot path (lists are not
// indexed), a missing key stays literally, objects are inserted as JSON (2,000 characters at most),
// `{__raw__}` is the whole payload (4,000 characters at most).

const TOKEN = /\{([A-Za-z0-9_.]+)\}/g
const OBJECT_LIMIT = 2_000
const RAW_LIMIT = 4_000

const truncate = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)}…` : text)

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
    if (value !== null && typeof value === 'object') return truncate(JSON.stringify(value, null, 2), OBJECT_LIMIT)
    return String(value)
  })
}

export function defaultPrompt(event: string, route: string, payload: unknown): string {
  return `Webhook event '${event}' on route '${route}':\n\n\`\`\`json\n${truncate(JSON.stringify(payload, null, 2), RAW_LIMIT)}\n\`\`\``
}
