// A ModelClient for the native vendor's messages API over fetch: JSON or streamed answers, the
// kit's retry/timeout/error policy, and one refresh-and-retry when a local OAuth token is refused.

import { callProvider, joinUrl, limitResponse, MAX_ANSWER_BYTES, parseRetryAfter, ProviderHttpError, ProviderProtocolError, type InputModality, type ModelCallOptions, type ModelClient, type ModelRequest, type ModelResponse, type RetryPolicy } from 'agent/sdk'
import type { Auth, Credentials } from './credentials.ts'
import { readSse } from './sse.ts'
import { fromMessage, MessageStream, toWireBody } from './wire.ts'

export const API_VERSION = '2023-06-01'

export interface MessagesClientOptions {
  model: string
  baseUrl: string
  timeoutMs: number
  credentials: Credentials
  retry?: RetryPolicy
  contextLength?: number
  /** What the model reads besides text, as configured (see sdk/input-modalities.ts). */
  inputModalities?: readonly InputModality[]
  /**
   * The cap on one answer, decoded (default MAX_ANSWER_BYTES; AGENT_API_MAX_ANSWER_MB): a JSON or
   * error body, one streamed event, and what a stream accumulates.
   */
  maxAnswerBytes?: number
}

async function httpError(res: Response): Promise<ProviderHttpError> {
  const raw = await res.text().catch(() => '')
  let message = raw.slice(0, 300) || res.statusText
  try {
    const body = JSON.parse(raw)
    message = body?.error?.message ?? body?.message ?? message
  } catch {
    // Not JSON: the raw text (trimmed) is the message.
  }
  return new ProviderHttpError(res.status, String(message), parseRetryAfter(res.headers.get('retry-after')))
}

export class MessagesClient implements ModelClient {
  readonly provider = 'anthropic'
  readonly model: string
  readonly contextLength?: number
  readonly inputModalities?: readonly InputModality[]

  constructor(private readonly options: MessagesClientOptions) {
    this.model = options.model
    this.contextLength = options.contextLength ?? 200_000
    this.inputModalities = options.inputModalities
  }

  private get limit(): number {
    return this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES
  }

  /**
   * One HTTP exchange with the current credentials; a refused local OAuth token is refreshed once.
   * The answer's body is capped (limitResponse): fetch decompresses without a bound of its own.
   */
  private async fetch(path: string, init: RequestInit, signal: AbortSignal, auths: Auth[]): Promise<Response> {
    let auth = await this.options.credentials.get()
    auths.push(auth)
    const send = async (a: Auth) =>
      limitResponse(
        await fetch(joinUrl(this.options.baseUrl, path), {
          ...init,
          signal,
          headers: { 'anthropic-version': API_VERSION, 'content-type': 'application/json', accept: 'application/json', ...a.headers },
        }),
        this.limit,
      )
    let res = await send(auth)
    if (res.status === 401 && this.options.credentials.canRefresh(auth)) {
      await res.body?.cancel()
      auth = await this.options.credentials.get(true)
      auths.push(auth)
      res = await send(auth)
    }
    if (!res.ok) throw await httpError(res)
    return res
  }

  private call<T>(signal: AbortSignal | undefined, fn: (attempt: Parameters<Parameters<typeof callProvider<T>>[1]>[0], auths: Auth[]) => Promise<T>, retries?: number): Promise<T> {
    const auths: Auth[] = []
    return callProvider<T>(
      {
        provider: this.provider,
        baseUrl: this.options.baseUrl,
        timeoutMs: this.options.timeoutMs,
        signal,
        get secrets() {
          return auths.map((a) => a.secret)
        },
        authHint: 'run `agent model`, or `agent config set ANTHROPIC_API_KEY <key>`',
        ...this.options.retry,
        ...(retries === undefined ? {} : { retries }),
      },
      (attempt) => fn(attempt, auths),
    )
  }

  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options: ModelCallOptions = {}): Promise<ModelResponse> {
    const streaming = typeof options.onDelta === 'function'
    const body = JSON.stringify(toWireBody(request.model ?? this.model, request, streaming))
    return this.call(options.signal, async (attempt, auths) => {
      const res = await this.fetch('/v1/messages', { method: 'POST', body }, attempt.signal, auths)
      if (!streaming) return fromMessage(await res.json())
      if (!res.body) throw new ProviderProtocolError('the stream had no body')
      const stream = new MessageStream((delta) => {
        attempt.markDelivered()
        options.onDelta!(delta)
      }, this.limit)
      // Past the cap push throws: leaving the loop cancels the body (readSse), closing the stream.
      for await (const event of readSse(res.body, attempt.signal)) stream.push(event)
      if (!stream.done) throw new ProviderProtocolError(stream.events === 0 ? 'the stream ended without any data' : 'the stream ended before the answer was complete')
      return stream.result()
    })
  }

  listModels(signal?: AbortSignal): Promise<string[]> {
    return this.call(
      signal,
      async (attempt, auths) => {
        const res = await this.fetch('/v1/models?limit=1000', { method: 'GET' }, attempt.signal, auths)
        const body: any = await res.json()
        return (Array.isArray(body?.data) ? body.data : []).map((m: any) => String(m?.id ?? '')).filter(Boolean)
      },
      1,
    )
  }
}
