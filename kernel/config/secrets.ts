// Every secret value the agent knows, with the name it is known by: secret-named environment
// variables, `<agent_home>/.env` entries, and credentials in the config (provider keys, platform
// tokens, `key_env` targets, passwords inside URLs). Feeds redaction (sdk/secret-matcher.ts).

import { isRedactableSecret, isSecretConfigKey, isSecretName, type SecretEntry } from '../../sdk/redact.ts'

export interface SecretSources {
  env: NodeJS.ProcessEnv
  dotenv: Record<string, string>
  config: Record<string, unknown>
}

/** A value in .env under a name that does not say "secret" is still one when it looks like a credential. */
function credentialShaped(value: string): boolean {
  return value.length >= 16 && !/\s/.test(value) && !value.includes('://') && !/^[./~]/.test(value) && /[A-Za-z]/.test(value) && /\d/.test(value)
}

/** `scheme://user:password@host`: the password (a database or proxy URL in any variable). */
function urlPassword(value: string): string | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:([^/\s@]+)@/i.exec(value)
  if (!match) return undefined
  try {
    return decodeURIComponent(match[1]!)
  } catch {
    return match[1]
  }
}

export function collectSecrets(sources: SecretSources): SecretEntry[] {
  const out: SecretEntry[] = []
  const add = (name: string, value: unknown) => {
    if (typeof value !== 'string') return
    const v = value.trim()
    if (isRedactableSecret(v)) out.push({ name, value: v })
    // `Authorization: Bearer <token>`: the token alone leaks too.
    const bearer = /^(?:bearer|token|basic)\s+(\S+)$/i.exec(v)
    if (bearer && isRedactableSecret(bearer[1])) out.push({ name, value: bearer[1]! })
  }
  const addPassword = (name: string, value: unknown) => {
    if (typeof value === 'string') add(name, urlPassword(value))
  }
  for (const [name, value] of Object.entries(sources.env)) {
    if (isSecretName(name)) add(name, value)
    addPassword(name, value)
  }
  for (const [name, value] of Object.entries(sources.dotenv)) {
    if (isSecretName(name) || credentialShaped(value)) add(name, value)
    addPassword(name, value)
  }
  const keyEnvs: string[] = []
  const walk = (value: unknown, path: string, key: string, depth: number) => {
    if (depth > 32) return
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${path}[${i}]`, key, depth + 1))
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, k, depth + 1)
    } else if (typeof value === 'string') {
      if (key && isSecretConfigKey(key)) add(path, value)
      if (/(^|_)key_env$/i.test(key)) keyEnvs.push(value)
      addPassword(path, value)
    }
  }
  walk(sources.config, '', '', 0)
  // `key_env: MY_LLM` names the variable that holds a key, whatever that variable is called.
  for (const name of keyEnvs) add(name, sources.env[name] || sources.dotenv[name])
  return out
}
