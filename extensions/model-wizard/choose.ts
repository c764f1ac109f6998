// `agent model` without questions: flags → a checked ModelChoice (unknown provider, bad URL, missing
// key, unreachable endpoint or unknown model are refused before anything is written).

import { AgentError, MODELS_SERVICE, UsageError, type CliContext, type ModelsService } from 'agent/sdk'
import { probeModels } from './probe.ts'
import type { ModelChoice } from './save.ts'

export function checkUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new UsageError(`invalid base URL "${text}" (expected http(s)://host[:port]/v1)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`invalid base URL "${text}" (expected http or https)`)
  return text.replace(/\/+$/, '')
}

export function checkContextLength(value: unknown): number | undefined {
  if (value === undefined || value === '' || value === null) return undefined
  const n = Number(value)
  if (!Number.isInteger(n) || n < 256 || n > 100_000_000) throw new UsageError(`invalid context length "${value}" (a whole number of tokens, e.g. 32768)`)
  return n
}

export function checkName(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined
  const name = String(value)
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/.test(name)) throw new UsageError(`invalid endpoint name "${name}" (letters, digits, - and _)`)
  return name
}

export function requireModels(ctx: Pick<CliContext, 'services'>): ModelsService {
  const models = ctx.services.get<ModelsService>(MODELS_SERVICE)
  if (!models) throw new AgentError('E_STATE', 'no model resolver is loaded (extension model-resolver)')
  return models
}

export async function choiceFromFlags(ctx: CliContext): Promise<ModelChoice> {
  const a = ctx.argv
  const models = requireModels(ctx)
  const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined)
  const baseUrlFlag = str(a['base-url'])
  const rawProvider = str(a.provider) ?? (baseUrlFlag || str(a.name) ? 'custom' : undefined)
  if (!rawProvider) throw new UsageError('name a provider: agent model --provider <name> [--model <id>] (or --base-url <url> for a custom endpoint)')
  const provider = models.canonical(rawProvider)
  if (!provider) throw new UsageError(`unknown provider "${rawProvider}" (see agent model --list)`)
  const apiKey = str(a['api-key'])
  const model = str(a.model)
  const contextLength = checkContextLength(a['context-length'])
  const check = a.check !== false

  if (provider === 'custom') {
    const name = checkName(a.name)
    const baseUrl = baseUrlFlag ? checkUrl(baseUrlFlag) : undefined
    if (!baseUrl) throw new UsageError('a custom endpoint needs --base-url <url>')
    const choice: ModelChoice = { provider, model, baseUrl, name, apiKey, contextLength }
    if (check) {
      const probe = await probeModels(models, { provider: 'custom', baseUrl, apiKey })
      if (!probe.ok) throw new AgentError('E_PROVIDER', `cannot reach ${baseUrl}: ${probe.error}; nothing saved (--no-check saves anyway)`)
      if (model && probe.models.length && !probe.models.includes(model)) throw new UsageError(`${baseUrl} does not serve "${model}" (it serves: ${probe.models.slice(0, 8).join(', ')}); nothing saved`)
      if (!model) choice.model = probe.models[0]
    }
    return choice
  }

  const status = models.providers().find((p) => p.name === provider)
  const keyEnv = status?.envKeys.find((k) => /KEY|TOKEN/.test(k)) ?? status?.envKeys[0]
  if (!apiKey && status && status.configured !== true) {
    throw new UsageError(`${provider} is not configured (${status.configured}): pass --api-key <key>${keyEnv ? ` or run agent config set ${keyEnv} <key>` : ''}`)
  }
  if (baseUrlFlag) throw new UsageError('--base-url is for custom endpoints; use --provider custom (or set <PROVIDER>_BASE_URL)')
  return { provider, model, apiKey, keyEnv }
}
