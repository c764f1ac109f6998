// `agent model` in a terminal: provider, then key, endpoint and model, with a context-length
// question for custom endpoints. Answers are collected first and written together at the end, so a
// cancelled wizard changes nothing. `prompts` is imported only here (never on the start path).

import { errorMessage, type CliContext, type ModelsService } from 'agent/sdk'
import { checkContextLength, checkName, checkUrl, requireModels } from './choose.ts'
import { probeModels } from './probe.ts'
import { saveChoice, type ModelChoice } from './save.ts'

export class Cancelled extends Error {
  constructor() {
    super('cancelled; nothing was changed')
  }
}

type Ask = (question: Record<string, unknown>) => Promise<any>

export async function asker(): Promise<Ask> {
  const { default: prompts } = await import('prompts')
  return async (question) => {
    let cancelled = false
    const answers = await prompts({ name: 'value', ...question } as any, { onCancel: () => ((cancelled = true), false) })
    if (cancelled) throw new Cancelled()
    return answers.value
  }
}

const valid = (check: (v: string) => unknown) => (value: string) => {
  try {
    check(value)
    return true
  } catch (error) {
    return errorMessage(error)
  }
}

async function pickModel(ask: Ask, ctx: CliContext, offered: string[], current: string | undefined, fallbackHint: string): Promise<string | undefined> {
  if (offered.length > 0) {
    const typeOwn = '__type__'
    const choices = [...offered.slice(0, 200).map((id) => ({ title: id, value: id })), { title: 'Type another model id…', value: typeOwn }]
    const picked = await ask({ type: 'autocomplete', message: 'Model', choices, initial: Math.max(0, offered.indexOf(current ?? '')) , limit: 12 })
    if (picked !== typeOwn) return picked
  }
  const typed = await ask({ type: 'text', message: `Model id (${fallbackHint})`, initial: current ?? '' })
  return typeof typed === 'string' && typed.trim() ? typed.trim() : undefined
}

async function customChoice(ask: Ask, ctx: CliContext, models: ModelsService): Promise<ModelChoice> {
  const name = checkName(await ask({ type: 'text', message: 'Name this endpoint (leave empty for the default custom endpoint)', validate: valid(checkName) }))
  const currentUrl = ctx.settings.get<string>('model.base_url') ?? ctx.settings.env('OPENAI_BASE_URL') ?? 'http://127.0.0.1:8080/v1'
  const baseUrl = checkUrl(await ask({ type: 'text', message: 'Base URL (OpenAI-compatible, usually ending in /v1)', initial: currentUrl, validate: valid(checkUrl) }))
  const key = await ask({ type: 'password', message: 'API key (leave empty for a keyless endpoint)' })
  const apiKey = typeof key === 'string' && key.trim() ? key.trim() : undefined
  ctx.out(`checking ${baseUrl} …`)
  const probe = await probeModels(models, { provider: 'custom', baseUrl, apiKey })
  if (!probe.ok) {
    ctx.out(`✗ could not list models: ${probe.error}`)
    const keep = await ask({ type: 'confirm', message: 'Save this endpoint anyway?', initial: false })
    if (!keep) throw new Cancelled()
  } else {
    ctx.out(`✓ reachable; serves ${probe.models.length} model(s)`)
  }
  const model = await pickModel(ask, ctx, probe.models, undefined, 'leave empty to use what the endpoint serves')
  const length = await ask({ type: 'text', message: 'Context length in tokens (leave empty to auto-detect)', validate: valid(checkContextLength) })
  return { provider: 'custom', name, baseUrl, apiKey, model, contextLength: checkContextLength(length) }
}

async function providerChoice(ask: Ask, ctx: CliContext, models: ModelsService, provider: string): Promise<ModelChoice> {
  const status = models.providers().find((p) => p.name === provider)!
  const keyEnv = status.envKeys.find((k) => /KEY|TOKEN/.test(k)) ?? status.envKeys[0]
  let apiKey: string | undefined
  if (status.configured !== true) {
    ctx.out(`${provider}: ${status.configured}`)
    const key = await ask({ type: 'password', message: `${keyEnv ?? 'API key'}`, validate: (v: string) => (v.trim() ? true : 'a key is needed for this provider (Ctrl-C to cancel)') })
    apiKey = String(key).trim()
  }
  ctx.out(`asking ${provider} for its models …`)
  const probe = await probeModels(models, { provider, apiKey })
  if (!probe.ok) ctx.out(`✗ could not list models: ${probe.error}`)
  const current = models.select().provider === provider ? ctx.settings.get<string>('model.default') : undefined
  const model = await pickModel(ask, ctx, probe.models, current, "leave empty for the provider's default")
  return { provider, model, apiKey, keyEnv }
}

/** Asks everything; returns the choice (not yet saved). */
export async function askModelChoice(ask: Ask, ctx: CliContext): Promise<ModelChoice> {
  const models = requireModels(ctx)
  const selected = (() => {
    try {
      return models.select().provider
    } catch {
      return undefined
    }
  })()
  const providers = models.providers().sort((a, b) => Number(b.configured === true) - Number(a.configured === true) || a.name.localeCompare(b.name))
  const choices = providers.map((p) => ({
    title: `${p.label ?? p.name}${p.name === 'custom' ? '' : ` (${p.name})`}`,
    description: p.configured === true ? 'ready' : p.name === 'custom' ? 'any OpenAI-compatible server' : String(p.configured),
    value: p.name,
  }))
  // Autocomplete: typing filters the list by name (`cust`, `open` …).
  const provider = await ask({ type: 'autocomplete', message: 'Model provider (type to filter)', choices, initial: Math.max(0, providers.findIndex((p) => p.name === selected)), limit: 12 })
  return provider === 'custom' ? customChoice(ask, ctx, models) : providerChoice(ask, ctx, models, provider)
}

export async function modelWizard(ctx: CliContext): Promise<number> {
  const ask = await asker()
  try {
    const choice = await askModelChoice(ask, ctx)
    const written = await saveChoice(ctx.settings, choice)
    ctx.out(`saved: ${written.join(', ')}`)
    return 0
  } catch (error) {
    if (error instanceof Cancelled) {
      ctx.err(error.message)
      return 1
    }
    throw error
  }
}
