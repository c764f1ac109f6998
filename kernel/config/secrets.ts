// Every secret value the agent knows, with the name it is known by: secret-named environment
// variables, `<agent_home>/.env` entries, and credentials in the config (provider keys, platform
// tokens, an MCP server's environment and any headers: isSecretConfigValue; `key_env` targets,
// `--api-key VALUE` arguments), the credentials inside URLs in any value, and each item of a
// secret-named list. Feeds redaction (sdk/secrets/).

import { isCredentialShaped, isRedactableSecret, isSecretConfigValue, isSecretName, type SecretEntry } from '../../sdk/redact.ts'

export interface SecretSources {
  env: NodeJS.ProcessEnv
  dotenv: Record<string, string>
  config: Record<string, unknown>
}

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** Query parameters that carry a credential (`?api_key=`, `&token=`, `&sig=` …). */
const SECRET_PARAM = /^(?:(?:api|access|auth|private|client|secret)[_-]?)?(?:key|token|secret|password|passwd|sig|signature|code)$/i

/**
 * The credentials inside a URL in any value: `scheme://user:password@host` (a database or proxy URL),
 * a key alone in the user part (`https://<key>@sentry.example/1`, when it looks like one), and
 * secret-named query parameters.
 */
function urlSecrets(value: string): string[] {
  const out: string[] = []
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/([^/\s@]*)@/i.exec(value)
  if (userinfo) {
    const [user, password] = userinfo[1]!.split(/:(.*)/s)
    if (password) out.push(decoded(password))
    else if (user && isCredentialShaped(decoded(user))) out.push(decoded(user))
  }
  const query = /^[a-z][a-z0-9+.-]*:\/\/[^?#\s]*\?([^#\s]*)/i.exec(value)
  for (const pair of query ? query[1]!.split('&') : []) {
    const [name, param] = pair.split(/=(.*)/s)
    if (name && param && SECRET_PARAM.test(decoded(name))) out.push(decoded(param))
  }
  return out
}

/**
 * A secret-named value that is a list (`KEYS=a,b`): each item leaks alone too. Not a multi-line
 * value (a key file: `Proc-Type: 4,ENCRYPTED` is no list); its lines are matched (sdk/secrets/forms.ts).
 */
function listItems(value: string): string[] {
  return /[,;]/.test(value) && !value.includes('\n') ? value.split(/\s*[,;]\s*/).filter(Boolean) : []
}

/** `--api-key VALUE` and `--api-key=VALUE` in an argument list (an MCP server's `args`). */
function optionSecrets(args: readonly unknown[]): string[] {
  const out: string[] = []
  const secretOption = /^--?[a-z0-9-]*(?:key|token|secret|password|passwd|auth)$/i
  args.forEach((arg, i) => {
    if (typeof arg !== 'string') return
    const [option, attached] = arg.split(/=(.*)/s)
    if (!option || !secretOption.test(option)) return
    const value = attached ?? args[i + 1]
    if (typeof value === 'string') out.push(value)
  })
  return out
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
    if (typeof value === 'string' && value.includes('://')) for (const secret of urlSecrets(value)) add(name, secret)
  }
  const addNamed = (name: string, value: unknown) => {
    add(name, value)
    if (typeof value === 'string') for (const item of listItems(value)) add(name, item)
  }
  for (const [name, value] of Object.entries(sources.env)) {
    if (isSecretName(name)) addNamed(name, value)
    addPassword(name, value)
  }
  for (const [name, value] of Object.entries(sources.dotenv)) {
    // A value under a name that does not say "secret" still is one when it looks like a credential;
    // a secret-named one counts whatever its shape (when it is redactable at all).
    if (isSecretName(name) || isCredentialShaped(value)) addNamed(name, value)
    addPassword(name, value)
  }
  const keyEnvs: string[] = []
  // `keys`: the keys down to a value, list indexes left out (isSecretConfigValue's view of a place).
  const walk = (value: unknown, path: string, keys: readonly string[], depth: number) => {
    if (depth > 32) return
    if (Array.isArray(value)) {
      for (const secret of optionSecrets(value)) add(path, secret)
      value.forEach((v, i) => walk(v, `${path}[${i}]`, keys, depth + 1))
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, path ? `${path}.${k}` : k, [...keys, k], depth + 1)
    } else if (typeof value === 'string') {
      if (keys.length && isSecretConfigValue(keys, value)) addNamed(path, value)
      if (/(^|_)key_env$/i.test(keys.at(-1) ?? '')) keyEnvs.push(value)
      addPassword(path, value)
    }
  }
  walk(sources.config, '', [], 0)
  // `key_env: MY_LLM` names the variable that holds a key, whatever that variable is called.
  for (const name of keyEnvs) add(name, sources.env[name] || sources.dotenv[name])
  return out
}
