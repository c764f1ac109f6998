// `--json` output is snake_case everywhere. Records kept in camelCase in code are converted at the
// printer: keys only (values, such as names and paths, are left alone), and only camelCase keys
// (`OPENAI_API_KEY`, `session_id`, `a.b` stay as they are).

/** `userId` → `user_id`, `pidFile` → `pid_file`; any other key unchanged. */
export function snakeCaseKey(key: string): string {
  return key.replace(/([a-z0-9])([A-Z]+)/g, (_, before: string, upper: string) => `${before}_${upper.toLowerCase()}`)
}

/**
 * A copy of a JSON-ready value with every object key in snake_case, at every depth. Only for the
 * agent's own records: data whose keys belong to someone else (a JSON Schema, a user's config, a
 * protocol message) must not pass through it.
 */
export function snakeCaseKeys<T>(value: T): unknown {
  if (Array.isArray(value)) return value.map(snakeCaseKeys)
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCaseKey(k), snakeCaseKeys(v)]))
}
