// `fallback_model` (config only): a backup primary that takes over when the primary fails with a
// provider error (after its own retries) or cannot even be built (missing key). Once it has taken
// over it stays for the life of the client, so a session does not bounce between models.

import { AgentError, errorMessage, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type Settings } from 'agent/sdk'

export interface FallbackSpec {
  provider: string
  model?: string
  base_url?: string
  api_key?: string
}

/** Reads `fallback_model` (a mapping or a list of mappings) from config.yaml only. */
export function fallbackChain(settings: Settings): FallbackSpec[] {
  const raw = settings.get<unknown>('fallback_model')
  const list = Array.isArray(raw) ? raw : raw ? [raw] : []
  return list.filter((e): e is FallbackSpec => !!e && typeof e === 'object' && typeof (e as FallbackSpec).provider === 'string' && !!(e as FallbackSpec).provider.trim())
}

/** A failure the next model in the chain may fix (not the caller's abort, not bad usage). */
function shouldFallBack(error: unknown): boolean {
  if (!AgentError.isInstance(error)) return true
  return error.code === 'E_PROVIDER' || error.code === 'E_TIMEOUT'
}

export type Build = (spec: FallbackSpec) => Promise<ModelClient>

export class FallbackClient implements ModelClient {
  private active: ModelClient | undefined
  private next = 0

  constructor(
    primary: ModelClient | undefined,
    private readonly primaryError: unknown,
    private readonly chain: FallbackSpec[],
    private readonly build: Build,
    private readonly onSwitch: (from: string, to: ModelClient, reason: string) => void,
  ) {
    this.active = primary
  }

  /** Builds the first usable client of the chain, or throws the primary's error with the chain's failures. */
  static async start(primary: () => Promise<ModelClient>, chain: FallbackSpec[], build: Build, onSwitch: FallbackClient['onSwitch']): Promise<ModelClient> {
    try {
      return new FallbackClient(await primary(), undefined, chain, build, onSwitch)
    } catch (error) {
      if (!shouldFallBack(error)) throw error
      const client = new FallbackClient(undefined, error, chain, build, onSwitch)
      await client.advance(error)
      return client
    }
  }

  get provider(): string {
    return this.active!.provider
  }
  get model(): string {
    return this.active!.model
  }
  get contextLength(): number | undefined {
    return this.active!.contextLength
  }
  get inputModalities(): ModelClient['inputModalities'] {
    return this.active!.inputModalities
  }

  /** Moves to the next buildable client of the chain; throws when the chain is exhausted. */
  private async advance(cause: unknown): Promise<void> {
    const from = this.active ? `${this.active.provider}:${this.active.model}` : 'the primary model'
    const failures: string[] = []
    while (this.next < this.chain.length) {
      const spec = this.chain[this.next++]!
      try {
        const client = await this.build(spec)
        this.active = client
        this.onSwitch(from, client, errorMessage(cause))
        return
      } catch (error) {
        failures.push(`fallback ${spec.provider}${spec.model ? `:${spec.model}` : ''}: ${errorMessage(error)}`)
      }
    }
    const first = errorMessage(this.primaryError ?? cause)
    throw new AgentError('E_PROVIDER', failures.length ? `${first}; ${failures.join('; ')}` : first, { cause })
  }

  async complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options?: ModelCallOptions): Promise<ModelResponse> {
    for (;;) {
      const client = this.active!
      try {
        // A model named per request belongs to the primary; the fallback uses its own.
        return await client.complete(client === this.active && this.next === 0 ? request : { ...request, model: undefined }, options)
      } catch (error) {
        if (!shouldFallBack(error) || this.next >= this.chain.length) throw error
        await this.advance(error)
      }
    }
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return this.active!.listModels ? this.active!.listModels(signal) : Promise.resolve([])
  }
}
