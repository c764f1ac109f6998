// A ModelClient for every OpenAI-compatible endpoint (chat completions). Streamed completions and
// model listing go through the official `openai` client; a non-streamed completion, the call on
// every API-server and gateway run, is one JSON POST over the shared transport (node-fetch.ts), its
// failures read the way the openai client reads them. Retries, timeout and error lines come from
// the SDK's provider kit; the openai client's own retries are off so the policy is the same for
// every provider.

import { callProvider, MAX_ANSWER_BYTES, openAIClientOptions, parseRetryAfter, ProviderHttpError, ProviderProtocolError, type InputModality, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type RetryPolicy } from 'agent/sdk'
import type OpenAI from 'openai'
import type { ReasoningStyle } from './catalog.ts'
import type { JsonAnswer, NodeFetch } from './node-fetch.ts'
import { fromCompletion, StreamAccumulator, toWireMessages, toWireTools, toWireToolsBytes } from './wire.ts'

const END_OF_TOOLS = Buffer.from(']}')

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
  /** What the model reads besides text, as configured (see sdk/input-modalities.ts). */
  inputModalities?: readonly InputModality[]
  /** Extra request body fields (custom_providers `extra_body`). */
  extraBody?: Record<string, unknown>
  authHint?: string
  /**
   * The cap on one answer, decoded (default MAX_ANSWER_BYTES; AGENT_API_MAX_ANSWER_MB): a buffered
   * body, one streamed event, and a stream's text, reasoning and tool calls together.
   */
  maxAnswerBytes?: number
}

/** `transport`: the keep-alive HTTP transport (node-fetch.ts), shared by the clients of one extension. */
export async function createCompatClient(options: CompatClientOptions, transport: NodeFetch): Promise<ModelClient> {
  return new CompatClient(transport, options)
}

/** The server's own message from an error body (`{"error": {"message"}}`, `{"message"}`, text). */
function errorText(answer: JsonAnswer): string {
  try {
    const parsed = JSON.parse(answer.text)
    const message = parsed?.error?.message ?? parsed?.message ?? (typeof parsed?.error === 'string' ? parsed.error : undefined)
    if (typeof message === 'string' && message.trim()) return message
  } catch {
    // not JSON: the text itself
  }
  return answer.text.trim() || `status ${answer.status}`
}

class CompatClient implements ModelClient {
  readonly provider: string
  readonly model: string
  readonly contextLength?: number
  readonly inputModalities?: readonly InputModality[]

  /** Headers of the direct POST: what the openai client sends that a server may look at. */
  private readonly postHeaders: Record<string, string>

  /**
   * The openai client, for streamed answers and the model list only: imported on first use, so a
   * process that serves non-streamed calls alone (the hot path, postJson) does without its ~10 MiB.
   */
  #sdk?: Promise<OpenAI>

  constructor(
    private readonly transport: NodeFetch,
    private readonly options: CompatClientOptions,
  ) {
    this.postHeaders = { accept: 'application/json', authorization: `Bearer ${options.apiKey || 'no-key'}`, ...options.headers }
    this.provider = options.provider
    this.model = options.model
    this.contextLength = options.contextLength
    this.inputModalities = options.inputModalities
  }

  private sdk(): Promise<OpenAI> {
    const { apiKey, baseUrl, timeoutMs, headers } = this.options
    this.#sdk ??= import('openai')
      .then(({ default: OpenAIClass }) => {
        const limit = this.options.maxAnswerBytes
        const fetch = limit === undefined ? this.transport.fetch : this.transport.fetchWithin(limit)
        return new OpenAIClass(openAIClientOptions({ apiKey: apiKey || 'no-key', baseUrl, timeoutMs, headers, fetch }) as ConstructorParameters<typeof OpenAIClass>[0])
      })
      // A failure is tried again next time, as a failed build is (the client itself stays cached).
      .catch((error: unknown) => {
        this.#sdk = undefined
        throw error
      })
    return this.#sdk
  }

  private call<T>(signal: AbortSignal | undefined, fn: Parameters<typeof callProvider<T>>[1], retries?: number): Promise<T> {
    return callProvider<T>(
      { provider: this.provider, baseUrl: this.options.baseUrl, timeoutMs: this.options.timeoutMs, signal, secrets: [this.options.apiKey], authHint: this.options.authHint, ...this.options.retry, ...(retries === undefined ? {} : { retries }) },
      fn,
    )
  }

  /** The request body; `withTools` false leaves `tools` out (bodyText adds them as text). */
  body(request: Omit<ModelRequest, 'model'> & { model?: string }, stream: boolean, withTools = true): Record<string, unknown> {
    const body: Record<string, unknown> = { model: request.model ?? this.model, messages: toWireMessages(request.messages), ...this.options.extraBody }
    const tools = Boolean(request.tools?.length)
    // The request's tools replace any extra_body ones (as text, appended by bodyText, when not withTools).
    if (tools && withTools) body.tools = toWireTools(request.tools)
    else if (tools && 'tools' in body) delete body.tools
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens
    if (request.temperature !== undefined) body.temperature = request.temperature
    if (request.topP !== undefined) body.top_p = request.topP
    if (request.stop?.length) body.stop = request.stop
    // Only with tools: an endpoint may refuse tool_choice on a request that offers none.
    if (request.toolChoice && tools) body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', function: { name: request.toolChoice.name } }
    if (request.responseFormat && request.responseFormat.type !== 'text') {
      const f = request.responseFormat
      body.response_format = f.type === 'json_schema' ? { type: 'json_schema', json_schema: { name: f.name, schema: f.schema, ...(f.strict === undefined ? {} : { strict: f.strict }), ...(f.description ? { description: f.description } : {}) } } : { type: 'json_object' }
    }
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

  /**
   * The non-streamed body as JSON bytes. The tools are most of it (the agent offers the same ones on
   * every call): each tool's JSON is kept per schema object (the runtime reuses them) and the list's
   * bytes per list, instead of being serialised and encoded again on every call. Bytes, not text:
   * about 9 KB a call (the default tools) that would otherwise be a string joined, flattened, prefixed
   * with the headers and encoded (about 30 KB of garbage a call, measured).
   */
  bodyBytes(request: Omit<ModelRequest, 'model'> & { model?: string }): Buffer {
    const json = JSON.stringify(this.body(request, false, false))
    if (!request.tools?.length) return Buffer.from(json)
    const head = Buffer.from(`${json.slice(0, -1)},"tools":[`)
    const tools = toWireToolsBytes(request.tools)
    return Buffer.concat([head, tools, END_OF_TOOLS], head.length + tools.length + END_OF_TOOLS.length)
  }

  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const streaming = typeof options.onDelta === 'function'
    const body = streaming ? this.body(request, true) : this.bodyBytes(request)
    return this.call(options.signal, async (attempt) => {
      if (!streaming) {
        const completion = await this.post('/chat/completions', body as Buffer, attempt.signal)
        if (!completion || typeof completion !== 'object' || !Array.isArray((completion as any).choices)) throw new ProviderProtocolError('the endpoint answered without choices (is this an OpenAI-compatible /chat/completions?)', false)
        return fromCompletion(completion)
      }
      const stream = (await (await this.sdk()).chat.completions.create(body as any, { signal: attempt.signal })) as unknown as AsyncIterable<any>
      const acc = new StreamAccumulator((delta) => {
        attempt.markDelivered()
        options.onDelta!(delta)
      }, this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES)
      // Past the cap push throws: leaving the loop aborts the stream (the openai client closes it).
      for await (const chunk of stream) acc.push(chunk)
      if (!acc.complete) throw new ProviderProtocolError(acc.chunks === 0 ? 'the stream ended without any data' : 'the stream ended before the answer was complete')
      return acc.result()
    })
  }

  /** One JSON POST; a failure status becomes the ProviderHttpError the provider kit classifies. */
  private async post(path: string, body: Buffer, signal: AbortSignal): Promise<any> {
    const answer = await this.transport.postJson(`${this.options.baseUrl}${path}`, this.postHeaders, body, signal, this.options.maxAnswerBytes)
    if (answer.status >= 400) throw new ProviderHttpError(answer.status, errorText(answer), parseRetryAfter(String(answer.headers['retry-after'] ?? '') || undefined))
    if (answer.status >= 300) throw new ProviderProtocolError(`the endpoint answered ${answer.status}${answer.headers.location ? ` (redirect to ${answer.headers.location})` : ''}: set the base URL to the final address`, false)
    try {
      return JSON.parse(answer.text)
    } catch {
      throw new ProviderProtocolError(`the endpoint answered with something other than JSON: ${answer.text.replace(/\s+/g, ' ').trim().slice(0, 120)}`, false)
    }
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return this.call(
      signal,
      async (attempt) => {
        const ids: string[] = []
        const sdk = await this.sdk()
        for await (const model of sdk.models.list({ signal: attempt.signal })) {
          if (model?.id) ids.push(String(model.id))
          if (ids.length >= 5000) break
        }
        return ids
      },
      1,
    )
  }
}
