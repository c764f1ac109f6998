// The model-selection service (`services.require<ModelsService>('models')`, extension
// `model-resolver`): turns settings, environment and `/model` arguments into a ModelClient. The
// runtime asks it for the primary client and for auxiliary-task clients; surfaces use it for `/model`.

import type { ResolveModelRequest } from './hooks.ts'
import type { ModelClient } from './model.ts'

export const MODELS_SERVICE = 'models'

/** What to resolve. Every field is optional: unset ones come from config and environment. */
export interface ModelResolveRequest extends ResolveModelRequest {
  /** Provider name or alias (`custom`, `openrouter`, `glm` …); `custom:<name>` names a custom_providers entry. */
  provider?: string
  model?: string
  /** Auxiliary task (`compression`, `approval`, `title` …): reads `auxiliary.<task>.*`. */
  task?: string
  /** Direct endpoint override (OpenAI-compatible), e.g. `delegation.base_url`. */
  baseUrl?: string
  apiKey?: string
  /** false: no `fallback_model` wrapper around the primary client (default true for the primary). */
  fallback?: boolean
}

/** The provider and model a request resolves to, without building a client. No secrets. */
export interface ModelSelection {
  /** Canonical provider name (`custom` for every custom endpoint). */
  provider: string
  model: string
  /** Endpoint the client talks to, when known. */
  baseUrl?: string
  /** Name of the custom_providers entry, for `custom:<name>`. */
  customName?: string
  /** Where the provider choice came from. */
  source: 'request' | 'env' | 'config' | 'auto' | 'auxiliary'
}

/** A parsed `/model` argument. `model` undefined means: auto-detect (bare `custom`, `custom:<name>`). */
export interface ModelArg {
  provider?: string
  customName?: string
  model?: string
}

export interface ProviderStatus {
  name: string
  aliases: string[]
  label?: string
  envKeys: string[]
  /** true, or why it is not usable now (missing key …). */
  configured: true | string
  owner: string
}

export interface ModelsService {
  /** A ready client (runs the `resolveModel` hook; the resolver's own tap answers last). */
  resolve(request?: ModelResolveRequest): Promise<ModelClient>
  /** Which provider/model a request would use; throws a one-line AgentError when nothing is configured. */
  select(request?: ModelResolveRequest): ModelSelection
  /** Parses `<model>`, `<provider>:<model>`, `custom`, `custom:<model>`, `custom:<name>`, `custom:<name>:<model>`. Throws UsageError. */
  parseModelArg(text: string): ModelArg
  /**
   * Checks a `/model` argument against the provider (credentials, its model list when it has one;
   * bare `custom` asks the endpoint which model it serves) and returns the selection it would make.
   * Throws a one-line AgentError and changes nothing when it is invalid; it never writes config.
   * `current.provider` (default: the configured selection) may be `custom:<name>`.
   */
  validate(text: string, current?: { provider?: string; model?: string }): Promise<ModelSelection>
  /** Canonical name for a provider name or alias, or undefined. */
  canonical(name: string): string | undefined
  /** Every registered provider with its credential status. */
  providers(): ProviderStatus[]
  /** Provider call timeout in milliseconds (`AGENT_API_TIMEOUT` seconds, default 900). */
  timeoutMs(): number
}
