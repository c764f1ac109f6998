// POST /v1/responses (stateful), GET and DELETE /v1/responses/{id}. A chain is named by
// `previous_response_id` or by a `conversation` name (an unknown name starts one; both at once is
// 400); it continues the stored transcript, inherits `instructions`, and is one agent session.
// `store` (default true) keeps the response in state.db for retrieval and chaining.

import { HttpError, readJson, type HttpContext, type RunRequest, type RunResult } from 'agent/sdk'
import { planSession, type HandlerDeps } from './chat-completions.ts'
import { badRequest, flag, parseResponsesInput } from './messages.ts'
import { JSON_BOUNDS } from './options.ts'
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

/** `conversation` is a name; the object form `{id}` of the official client is accepted too. */
function conversationName(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined
  const name = typeof value === 'string' ? value : (value as { id?: unknown }).id
  if (typeof name !== 'string' || name.trim() === '' || name.length > 256) throw badRequest('"conversation" must be a non-empty name (at most 256 characters)', 'conversation', 'invalid_conversation')
  return name
}

function notFound(id: string, param: string, what: string): HttpError {
  return new HttpError(404, `${what} not found: ${id}`, { param, code: 'response_not_found' })
}

export function createResponse(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const options = deps.options()
    const body = await readJson(ctx, options.maxRequestBytes, JSON_BOUNDS)
    const turn = parseResponsesInput(body.input)
    const instructionsIn = optionalString(body, 'instructions')
    const previousId = optionalString(body, 'previous_response_id')
    const conversation = conversationName(body.conversation)
    if (conversation !== undefined && previousId !== undefined) {
      throw badRequest('Use either "conversation" or "previous_response_id", not both', 'conversation', 'conflicting_parameters')
    }
    const store = flag(body.store, true)
    const stream = flag(body.stream, false)
    const model = typeof body.model === 'string' && body.model.trim() ? body.model : options.modelName

    let previous: StoredResponse | undefined
    if (previousId !== undefined) {
      previous = deps.store().get(previousId)
      if (!previous) throw notFound(previousId, 'previous_response_id', 'Previous response')
    } else if (conversation !== undefined) {
      const head = deps.store().conversationHead(conversation)
      previous = head ? deps.store().get(head) : undefined
    }
    const instructions = [instructionsIn ?? previous?.instructions, turn.systemPrompt].filter(Boolean).join('\n') || undefined
    const history = previous ? [...previous.transcript, ...turn.history] : turn.history

    const run = deps.runs().begin(ctx)
    try {
      const id = newId('resp_')
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
        metadata: {},
        parallel_tool_calls: true,
        temperature: null,
        top_p: null,
        tool_choice: 'auto',
        tools: [],
        text: { format: { type: 'text' } },
        truncation: 'disabled',
        usage: null,
        ...extra,
      })
      const plan = await planSession(deps, { head: previous?.id, context: previous?.transcript ?? [], extra: turn.history, persist: store })
      const { continuable, ...session } = plan
      const request: RunRequest = { input: turn.input, systemPrompt: instructions, ...session, persist: store, source: { platform: 'api_server' } }

      // What a finished run leaves: the response object, stored (when asked) with the transcript it continues.
      const conclude = (result: RunResult, builder: OutputBuilder): Record<string, unknown> => {
        const complete = result.exitReason === 'completed'
        const output = builder.finish(result.answer, complete)
        const response = envelope(complete ? 'completed' : 'incomplete', output, {
          usage: responsesUsage(result.usage),
          ...(complete ? {} : { incomplete_details: { reason: result.exitReason } }),
        })
        if (store) {
          const transcript = [...history, turn.inputMessage, ...(result.answer ? [{ role: 'assistant' as const, content: result.answer }] : [])]
          deps.store().put({ id, response, transcript, instructions, sessionId: result.sessionId, conversation }, createdAt)
          // The session's transcript now ends at this response: chaining from it continues the session.
          if (continuable && complete && result.answer) deps.store().setHead(id, result.sessionId)
        }
        return response
      }

      if (!stream) {
        const builder = new OutputBuilder()
        request.onEvent = (event) => builder.on(event)
        const result = await deps.runs().execute(run, request)
        ctx.body = conclude(result, builder)
        ctx.set('X-Agent-Session-Id', result.sessionId)
        return
      }

      const sse = new SseStream(ctx, options.keepaliveMs, {}, true)
      const builder = new OutputBuilder((event) => sse.event(event.type as string, event))
      const lifecycle = (type: string, response: Record<string, unknown>) => sse.event(type, { type, response, sequence_number: builder.nextSequence() })
      lifecycle('response.created', envelope('in_progress', []))
      lifecycle('response.in_progress', envelope('in_progress', []))
      request.onEvent = sse.follow((event) => builder.on(event))
      try {
        const result = await deps.runs().execute(run, request)
        sse.session(result.sessionId)
        const response = conclude(result, builder)
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
      run.finish()
    }
  }
}

export function getResponse(deps: HandlerDeps) {
  return (ctx: HttpContext): void => {
    const id = String(ctx.params.id ?? '')
    const record = deps.store().get(id)
    if (!record) throw notFound(id, 'response_id', 'Response')
    ctx.body = record.response
  }
}

export function deleteResponse(deps: HandlerDeps) {
  return (ctx: HttpContext): void => {
    const id = String(ctx.params.id ?? '')
    if (!deps.store().delete(id)) throw notFound(id, 'response_id', 'Response')
    ctx.body = { id, object: 'response', deleted: true }
  }
}
