// Masks secret-looking values (api_key, token, secret …) before configuration is printed.

import { isSecretConfigKey, isSecretName } from 'agent/sdk'

export function redactConfig(value: unknown, key = ''): any {
  if (Array.isArray(value)) return value.map((v) => redactConfig(v, key))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactConfig(v, k)]))
  }
  if (typeof value === 'string' && key && (isSecretName(key) || isSecretConfigKey(key))) return value ? '***' : value
  return value
}
