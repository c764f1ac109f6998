// POST /v1/responses (stateful), GET and DELETE /v1/responses/{id}. A chain is named by
// `previous_response_id` or by a `conversation` name (an unknown name starts one; both at once is
// 400); it continues the stored transcript, inherits `instructions`, and is one agent session.
// `store` (default true) keeps the response in state.db for retrieval and chaining.

import { errorMessage, HttpError, readJson, sendJson, type ChatMessage, type HttpContext, type RunResult } from 'agent/sdk'
import { agentToolNames, chatHead, planSession, rememberHead, runRequest, type HandlerDeps } from './chat-completions.ts'
import { inputItems, itemResolver } from './items.ts'
import { BUSY } from './background.ts'
import { badRequest, flag, parseResponsesInput } from './messages.ts'
import { JSON_BOUNDS } from './options.ts'
import { checkStructuredAnswer, parseRequestOptions, schemaCheck, type RequestOptions } from './request-options.ts'
import { OutputBuilder, responsesUsage, type OutputItem } from './responses-output.ts'
import { newId } from './session-key.ts'
import { SseStream } from './sse.ts'
import type { StoredResponse } from './store.ts'

function optionalString(body: Record<string, unknown>, key: string): string | undefined {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string') throw badRequest(`"${key}" must be a string`, key, 'invalid_type')
  return value
}

/**
 * `conversation` is a name; the object form `{id}` of the official client is accepted too. The name
 * is the chain's key, stored as sent (the rest of a stored response is redacted), so one that holds
 * a secret (`redact` changes it) is refused: redacted, two names could become one chain.
 */
function conversationName(value: unknown, redact: (text: string) => string): string | undefined {
  if (value === undefined || value === null) return undefined
  const name = typeof value === 'string' ? value : (value as { id?: unknown }).id
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) throw badRequest('"conversation" must be a non-empty name (at most 256 characters)', 'conversation', 'invalid_conversation')
  if (redact(name) !== name) throw badRequest('"conversation" must not hold a secret (the name is stored as it is sent); choose another name', 'conversation', 'invalid_conversation')
  return name
}

function notFound(id: string, param: string, what: string): HttpError {
  return new HttpError(404, `${what} not found: ${id}`, { param, code: 'response_not_found' })
}

/** The request's options as a Response echoes them. */
function echoed(options: RequestOptions, body: Record<string, unknown>): Record<string, unknown> {
  const sampling = options.sampling ?? {}
  const format = sampling.responseFormat
  return {
    metadata: options.metadata ?? {},
    temperature: sampling.temperature ?? null,
    top_p: sampling.topP ?? null,
    max_output_tokens: sampling.maxTokens ?? null,
    tool_choice: options.toolChoice === undefined ? 'auto' : typeof options.toolChoice === 'string' ? options.toolChoice : { type: 'function', name: options.toolChoice.name },
    tools: (options.clientTools ?? []).map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: null })),
    parallel_tool_calls: body.parallel_tool_calls !== false,
    background: flag(body.background, false),
    text: { format: format?.type === 'json_schema' ? { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? null, ...(format.description ? { description: format.description } : {}) } : format ?? { type: 'text' } },
  }
}

/**
 * The session head a request continues. A chain continues its previous response; a response that was
 * itself created without a chain (the first of one, or a client resending its whole history, as
 * the AI SDK does) is recorded under the key of its conversation instead, which both kinds of
 * follow-up can find.
 */
async function headOf(deps: HandlerDeps, previous: StoredResponse | undefined, keyed: boolean, history: readonly ChatMessage[]): Promise<string | undefined> {
  if (!previous) return keyed && history.length ? chatHead(history) : undefined
  try {
    return (await deps.store().peekHead(previous.id)) === undefined ? chatHead(previous.transcript) : previous.id
  } catch {
    return previous.id
  }
}

/**
 * One request at a time runs a named conversation, on any instance: the one that comes second
 * would continue the same latest response, and whichever stored last would silently drop the
 * other's turn. Released once its response is stored, before the answer goes out (so the client's
 * next turn finds it free), or when the request ends otherwise; a background response is in the
 * store as in progress by then, and that refuses followers on its own.
 */
class ConversationHold {
  #release: (() => Promise<void>) | undefined

  async take(deps: HandlerDeps, name: string): Promise<void> {
    this.#release = await deps.store().holdConversation(name)
    if (!this.#release) {
      throw new HttpError(409, `Conversation "${name}" has a request running; retry when it is answered`, { param: 'conversation', code: 'conversation_in_progress', headers: { 'Retry-After': '1' } })
    }
  }

  async release(deps: HandlerDeps): Promise<void> {
    const release = this.#release
    this.#release = undefined
    await release?.().catch((error: unknown) => deps.warn(`could not release a conversation: ${errorMessage(error)}`))
  }
}

/** A run's exit as a Response status: max_iterations is the budget running out (`max_output_tokens`, the API's word for it); an interrupted run is cancelled. */
function statusOf(result: RunResult): { status: string; incomplete_details: { reason: string } | null } {
  if (result.exitReason === 'max_iterations') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
  if (result.exitReason === 'interrupted') return { status: 'cancelled', incomplete_details: null }
  return { status: 'completed', incomplete_details: null }
}

export function createResponse(deps: HandlerDeps) {
  const respond = respondTo(deps)
  return async (ctx: HttpContext): Promise<void> => {
    const hold = new ConversationHold()
    try {
      await respond(ctx, hold)
    } finally {
      await hold.release(deps)
    }
  }
}

function respondTo(deps: HandlerDeps) {
  return async (ctx: HttpContext, hold: ConversationHold): Promise<void> => {
    const options = deps.options()
    const body = await readJson(ctx, options.maxRequestBytes, JSON_BOUNDS)
    const turn = parseResponsesInput(body.input, await itemResolver(deps.store(), body.input))
    const requestOptions = parseRequestOptions(body, 'responses', () => agentToolNames(deps))
    const instructionsIn = optionalString(body, 'instructions')
    const previousId = optionalString(body, 'previous_response_id')
    const conversation = conversationName(body.conversation, (text) => deps.runs().redact(text))
    if (conversation !== undefined && previousId !== undefined) {
      throw badRequest('Use either "conversation" or "previous_response_id", not both', 'conversation', 'conflicting_parameters')
    }
    const store = flag(body.store, true)
    const stream = flag(body.stream, false)
    const background = flag(body.background, false)
    if (background && !store) throw badRequest('"background": true needs "store": true (the outcome is polled from the store)', 'background', 'invalid_parameter')
    if (background && stream) throw badRequest('"background" with "stream" is not supported; poll GET /v1/responses/{id}', 'stream', 'unsupported_parameter')
    const model = typeof body.model === 'string' && body.model.trim() ? body.model : options.modelName
    // A json_schema that cannot be used is a 400 before any model call (off the event loop).
    const checking = schemaCheck(requestOptions)
    if (checking) await checking

    let previous: StoredResponse | undefined
    if (previousId !== undefined) {
      previous = await deps.store().get(previousId)
      if (!previous) throw notFound(previousId, 'previous_response_id', 'Previous response')
      if (BUSY.has(previous.response.status as string)) throw badRequest(`Response ${previousId} is still ${previous.response.status}`, 'previous_response_id', 'response_in_progress')
    } else if (conversation !== undefined) {
      await hold.take(deps, conversation)
      const head = await deps.store().conversationHead(conversation)
      if (head === 'lost') throw new HttpError(404, `Conversation "${conversation}" lost its latest response (deleted or evicted from the store); start a new conversation`, { param: 'conversation', code: 'conversation_not_found' })
      previous = head ? await deps.store().get(head) : undefined
      if (previous && BUSY.has(previous.response.status as string)) throw badRequest(`Conversation "${conversation}" has a response still ${previous.response.status}`, 'conversation', 'response_in_progress')
    }
    const instructions = [instructionsIn ?? previous?.instructions, turn.systemPrompt].filter(Boolean).join('\n') || undefined
    const history = previous ? [...previous.transcript, ...turn.history] : turn.history
    // Client tool results continue the run that asked for them; they follow the history.
    const extra = turn.results.length ? [...turn.history, ...turn.results] : turn.history
    const keyed = previous === undefined && conversation === undefined

    const run = deps.runs().begin(ctx, background)
    let detached = false
    try {
      const id = newId('resp_')
      const echo = echoed(requestOptions, body)
      const createdAt = Math.floor(Date.now() / 1000)
      const envelope = (status: string, output: OutputItem[], extra: Record<string, unknown> = {}) => ({
        id,
        object: 'response',
        created_at: createdAt,
        status,
        model,
        output,
        instructions: instructions ?? null,
        previous_response_id: previous?.id ?? null,
        conversation: conversation === undefined ? null : { id: conversation },
        store,
        error: null,
        incomplete_details: null,
        ...echo,
        truncation: 'disabled',
        // usage: only once there is some (the schema has it optional, never null).
        ...extra,
      })
      const head = await headOf(deps, previous, keyed, turn.history)
      const plan = await planSession(deps, previous || !head ? { head, context: previous?.transcript ?? [], extra, persist: store } : { head, context: turn.history, extra: turn.results, persist: store })
      const { continuable, ...session } = plan
      const request = runRequest(turn, requestOptions, { systemPrompt: instructions, ...session, persist: store, source: { platform: 'api_server' } })

      // What a finished run leaves: the response object, stored (when asked) with the transcript it continues.
      const conclude = async (result: RunResult, builder: OutputBuilder): Promise<Record<string, unknown>> => {
        const pending = result.pendingToolCalls ?? []
        const { status, incomplete_details } = statusOf(result)
        if (result.exitReason === 'completed') await checkStructuredAnswer(requestOptions.sampling?.responseFormat, result.answer)
        const output = builder.finish(result.answer, status === 'completed', pending)
        const response = envelope(status, output, { usage: responsesUsage(result.usage), incomplete_details })
        if (store) {
          const answer: ChatMessage[] = result.answer || pending.length ? [{ role: 'assistant', content: result.answer || null, ...(pending.length ? { toolCalls: pending } : {}) }] : []
          const transcript = [...history, ...turn.results, ...(turn.inputMessage ? [turn.inputMessage] : []), ...answer]
          await deps.store().put({ id, response, transcript, instructions, sessionId: result.sessionId, conversation, input: inputItems(id, body.input) }, createdAt)
          await hold.release(deps)
          // The session's transcript now ends at this response: chaining from it continues the session.
          if (continuable && status === 'completed' && answer.length) rememberHead(deps, () => (keyed ? chatHead(transcript) : id), result)
        }
        return response
      }

      if (background) {
        const input = inputItems(id, body.input)
        const record = (response: Record<string, unknown>) => ({ id, response, transcript: history, instructions, conversation, input })
        await deps.store().put(record(envelope('in_progress', [])), createdAt)
        detached = true
        deps.background().start(id, run, async () => {
          const builder = new OutputBuilder(id)
          request.onEvent = (event) => builder.on(event)
          try {
            await conclude(await deps.runs().execute(run, request), builder)
          } catch (error) {
            const message = HttpError.isInstance(error) ? error.message : 'The server failed to complete the response'
            deps.warn(`background response ${id} failed: ${deps.runs().redact(message)}`)
            await deps.store().put(record(envelope('failed', builder.finish('', false), { error: { code: 'server_error', message } })), createdAt)
          }
        })
        ctx.body = envelope('queued', [])
        if (plan.sessionId) ctx.set('X-Agent-Session-Id', plan.sessionId)
        return
      }

      if (!stream) {
        const builder = new OutputBuilder(id)
        request.onEvent = (event) => builder.on(event)
        const result = await deps.runs().execute(run, request)
        const answer = await conclude(result, builder)
        ctx.set('X-Agent-Session-Id', result.sessionId)
        sendJson(ctx, answer)
        return
      }

      const sse = new SseStream(ctx, options.keepaliveMs, {}, true)
      const builder = new OutputBuilder(id, (event) => sse.event(event.type as string, event))
      const lifecycle = (type: string, response: Record<string, unknown>) => sse.event(type, { type, response, sequence_number: builder.nextSequence() })
      lifecycle('response.created', envelope('in_progress', []))
      lifecycle('response.in_progress', envelope('in_progress', []))
      request.onEvent = sse.follow((event) => builder.on(event))
      try {
        const result = await deps.runs().execute(run, request)
        sse.session(result.sessionId)
        const response = await conclude(result, builder)
        lifecycle(response.status === 'completed' ? 'response.completed' : 'response.incomplete', response)
      } catch (error) {
        if (!run.clientGone) {
          const output = builder.finish('', false)
          const message = HttpError.isInstance(error) ? error.message : 'The server failed to complete the response'
          if (!HttpError.isInstance(error)) deps.warn(`response ${id} failed: ${deps.runs().redact(String((error as Error)?.message ?? error))}`)
          lifecycle('response.failed', envelope('failed', output, { error: { code: 'server_error', message } }))
        }
      } finally {
        sse.end()
      }
    } finally {
      if (!detached) run.finish()
    }
  }
}

export function getResponse(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const id = String(ctx.params.id ?? '')
    const record = await deps.store().get(id)
    if (!record) throw notFound(id, 'response_id', 'Response')
    ctx.body = record.response
  }
}

export function deleteResponse(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const id = String(ctx.params.id ?? '')
    if (!(await deps.store().delete(id))) throw notFound(id, 'response_id', 'Response')
    ctx.body = { id, object: 'response', deleted: true }
  }
}

export function listInputItems(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const id = String(ctx.params.id ?? '')
    const items = await deps.store().inputItems(id)
    if (!items) throw notFound(id, 'response_id', 'Response')
    const data = ctx.query.order === 'asc' ? items : [...items].reverse()
    const first = data[0] as { id?: string } | undefined
    const last = data.at(-1) as { id?: string } | undefined
    ctx.body = { object: 'list', data, first_id: first?.id ?? null, last_id: last?.id ?? null, has_more: false }
  }
}
