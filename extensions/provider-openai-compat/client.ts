// A ModelClient over the official `openai` client (chat completions), for every OpenAI-compatible
// endpoint. Retries, timeout and error lines come from the SDK's provider kit; the openai client's
// own retries are off so the policy is the same for every provider.

import { callProvider, openAIClientOptions, ProviderProtocolError, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type RetryPolicy } from 'agent/sdk'
import type OpenAI from 'openai'
import type { ReasoningStyle } from './catalog.ts'
import { fromCompletion, StreamAccumulator, toWireMessages, toWireTools } from './wire.ts'

export interface CompatClientOptions {
  provider: string
  model: string
  baseUrl: string
  apiKey?: string
  timeoutMs: number
  reasoning: ReasoningStyle
  headers?: Record<string, string>
  retry?: RetryPolicy
  contextLength?: number
  /** Extra request body fields (custom_providers `extra_body`). */
  extraBody?: Record<string, unknown>
  authHint?: string
}

/** `fetchImpl`: the transport (node-fetch.ts); the global fetch when omitted. */
export async function createCompatClient(options: CompatClientOptions, fetchImpl?: typeof fetch): Promise<ModelClient> {
  const { default: OpenAIClass } = await import('openai')
  const sdk = new OpenAIClass(
    openAIClientOptions({ apiKey: options.apiKey || 'no-key', baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, headers: options.headers, fetch: fetchImpl }) as ConstructorParameters<typeof OpenAIClass>[0],
  )
  return new CompatClient(sdk, options)
}

class CompatClient implements ModelClient {
  readonly provider: string
  readonly model: string
  readonly contextLength?: number

  constructor(
    private readonly sdk: OpenAI,
    private readonly options: CompatClientOptions,
  ) {
    this.provider = options.provider
    this.model = options.model
    this.contextLength = options.contextLength
  }

  private call<T>(signal: AbortSignal | undefined, fn: Parameters<typeof callProvider<T>>[1], retries?: number): Promise<T> {
    return callProvider<T>(
      { provider: this.provider, baseUrl: this.options.baseUrl, timeoutMs: this.options.timeoutMs, signal, secrets: [this.options.apiKey], authHint: this.options.authHint, ...this.options.retry, ...(retries === undefined ? {} : { retries }) },
      fn,
    )
  }

  body(request: Omit<ModelRequest, 'model'> & { model?: string }, stream: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = { model: request.model ?? this.model, messages: toWireMessages(request.messages), ...this.options.extraBody }
    const tools = toWireTools(request.tools)
    if (tools) body.tools = tools
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
    if (request.temperature !== undefined) body.temperature = request.temperature
    if (request.reasoningEffort) {
      if (this.options.reasoning === 'openrouter') body.reasoning = request.reasoningEffort === 'none' ? { enabled: false } : { effort: request.reasoningEffort }
      else if (this.options.reasoning === 'openai') body.reasoning_effort = request.reasoningEffort
      else if (this.options.reasoning === 'thinking') body.thinking = { type: request.reasoningEffort === 'none' ? 'disabled' : 'enabled' }
    }
    if (stream) {
      body.stream = true
      body.stream_options = { include_usage: true }
    }
    return body
  }

  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const streaming = typeof options.onDelta === 'function'
    const body = this.body(request, streaming)
    return this.call(options.signal, async (attempt) => {
      if (!streaming) {
        const completion = await this.sdk.chat.completions.create(body as any, { signal: attempt.signal })
        if (!completion || typeof completion !== 'object' || !Array.isArray((completion as any).choices)) throw new ProviderProtocolError('the endpoint answered without choices (is this an OpenAI-compatible /chat/completions?)', false)
        return fromCompletion(completion)
      }
      const stream = (await this.sdk.chat.completions.create(body as any, { signal: attempt.signal })) as unknown as AsyncIterable<any>
      const acc = new StreamAccumulator((delta) => {
        attempt.markDelivered()
        options.onDelta!(delta)
      })
      for await (const chunk of stream) acc.push(chunk)
      if (!acc.complete) throw new ProviderProtocolError(acc.chunks === 0 ? 'the stream ended without any data' : 'the stream ended before the answer was complete')
      return acc.result()
    })
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return this.call(
      signal,
      async (attempt) => {
        const ids: string[] = []
        for await (const model of this.sdk.models.list({ signal: attempt.signal })) {
          if (model?.id) ids.push(String(model.id))
          if (ids.length >= 5000) break
        }
        return ids
      },
      1,
    )
  }
}
