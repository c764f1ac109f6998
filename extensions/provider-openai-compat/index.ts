// OpenAI-compatible provider family: the aggregator, custom endpoints (unnamed, and named ones
// passed in by the model resolver), and each direct API-key vendor. One registry entry per provider;
// the openai client is imported only when a client first streams or lists models, and built
// clients are reused.

import { AgentError, defineExtension, maxAnswerBytes, type InputModality, type ModelClient, type ProviderOptions, type RetryPolicy, type Settings } from 'agent/sdk'
import { COMPAT_PROVIDERS, type CompatProviderSpec } from './catalog.ts'
import type { CompatClientOptions } from './client.ts'

/** Builds (or reuses) a client for exactly these options. */
type ClientFactory = (options: CompatClientOptions) => Promise<ModelClient>

interface ClientCache {
  client: ClientFactory
  /** Forgets the clients and closes their kept-alive connections (unload). */
  close(): void
}

/** How many differently configured clients are kept (the main model, fallbacks, auxiliary tasks, /model switches). */
const CLIENTS_KEPT = 16

/**
 * A model is resolved for every run: building the openai client each time (and re-importing its
 * module) cost about a third of a millisecond a run. Clients hold no per-call state, so one per
 * configuration serves every run; any change of settings (model, key, URL, headers …) is a new key.
 */
function clientCache(): ClientCache {
  let module: Promise<typeof import('./client.ts')> | undefined
  let transport: import('./node-fetch.ts').NodeFetch | undefined
  const clients = new Map<string, Promise<ModelClient>>()
  const client: ClientFactory = (options) => {
    const key = JSON.stringify(options)
    const hit = clients.get(key)
    if (hit) {
      // Most recently used last: the oldest is the first to go.
      clients.delete(key)
      clients.set(key, hit)
      return hit
    }
    const building = (module ??= import('./client.ts')).then(async (m) => {
      transport ??= (await import('./node-fetch.ts')).createNodeFetch()
      return m.createCompatClient(options, transport)
    })
    building.catch(() => clients.delete(key))
    clients.set(key, building)
    if (clients.size > CLIENTS_KEPT) clients.delete(clients.keys().next().value!)
    return building
  }
  return {
    client,
    close() {
      clients.clear()
      transport?.close()
      transport = undefined
    },
  }
}

function firstEnv(settings: Settings, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = settings.env(name)?.trim()
    if (value) return value
  }
  return undefined
}

function keyHint(spec: CompatProviderSpec): string {
  return `run \`agent model\`, or \`agent config set ${spec.keyEnv[0]} <key>\``
}

function checkUrl(provider: string, url: string): string {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new AgentError('E_PROVIDER', `${provider}: invalid base URL "${url}" (expected http(s)://host[:port]/path)`)
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new AgentError('E_PROVIDER', `${provider}: invalid base URL "${url}" (expected http or https)`)
  return url.replace(/\/+$/, '')
}

async function create(spec: CompatProviderSpec, options: ProviderOptions, client: ClientFactory): Promise<ModelClient> {
  const { settings } = options
  const extra = options.extra ?? {}
  const rawUrl = options.baseUrl ?? (spec.baseUrlEnv ? settings.env(spec.baseUrlEnv)?.trim() : undefined) ?? spec.defaultBaseUrl
  if (!rawUrl) {
    throw new AgentError('E_PROVIDER', `${spec.name}: no endpoint configured: run \`agent model\`, or \`agent config set model.base_url http://host:port/v1\` (or set ${spec.baseUrlEnv})`)
  }
  const baseUrl = checkUrl(spec.name, rawUrl)
  const apiKey = options.apiKey ?? firstEnv(settings, spec.keyEnv)
  if (spec.requiresKey && !apiKey) throw new AgentError('E_PROVIDER', `${spec.name}: no API key: ${keyHint(spec)}`)
  const build = (model: string) =>
    client({
      // Another provider family may reuse this client for its chat-completions mode under its own name.
      provider: typeof extra.label === 'string' ? extra.label : spec.name,
      model,
      baseUrl,
      apiKey,
      timeoutMs: options.timeoutMs,
      reasoning: spec.reasoning,
      headers: { ...spec.headers, ...(extra.headers as Record<string, string> | undefined) },
      retry: extra.retry as RetryPolicy | undefined,
      contextLength: typeof extra.contextLength === 'number' ? extra.contextLength : undefined,
      inputModalities: extra.inputModalities as InputModality[] | undefined,
      extraBody: extra.extraBody as Record<string, unknown> | undefined,
      authHint: typeof extra.authHint === 'string' ? extra.authHint : spec.keyEnv.length ? `check ${spec.keyEnv[0]}: ${keyHint(spec)}` : undefined,
      // The cap on one answer (MAX_ANSWER_BYTES unless AGENT_API_MAX_ANSWER_MB says otherwise).
      maxAnswerBytes: typeof extra.maxAnswerBytes === 'number' && extra.maxAnswerBytes > 0 ? extra.maxAnswerBytes : maxAnswerBytes(settings),
    })
  const model = options.model ?? spec.defaultModel
  if (model) return build(model)
  // No model named: ask the endpoint which one it serves (local servers usually serve one).
  const probe = await build('')
  const served = await probe.listModels!()
  if (!served[0]) throw new AgentError('E_PROVIDER', `${spec.name}: ${baseUrl} lists no models; set one with \`agent config set model.default <model>\``)
  return build(served[0])
}

function configured(spec: CompatProviderSpec, settings: Settings): true | string {
  if (spec.name === 'custom') {
    const provider = settings.get<string>('model.provider')
    if (settings.env('OPENAI_BASE_URL') || (provider === 'custom' && settings.get('model.base_url'))) return true
    return 'no endpoint: set model.base_url (with model.provider: custom) or OPENAI_BASE_URL'
  }
  if (!spec.requiresKey || firstEnv(settings, spec.keyEnv)) return true
  return `no API key: set ${spec.keyEnv.join(' or ')}`
}

export default defineExtension({
  name: 'provider-openai-compat',
  version: '1.0.0',
  description: 'OpenAI-compatible providers: aggregator, custom endpoints, direct API-key vendors',
  setup(api) {
    const cache = clientCache()
    api.onDispose(() => cache.close())
    for (const spec of COMPAT_PROVIDERS) {
      api.providers.register({
        specificationVersion: 1,
        name: spec.name,
        aliases: spec.aliases,
        label: spec.label,
        envKeys: [...spec.keyEnv, ...(spec.baseUrlEnv ? [spec.baseUrlEnv] : [])],
        create: (options) => create(spec, options, cache.client),
        configured: (settings) => configured(spec, settings),
      })
    }
  },
})
