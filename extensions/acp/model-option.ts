// The model selector an editor shows (session config option `model`, category `model`): the
// session's current model, the current provider's model list and the custom_providers entries.
// Values are `/model` arguments (`<provider>:<model>`, `custom:<name>:<model>`); choosing one is
// validated like `/model` and applies to that session only. The provider's list is fetched once
// per process in the background and pushed as a config_option_update when it arrives.

import { errorMessage, linkAbortWithTimeout, MODELS_SERVICE, type Logger, type ModelsService, type ModelSelection, type Services } from 'agent/sdk'
import type { AgentContext, SessionConfigOption, SessionConfigSelectOption } from '@agentclientprotocol/sdk/unstable'
import { badParams } from './errors.ts'
import type { LiveSession } from './live-sessions.ts'

export const MODEL_OPTION_ID = 'model'
const LIST_TIMEOUT_MS = 5_000

const providerArg = (s: Pick<ModelSelection, 'provider' | 'customName'>) => (s.customName ? `custom:${s.customName}` : s.provider)

interface CustomEntry {
  name: string
  model?: string
}

function customEntries(settings: { get<T>(path: string): T | undefined } | undefined): CustomEntry[] {
  const raw = settings?.get<unknown>('custom_providers')
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.entries(raw).map(([name, v]) => ({ name, ...(v as object) })) : []
  return list
    .filter((e): e is { name: string; model?: unknown } => Boolean(e) && typeof (e as { name?: unknown }).name === 'string')
    .map((e) => ({ name: e.name, ...(typeof e.model === 'string' ? { model: e.model } : {}) }))
}

export class ModelOptions {
  /** Model ids of a provider (keyed by provider argument), once listed. */
  private readonly listed = new Map<string, string[]>()
  private readonly listing = new Map<string, Promise<string[]>>()

  constructor(
    private readonly services: Services,
    private readonly defaults: { provider?: string; model?: string },
    private readonly log: Logger,
    private readonly settings?: { get<T>(path: string): T | undefined },
  ) {}

  /** What a run of this session asks the runtime for. */
  selection(session: LiveSession): { provider?: string; model?: string } {
    const provider = session.provider ?? this.defaults.provider
    const model = session.model ?? this.defaults.model
    return { ...(provider ? { provider } : {}), ...(model ? { model } : {}) }
  }

  private current(session: LiveSession): ModelSelection | undefined {
    const models = this.services.get<ModelsService>(MODELS_SERVICE)
    try {
      return models?.select(this.selection(session))
    } catch {
      // Nothing configured: no selector (a prompt then says how to configure a model).
      return undefined
    }
  }

  /** The session's config options. With `client`, a model list still to come is pushed as an update. */
  async options(session: LiveSession, client?: AgentContext): Promise<SessionConfigOption[]> {
    const current = this.current(session)
    if (!current) return []
    const key = providerArg(current)
    if (client && !this.listed.has(key)) {
      void this.list(current).then((ids) => {
        if (ids.length === 0) return
        const configOptions = this.build(session)
        if (configOptions.length) void client.notify('session/update', { sessionId: session.id, update: { sessionUpdate: 'config_option_update', configOptions } }).catch(() => undefined)
      }).catch(() => undefined) // no list: the options already sent stay
    }
    return this.build(session)
  }

  private build(session: LiveSession): SessionConfigOption[] {
    const current = this.current(session)
    if (!current) return []
    const key = providerArg(current)
    const currentValue = `${key}:${current.model}`
    const seen = new Set<string>()
    const options: SessionConfigSelectOption[] = []
    const add = (value: string, name: string, description?: string) => {
      if (seen.has(value)) return
      seen.add(value)
      options.push({ value, name, ...(description ? { description } : {}) })
    }
    add(currentValue, current.model, key)
    for (const id of this.listed.get(key) ?? []) add(`${key}:${id}`, id, key)
    for (const entry of customEntries(this.settings)) if (entry.model) add(`custom:${entry.name}:${entry.model}`, entry.model, `custom:${entry.name}`)
    return [{ id: MODEL_OPTION_ID, name: 'Model', category: 'model', type: 'select', currentValue, options }]
  }

  /** The provider's model ids (once per process; a failure lists nothing and is logged). */
  private list(current: ModelSelection): Promise<string[]> {
    const key = providerArg(current)
    const known = this.listing.get(key)
    if (known) return known
    const models = this.services.get<ModelsService>(MODELS_SERVICE)
    const work = (async () => {
      const link = linkAbortWithTimeout(LIST_TIMEOUT_MS)
      try {
        const client = await models!.resolve({ provider: key, model: current.model, fallback: false })
        const ids = client.listModels ? await client.listModels(link.signal) : []
        this.listed.set(key, ids.slice(0, 200))
        return ids
      } catch (error) {
        this.log.info(`the model list of ${key} is not available: ${errorMessage(error)}`)
        this.listed.set(key, [])
        return []
      } finally {
        link.dispose()
      }
    })()
    this.listing.set(key, work)
    return work
  }

  /** Context windows (tokens) by `<provider>:<model>`, as the clients report them. */
  private readonly windows = new Map<string, number | undefined>()

  /** The session model's context window: the client's, else `model.context_length`, else 128,000 (as the runtime assumes). */
  async contextWindow(session: LiveSession): Promise<number> {
    const current = this.current(session)
    const fallback = this.settings?.get<number>('model.context_length') ?? 128_000
    if (!current) return fallback
    const key = `${providerArg(current)}:${current.model}`
    if (!this.windows.has(key)) {
      try {
        const client = await this.services.get<ModelsService>(MODELS_SERVICE)!.resolve({ provider: providerArg(current), model: current.model, fallback: false })
        this.windows.set(key, client.contextLength)
      } catch {
        this.windows.set(key, undefined)
      }
    }
    return this.windows.get(key) ?? fallback
  }

  /** session/load and resume: the model stored with the session, when it can still be selected. */
  restore(session: LiveSession, stored: { provider?: string; model?: string }): void {
    if (!stored.provider || !stored.model) return
    try {
      this.services.get<ModelsService>(MODELS_SERVICE)?.select({ provider: stored.provider, model: stored.model })
    } catch (error) {
      this.log.info(`the stored model ${stored.provider}:${stored.model} of session ${session.id} is not available: ${errorMessage(error)}`)
      return
    }
    session.provider = stored.provider
    session.model = stored.model
  }

  /** session/set_config_option: validates like `/model` and switches this session's model. */
  async set(session: LiveSession, configId: string, value: unknown): Promise<SessionConfigOption[]> {
    if (configId !== MODEL_OPTION_ID) throw badParams(`unknown config option "${configId}" (this agent has: ${MODEL_OPTION_ID})`)
    if (typeof value !== 'string' || !value.trim()) throw badParams('the model option takes a model name, e.g. "custom:my-model"')
    const models = this.services.get<ModelsService>(MODELS_SERVICE)
    if (!models) throw badParams('models cannot be switched: the model-resolver extension is not loaded')
    const selection = await models.validate(value.trim(), this.selection(session))
    session.provider = providerArg(selection)
    session.model = selection.model
    return this.build(session)
  }
}
