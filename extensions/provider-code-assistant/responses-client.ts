// The code assistant's responses-API mode (newest model generation) on the official openai client.
// Retries, timeout and error lines come from the SDK's provider kit. The client's fetch is the global
// one with every answer capped (limitedFetch: fetch decompresses without a bound of its own), and a
// stream's accumulated output is capped too (MAX_ANSWER_BYTES, AGENT_API_MAX_ANSWER_MB).

import { callProvider, limitedFetch, MAX_ANSWER_BYTES, openAIClientOptions, ProviderProtocolError, type InputModality, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type RetryPolicy } from 'agent/sdk'
import type OpenAI from 'openai'
import { fromResponse, ResponsesStream, toResponsesBody } from './responses-wire.ts'

export interface ResponsesClientOptions {
  provider: string
  model: string
  baseUrl: string
  token: string
  headers: Record<string, string>
  timeoutMs: number
  retry?: RetryPolicy
  authHint: string
  contextLength?: number
  /** What the model reads besides text, as configured (see sdk/input-modalities.ts). */
  inputModalities?: readonly InputModality[]
  /** The cap on one answer, decoded (default MAX_ANSWER_BYTES): a buffered body, one streamed event, what a stream accumulates. */
  maxAnswerBytes?: number
}

export async function createResponsesClient(options: ResponsesClientOptions): Promise<ModelClient> {
  const { default: OpenAIClass } = await import('openai')
  const sdk = new OpenAIClass(
    openAIClientOptions({ apiKey: options.token, baseUrl: options.baseUrl, timeoutMs: options.timeoutMs, headers: options.headers, fetch: limitedFetch(options.maxAnswerBytes ?? MAX_ANSWER_BYTES) }) as ConstructorParameters<typeof OpenAIClass>[0],
  )
  return new ResponsesClient(sdk, options)
}

class ResponsesClient implements ModelClient {
  readonly provider: string
  readonly model: string
  readonly contextLength?: number
  readonly inputModalities?: readonly InputModality[]

  constructor(
    private readonly sdk: OpenAI,
    private readonly options: ResponsesClientOptions,
  ) {
    this.provider = options.provider
    this.model = options.model
    this.contextLength = options.contextLength
    this.inputModalities = options.inputModalities
  }

  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const streaming = typeof options.onDelta === 'function'
    const body = toResponsesBody(request.model ?? this.model, request, streaming)
    const o = this.options
    return callProvider({ provider: o.provider, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs, signal: options.signal, secrets: [o.token], authHint: o.authHint, ...o.retry }, async (attempt) => {
      if (!streaming) return fromResponse(await this.sdk.responses.create(body as any, { signal: attempt.signal }))
      const stream = (await this.sdk.responses.create(body as any, { signal: attempt.signal })) as unknown as AsyncIterable<any>
      const acc = new ResponsesStream((delta) => {
        attempt.markDelivered()
        options.onDelta!(delta)
      }, o.maxAnswerBytes ?? MAX_ANSWER_BYTES)
      // Past the cap push throws: leaving the loop aborts the stream (the openai client closes it).
      for await (const event of stream) acc.push(event)
      if (!acc.complete) throw new ProviderProtocolError(acc.events === 0 ? 'the stream ended without any data' : 'the stream ended before the response completed')
      return acc.result()
    })
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    const o = this.options
    return callProvider({ provider: o.provider, baseUrl: o.baseUrl, timeoutMs: o.timeoutMs, signal, secrets: [o.token], authHint: o.authHint, ...o.retry, retries: 1 }, async (attempt) => {
      const ids: string[] = []
      for await (const model of this.sdk.models.list({ signal: attempt.signal })) if (model?.id) ids.push(String(model.id))
      return ids
    })
  }
}
