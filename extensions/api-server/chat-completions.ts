// POST /v1/chat/completions: stateless. The frontend's system messages are layered after the agent's
// own prompt, its earlier messages are the history, the last user message the input (or trailing
// tool results continue the run after client tool calls). Answers as one JSON completion, or as an
// SSE stream of chunks (tool progress as `event: agent.tool.progress`) ending with a chunk carrying
// usage and `data: [DONE]`. A resent conversation stays in one session.

import { errorMessage, HttpError, publicErrorText, readJson, RUNTIME_SERVICE, sendJson, type ChatMessage, type HttpContext, type RunEvent, type RunRequest, type RunResult, type RuntimeService, type Services, type ToolCall, type Usage } from 'agent/sdk'
import { flag, parseChatBody, type Turn } from './messages.ts'
import { checkStructuredAnswer, parseRequestOptions, schemaCheck, type RequestOptions } from './request-options.ts'
import type { ApiStoreService } from './store.ts'
import type { BackgroundRuns } from './background.ts'
import { JSON_BOUNDS, type ServerOptions } from './options.ts'
import type { ActiveRun, Runs } from './runs.ts'
import { conversationKey, newId } from './session-key.ts'
import { linkSession, type LinkRequest, type SessionPlan } from './session-link.ts'
import { SseStream } from './sse.ts'

export interface HandlerDeps {
  options: () => ServerOptions
  runs: () => Runs
  store: () => ApiStoreService
  background: () => BackgroundRuns
  services: Services
  warn: (message: string) => void
}

/** The session plan for a request; a store failure costs continuity, never the answer. */
export async function planSession(deps: HandlerDeps, request: LinkRequest): Promise<SessionPlan> {
  try {
    return await linkSession(deps.store(), deps.services, request)
  } catch (error) {
    deps.warn(`session continuity unavailable: ${errorMessage(error)}`)
    return { history: [...request.context, ...request.extra], continuable: false }
  }
}

/** The head key of a conversation a client resends whole (chat, and responses without a chain). */
export const chatHead = (messages: readonly ChatMessage[]) => `chat:${conversationKey(messages)}`

/** Names of the agent's own tools (asked only when a request brings tools of its own). */
export function agentToolNames(deps: HandlerDeps): string[] {
  const runtime = deps.services.get<RuntimeService>(RUNTIME_SERVICE)
  return runtime?.offeredTools ? runtime.offeredTools().map((t) => t.name) : []
}

/** The run request for a turn and its options. */
export function runRequest(turn: Turn, options: RequestOptions, base: Omit<RunRequest, 'input'>): RunRequest {
  const request: RunRequest = { input: turn.input ?? '', ...base }
  if (!turn.input) request.resume = true
  if (options.clientTools) request.clientTools = options.clientTools
  if (options.toolChoice) request.toolChoice = options.toolChoice
  if (options.sampling) request.sampling = options.sampling
  return request
}

/** Client tool calls in the chat-completions shape. */
function wireCalls(calls: readonly ToolCall[]): Array<Record<string, unknown>> {
  return calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }))
}

export function chatUsage(usage: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens }
  if (usage.reasoningTokens !== undefined) out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens }
  return out
}

/**
 * A run the server interrupted (a reload, a stop) is no answer: chat completions has no finish reason
 * for it, and `stop` would pass a cut-off text as complete. The client is told to send it again.
 */
function whole(result: RunResult): RunResult {
  if (result.exitReason !== 'interrupted') return result
  throw new HttpError(503, 'The run was interrupted before it finished (the server is stopping or reloading); send the request again', { code: 'interrupted', type: 'server_error', headers: { 'Retry-After': '1' } })
}

function finishReason(result: RunResult): string {
  return result.exitReason === 'max_iterations' ? 'length' : result.exitReason === 'tool_calls' ? 'tool_calls' : 'stop'
}

export function chatCompletions(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const options = deps.options()
    const body = await readJson(ctx, options.maxRequestBytes, JSON_BOUNDS)
    const turn = parseChatBody(body)
    const requestOptions = parseRequestOptions(body, 'chat', () => agentToolNames(deps))
    const stream = flag(body.stream, false)
    const includeUsage = stream && flag((body.stream_options as { include_usage?: unknown } | null | undefined)?.include_usage, false)
    const model = typeof body.model === 'string' && body.model.trim() ? body.model : options.modelName
    // A json_schema that cannot be used is a 400 before any model call (off the event loop).
    const checking = schemaCheck(requestOptions)
    if (checking) await checking
    const run = deps.runs().begin(ctx)
    try {
      const plan = await planSession(deps, { head: turn.history.length ? chatHead(turn.history) : undefined, context: turn.history, extra: turn.results, persist: true })
      const { continuable, ...session } = plan
      const request = runRequest(turn, requestOptions, { systemPrompt: turn.systemPrompt, ...session, source: { platform: 'api_server' } })
      const format = requestOptions.sampling?.responseFormat
      const outcome = stream
        ? await streamed(ctx, deps, run, request, model, { includeUsage, check: (answer) => checkStructuredAnswer(format, answer) })
        : await deps.runs().execute(run, request).then((result) => ({ result: whole(result), delivered: result.answer }))
      if (!outcome) return
      const { result } = outcome
      // A head whose session lacks the answer would continue the conversation without it.
      if (continuable) rememberChat(deps, turn, result, outcome.delivered)
      if (stream) return
      if (result.exitReason === 'completed') await checkStructuredAnswer(format, result.answer)
      ctx.set('X-Agent-Session-Id', result.sessionId)
      const pending = result.pendingToolCalls ?? []
      sendJson(ctx, {
        id: newId('chatcmpl-', 15),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: pending.length && !result.answer ? null : result.answer, refusal: null, ...(pending.length ? { tool_calls: wireCalls(pending) } : {}) },
            logprobs: null,
            finish_reason: finishReason(result),
          },
        ],
        usage: chatUsage(result.usage),
      })
    } finally {
      run.finish()
    }
  }
}

/**
 * The frontend will resend this turn as history: remember which session holds it. Keyed by what the
 * client received (all streamed text, interim text before tool calls included).
 */
function rememberChat(deps: HandlerDeps, turn: Turn, result: RunResult, delivered: string): void {
  const pending = result.pendingToolCalls
  if (!result.sessionId || (result.exitReason !== 'completed' && !pending) || (!delivered && !pending)) return
  const answer: ChatMessage = { role: 'assistant', content: delivered, ...(pending ? { toolCalls: pending } : {}) }
  rememberHead(deps, () => chatHead([...turn.history, ...turn.results, ...(turn.inputMessage ? [turn.inputMessage] : []), answer]), result)
}

/**
 * Records the run's session's new head once the session holds the answer (its last write is stored
 * behind the answer); a failure costs continuity (the next turn seeds a new session), never the answer.
 * The head (a hash of the whole conversation) is made after this turn of the event loop, once the
 * answer is on its way: the client's next turn is read in a later turn, and the head is recorded
 * only when the session's commit (queued in this turn) is done either way.
 */
export function rememberHead(deps: HandlerDeps, head: () => string, result: RunResult): void {
  setImmediate(() => {
    Promise.resolve()
      .then(() => deps.store().setHead(head(), result.sessionId, result.stored))
      .catch((error: unknown) => deps.warn(`session head not recorded: ${errorMessage(error)}`))
  })
}

/** Streams the run; resolves with its result and the text sent, or undefined when the stream failed. */
interface StreamOptions {
  /** `stream_options.include_usage`: a last chunk with empty choices and the usage, as the API has it. */
  includeUsage: boolean
  /** Structured-output check of the final answer (throws an HttpError when it fails). */
  check: (answer: string) => Promise<void>
}

async function streamed(ctx: HttpContext, deps: HandlerDeps, run: ActiveRun, request: RunRequest, model: string, options: StreamOptions): Promise<{ result: RunResult; delivered: string } | undefined> {
  const sse = new SseStream(ctx, deps.options().keepaliveMs, {}, true)
  const id = newId('chatcmpl-', 15)
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })
  // Progress events carry an empty chunk shape as well: OpenAI clients hand every SSE event to the
  // caller as a chunk, and code reading `chunk.choices[0]?.delta` must not trip over them.
  const progress = (tool: string, callId: string, status: string, text?: string) =>
    sse.event('agent.tool.progress', { id, object: 'chat.completion.chunk', created, model, choices: [], tool_progress: { tool, call_id: callId, status, ...(text === undefined ? {} : { text }) } })

  sse.data(chunk({ role: 'assistant', content: '' }))
  let delivered = ''
  request.onEvent = sse.follow((event: RunEvent) => {
    switch (event.type) {
      case 'delta':
        if (!event.text) break
        delivered += event.text
        sse.data(chunk({ content: event.text }))
        break
      case 'tool.start':
        if (!event.name.startsWith('_')) progress(event.name, event.callId, 'running')
        break
      case 'tool.progress':
        if (!event.name.startsWith('_')) progress(event.name, event.callId, 'progress', event.text)
        break
      case 'tool.end':
        if (!event.name.startsWith('_')) progress(event.name, event.callId, event.ok ? 'completed' : 'failed')
        break
    }
  })
  let result: RunResult
  try {
    result = await deps.runs().execute(run, request)
    sse.session(result.sessionId)
    whole(result)
    if (result.exitReason === 'completed') await options.check(result.answer)
  } catch (error) {
    if (!run.clientGone) {
      const message = HttpError.isInstance(error) ? error.message : publicErrorText(deps.runs().redact(errorMessage(error)))
      const known = HttpError.isInstance(error) ? error : undefined
      sse.data({ ...chunk({}, 'error'), error: { message, type: known?.type ?? 'server_error', param: known?.param ?? null, code: known ? known.code : 'agent_error' } })
    }
    sse.end('data: [DONE]\n\n')
    return undefined
  }
  // A runtime that did not stream still answers: the text goes out as one delta.
  if (!delivered && result.answer) {
    delivered = result.answer
    sse.data(chunk({ content: result.answer }))
  }
  const pending = result.pendingToolCalls
  if (pending) sse.data(chunk({ tool_calls: wireCalls(pending).map((call, index) => ({ index, ...call })) }))
  // The finish chunk carries usage whether asked or not (what this server always did); asked, the
  // API's own usage chunk with empty choices follows it.
  const usage = chatUsage(result.usage)
  sse.data({ ...chunk({}, finishReason(result)), usage })
  if (options.includeUsage) sse.data({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })
  sse.end('data: [DONE]\n\n')
  return { result, delivered }
}
