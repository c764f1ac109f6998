// Masks secrets before configuration is printed (`config show`, `config get`): a value at a secret
// place (isSecretConfigValue: the rule the runtime collects known secrets by) becomes `***`; a known
// secret anywhere else (a URL's password, an `?api_key=` value, an MCP server's `--api-key VALUE`
// argument, found by the same collection) its `[REDACTED:NAME]` marker, as the model would see it.

import { isSecretConfigValue, isSecretName, knownSecretsRedactor, redactDeep, type Settings } from 'agent/sdk'

/** Values at secret places masked; `keys` are the keys down to `value` (list indexes left out). */
function maskSecretPlaces(value: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((v) => maskSecretPlaces(v, keys))
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecretPlaces(v, [...keys, k])]))
  if (typeof value === 'string' && value && keys.length && isSecretConfigValue(keys, value)) return '***'
  return value
}

/** The configuration tree `tree` as it may be printed. Throws when the known secrets cannot be read: nothing is printed then. */
export function redactConfig(tree: Record<string, unknown>, settings: Settings): Record<string, unknown> {
  return redactDeep(maskSecretPlaces(tree, []) as Record<string, unknown>, knownSecretsRedactor(settings))
}

/** An environment variable's value as it may be printed. */
export function redactEnvValue(name: string, value: string, settings: Settings): string {
  return isSecretName(name) ? '***' : knownSecretsRedactor(settings)(value)
}
