// The `models` service: settings, environment and `/model` arguments → a ModelClient from the
// provider registry, with `fallback_model` and auxiliary-task overrides. It answers the
// `resolveModel` hook last (stage 100), so other extensions can route models before it.

import { AgentError, defineExtension, errorMessage, MODELS_SERVICE, type ModelClient, type ModelResolveRequest, type ModelsService, type ProviderStatus, type RetryPolicy } from 'agent/sdk'
import { FallbackClient, fallbackChain } from './fallback.ts'
import { parseModelArg } from './model-arg.ts'
import { RecentBuilds } from './recent.ts'
import { canonicalName, findCustom, plan, timeoutMs, type SelectContext } from './select.ts'
import { MODEL_SETTINGS } from './settings-schema.ts'
import { validateArg } from './validate.ts'

interface ResolverConfig {
  retries: number
  retry_base_delay_ms: number
  retry_max_delay_ms: number
}

export default defineExtension<ResolverConfig>({
  name: 'model-resolver',
  version: '1.0.0',
  description: 'Provider and model selection: AGENT_INFERENCE_PROVIDER, model.*, /model, fallback_model, auxiliary.<task>',
  settings: MODEL_SETTINGS,
  config: {
    type: 'object',
    properties: {
      retries: { type: 'integer', minimum: 0, maximum: 10, default: 3 },
      retry_base_delay_ms: { type: 'integer', minimum: 0, maximum: 60000, default: 1000 },
      retry_max_delay_ms: { type: 'integer', minimum: 0, maximum: 120000, default: 20000 },
    },
    additionalProperties: false,
  },
  setup(api) {
    const settings = api.settings
    const ctx: SelectContext = { settings, getProvider: (name) => api.providers.get(name), listProviders: () => api.providers.list() }
    const retry: RetryPolicy = { retries: api.config.retries, baseDelayMs: api.config.retry_base_delay_ms, maxDelayMs: api.config.retry_max_delay_ms }

    // A fallback client follows its own chain through a run: only plain clients are shared.
    const recent = new RecentBuilds<ModelClient>()
    api.onDispose(() => recent.clear())
    // A provider loaded, reloaded or removed: nothing built before is reused.
    api.providers.subscribe(() => recent.clear())
    function build(request: ModelResolveRequest): Promise<ModelClient> {
      const chain = !request.task && request.fallback !== false ? fallbackChain(settings) : []
      const revision = settings.revision?.()
      if (chain.length > 0 || revision === undefined) return buildNew(request, chain)
      return recent.get(`${revision} ${JSON.stringify(request)}`, () => buildNew(request, chain))
    }

    async function buildNew(request: ModelResolveRequest, chain: ReturnType<typeof fallbackChain>): Promise<ModelClient> {
      const chosen = plan(ctx, request)
      const provider = api.providers.get(chosen.selection.provider)
      if (!provider) throw new AgentError('E_PROVIDER', `provider "${chosen.selection.provider}" is not loaded`)
      const create = async () => {
        try {
          return await provider.create({
            model: chosen.model,
            baseUrl: chosen.selection.baseUrl,
            apiKey: chosen.apiKey,
            timeoutMs: timeoutMs(settings),
            settings,
            extra: { ...chosen.extra, retry, ...(request.task ? { task: request.task } : {}) },
          })
        } catch (error) {
          // A provider's own bug still reaches the user as one line.
          throw AgentError.isInstance(error) ? error : new AgentError('E_PROVIDER', `${provider.name}: ${errorMessage(error)}`, { cause: error })
        }
      }
      if (chain.length === 0) return create()
      return FallbackClient.start(
        create,
        chain,
        (spec) => build({ provider: spec.provider, model: spec.model, baseUrl: spec.base_url, apiKey: spec.api_key, fallback: false }),
        (from, to, reason) => api.log.warn(`${from} failed (${reason}); falling back to ${to.provider}:${to.model}`),
      )
    }

    // The hook wraps tap errors with hook and extension names; the service keeps the provider's own line.
    const failures = new WeakMap<object, unknown>()
    api.hooks.resolveModel.tapPromise({ stage: 100 }, async (request) => {
      try {
        return await build(request)
      } catch (error) {
        failures.set(request, error)
        return undefined
      }
    })

    const service: ModelsService = {
      async resolve(request = {}) {
        const own = { ...request }
        const client = await api.hooks.resolveModel.promise(own)
        if (client) return client
        if (failures.has(own)) throw failures.get(own)
        return build(own)
      },
      select: (request = {}) => plan(ctx, request).selection,
      parseModelArg: (text) => parseModelArg(text, { canonical: (name) => canonicalName(ctx, name), hasCustom: (name) => !!findCustom(settings, name) }),
      validate: (text, current) => validateArg(ctx, service, build, text, current),
      canonical: (name) => canonicalName(ctx, name),
      providers(): ProviderStatus[] {
        return api.providers.entries().map(({ owner, value }) => {
          let configured: true | string
          try {
            configured = value.configured?.(settings) ?? true
          } catch (error) {
            configured = errorMessage(error)
          }
          return { name: value.name, aliases: value.aliases ?? [], label: value.label, envKeys: value.envKeys ?? [], configured, owner }
        })
      },
      timeoutMs: () => timeoutMs(settings),
    }
    api.services.provide(MODELS_SERVICE, service)
  },
})
