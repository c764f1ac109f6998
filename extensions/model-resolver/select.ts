// Which provider, model and endpoint a request resolves to: request fields, then the environment
// selectors (AGENT_INFERENCE_PROVIDER, AGENT_MODEL), then config.yaml (`model.*`, `custom_providers`,
// `auxiliary.<task>.*`), then auto-detection from the credentials present.

import { AgentError, parseInputModalities, UsageError, type ModelResolveRequest, type ModelSelection, type ProviderDefinition, type Settings } from 'agent/sdk'

export interface CustomEntry {
  name: string
  base_url?: string
  api_key?: string
  key_env?: string
  model?: string
  context_length?: number
  /** What the model reads besides text: `[text, image]`, `[text, image, audio]` … */
  input_modalities?: unknown
  extra_body?: Record<string, unknown>
  headers?: Record<string, string>
}

/** A selection plus what only the provider may see (keys) and its extras. */
export interface Plan {
  selection: ModelSelection
  /** undefined: the provider's default (or, for custom endpoints, what the endpoint serves). */
  model?: string
  apiKey?: string
  extra: Record<string, unknown>
}

export interface SelectContext {
  settings: Settings
  getProvider(name: string): ProviderDefinition | undefined
  listProviders(): ProviderDefinition[]
}

/** Providers auto-detection tries first, in this order; the rest follow in registry order. */
const AUTO_ORDER = ['openrouter', 'anthropic', 'openai', 'zai', 'kimi-coding', 'minimax', 'minimax-cn', 'kilocode', 'ai-gateway', 'alibaba', 'deepseek', 'opencode-zen']
/** Never picked by auto-detection: they need an explicit choice (a GitHub token is common for other uses). */
const AUTO_SKIP = new Set(['custom', 'copilot', 'copilot-acp'])

export const NOT_CONFIGURED =
  'no model provider configured: run `agent model`, or set AGENT_INFERENCE_PROVIDER=custom and OPENAI_BASE_URL=<endpoint>, or `agent config set OPENROUTER_API_KEY <key>`'

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined)

export function canonicalName(ctx: SelectContext, name: string): string | undefined {
  const lower = name.trim().toLowerCase()
  if (!lower) return undefined
  return ctx.getProvider(lower)?.name ?? ctx.getProvider(name.trim())?.name
}

export function customEntries(settings: Settings): CustomEntry[] {
  const raw = settings.get<unknown>('custom_providers')
  if (Array.isArray(raw)) return raw.filter((e): e is CustomEntry => !!e && typeof e === 'object' && typeof (e as CustomEntry).name === 'string')
  // The mapping form `custom_providers: {name: {...}}` is accepted too.
  if (raw && typeof raw === 'object') return Object.entries(raw as Record<string, unknown>).filter(([, v]) => v && typeof v === 'object').map(([name, v]) => ({ ...(v as object), name }))
  return []
}

export function findCustom(settings: Settings, name: string): CustomEntry | undefined {
  const lower = name.toLowerCase()
  return customEntries(settings).find((e) => e.name.toLowerCase() === lower)
}

export function timeoutMs(settings: Settings): number {
  const seconds = Number(settings.env('AGENT_API_TIMEOUT'))
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : 900_000
}

/** `custom:<name>` in a provider field names a custom_providers entry. */
function splitProvider(raw: string): { provider: string; customName?: string } {
  const colon = raw.indexOf(':')
  return colon < 0 ? { provider: raw } : { provider: raw.slice(0, colon), customName: raw.slice(colon + 1) || undefined }
}

function requireProvider(ctx: SelectContext, raw: string): string {
  const name = canonicalName(ctx, raw)
  if (name) return name
  const known = ctx.listProviders().map((p) => p.name).sort().join(', ')
  throw new UsageError(`unknown provider "${raw}" (known: ${known})`)
}

function isConfigured(provider: ProviderDefinition, settings: Settings): boolean {
  try {
    return (provider.configured?.(settings) ?? true) === true
  } catch {
    return false
  }
}

function autoDetect(ctx: SelectContext): string {
  const { settings } = ctx
  if (str(settings.get('model.base_url')) || settings.env('OPENAI_BASE_URL')) {
    if (ctx.getProvider('custom')) return 'custom'
  }
  const all = ctx.listProviders()
  const ordered = [...AUTO_ORDER.map((n) => all.find((p) => p.name === n)).filter((p): p is ProviderDefinition => !!p), ...all.filter((p) => !AUTO_ORDER.includes(p.name))]
  for (const provider of ordered) if (!AUTO_SKIP.has(provider.name) && isConfigured(provider, settings)) return provider.name
  throw new AgentError('E_PROVIDER', NOT_CONFIGURED)
}

function customPlan(ctx: SelectContext, entryName: string, model: string | undefined, source: ModelSelection['source']): Plan {
  const entry = findCustom(ctx.settings, entryName)
  if (!entry) {
    const names = customEntries(ctx.settings).map((e) => e.name)
    throw new UsageError(`no custom provider named "${entryName}" in custom_providers${names.length ? ` (configured: ${names.join(', ')})` : ''}`)
  }
  const baseUrl = str(entry.base_url)
  if (!baseUrl) throw new AgentError('E_PROVIDER', `custom provider "${entry.name}" has no base_url in custom_providers`)
  const apiKey = str(entry.api_key) ?? (entry.key_env ? ctx.settings.env(entry.key_env) : undefined)
  const chosen = model ?? str(entry.model)
  return {
    selection: { provider: 'custom', model: chosen ?? '', baseUrl, customName: entry.name, source },
    model: chosen,
    apiKey,
    extra: { customName: entry.name, contextLength: entry.context_length, inputModalities: parseInputModalities(entry.input_modalities), extraBody: entry.extra_body, headers: entry.headers },
  }
}

/** The primary (or auxiliary) plan for a request. Throws one-line errors; changes nothing. */
export function plan(ctx: SelectContext, request: ModelResolveRequest = {}): Plan {
  const { settings } = ctx
  if (request.task) {
    const aux = settings.get<Record<string, unknown>>(`auxiliary.${request.task}`) ?? {}
    const auxBase = str(request.baseUrl) ?? str(aux.base_url)
    const auxProvider = str(request.provider) ?? (str(aux.provider) && str(aux.provider) !== 'auto' ? str(aux.provider) : undefined)
    const auxModel = str(request.model) ?? str(aux.model)
    const auxKey = str(request.apiKey) ?? str(aux.api_key)
    if (auxBase || auxProvider) {
      const inner = plan(ctx, { provider: auxProvider ?? 'custom', model: auxModel, baseUrl: auxBase, apiKey: auxKey })
      inner.selection.source = 'auxiliary'
      return inner
    }
    // `auto`: the main provider, with the task's model when it names one.
    return plan(ctx, { model: auxModel })
  }

  const envProvider = str(settings.env('AGENT_INFERENCE_PROVIDER'))
  const cfgProvider = str(settings.get('model.provider'))
  let source: ModelSelection['source'] = request.provider ? 'request' : envProvider ? 'env' : cfgProvider ? 'config' : 'auto'
  let raw = str(request.provider) ?? envProvider ?? cfgProvider ?? 'auto'
  if (!str(request.provider) && str(request.baseUrl)) raw = 'custom'
  const split = splitProvider(raw)
  const provider = split.provider.toLowerCase() === 'auto' ? autoDetect(ctx) : requireProvider(ctx, split.provider)
  if (split.provider.toLowerCase() === 'auto') source = 'auto'

  // A configured model and endpoint belong to the provider they were configured with; another
  // provider takes its own defaults. AGENT_MODEL goes with the selected provider, model.* with model.provider.
  const belongs = (selector: string | undefined): boolean => {
    if (!selector || selector.toLowerCase() === 'auto') return true
    const other = splitProvider(selector)
    return canonicalName(ctx, other.provider) === provider && (other.customName ?? '').toLowerCase() === (split.customName ?? '').toLowerCase()
  }
  const cfgApplies = belongs(cfgProvider)
  const model =
    str(request.model) ??
    (belongs(envProvider ?? cfgProvider) ? str(settings.env('AGENT_MODEL')) : undefined) ??
    (cfgApplies ? (str(settings.get('model.default')) ?? str(settings.get('model'))) : undefined)

  if (provider === 'custom' && split.customName) return customPlan(ctx, split.customName, model, source)
  const useModelConfig = (cfgProvider ? cfgApplies : provider === 'custom') && !str(request.baseUrl)
  const baseUrl = str(request.baseUrl) ?? (useModelConfig ? str(settings.get('model.base_url')) : undefined)
  const apiKey = str(request.apiKey) ?? (useModelConfig ? str(settings.get('model.api_key')) : undefined)
  const contextLength = useModelConfig ? settings.get<number>('model.context_length') : undefined
  const inputModalities = useModelConfig ? parseInputModalities(settings.get('model.input_modalities')) : undefined
  return {
    selection: { provider, model: model ?? '', ...(baseUrl ? { baseUrl } : {}), source },
    model,
    apiKey,
    extra: { ...(typeof contextLength === 'number' ? { contextLength } : {}), ...(inputModalities ? { inputModalities } : {}) },
  }
}
