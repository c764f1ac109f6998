// POST /v1/chat/completions: stateless. The frontend's system messages are layered after the agent's
// own prompt, its earlier messages are the history, the last user message the input. Answers as
// one JSON completion, or as an SSE stream of chunks (tool progress as `event: agent.tool.progress`)
// ending with a chunk carrying usage and `data: [DONE]`. A resent conversation stays in one session.

import { errorMessage, HttpError, readJson, type ChatMessage, type HttpContext, type RunEvent, type RunRequest, type RunResult, type Services, type Usage } from 'agent/sdk'
import { flag, parseChatBody, type Turn } from './messages.ts'
import type { ApiStore } from './store.ts'
import { JSON_BOUNDS, type ServerOptions } from './options.ts'
import type { ActiveRun, Runs } from './runs.ts'
import { conversationKey, newId } from './session-key.ts'
import { linkSession, type LinkRequest, type SessionPlan } from './session-link.ts'
import { SseStream } from './sse.ts'

export interface HandlerDeps {
  options: () => ServerOptions
  runs: () => Runs
  store: () => ApiStore
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

const chatHead = (messages: readonly ChatMessage[]) => `chat:${conversationKey(messages)}`

export function chatUsage(usage: Usage): Record<string, unknown> {
  const out: Record<string, unknown> = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.totalTokens }
  if (usage.reasoningTokens !== undefined) out.completion_tokens_details = { reasoning_tokens: usage.reasoningTokens }
  return out
}

function finishReason(result: RunResult): string {
  return result.exitReason === 'max_iterations' ? 'length' : 'stop'
}

export function chatCompletions(deps: HandlerDeps) {
  return async (ctx: HttpContext): Promise<void> => {
    const options = deps.options()
    const body = await readJson(ctx, options.maxRequestBytes, JSON_BOUNDS)
    const turn = parseChatBody(body)
    const stream = flag(body.stream, false)
    const model = typeof body.model === 'string' && body.model.trim() ? body.model : options.modelName
    const run = deps.runs().begin(ctx)
    try {
      const plan = await planSession(deps, { head: turn.history.length ? chatHead(turn.history) : undefined, context: turn.history, extra: [], persist: true })
      const { continuable, ...session } = plan
      const request: RunRequest = { input: turn.input, systemPrompt: turn.systemPrompt, ...session, source: { platform: 'api_server' } }
      const outcome = stream ? await streamed(ctx, deps, run, request, model) : await deps.runs().execute(run, request).then((result) => ({ result, delivered: result.answer }))
      if (!outcome) return
      const { result } = outcome
      if (continuable) rememberHead(deps, turn, result, outcome.delivered)
      if (stream) return
      ctx.set('X-Agent-Session-Id', result.sessionId)
      ctx.body = {
        id: newId('chatcmpl-', 15),
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: result.answer }, logprobs: null, finish_reason: finishReason(result) }],
        usage: chatUsage(result.usage),
      }
    } finally {
      run.finish()
    }
  }
}

/**
 * The frontend will resend this turn as history: remember which session holds it. Keyed by what the
 * client received (all streamed text, interim text before tool calls included).
 */
function rememberHead(deps: HandlerDeps, turn: Turn, result: RunResult, delivered: string): void {
  if (!result.sessionId || result.exitReason !== 'completed' || !delivered) return
  try {
    deps.store().setHead(chatHead([...turn.history, turn.inputMessage, { role: 'assistant', content: delivered }]), result.sessionId)
  } catch (error) {
    deps.warn(`chat session mapping failed: ${errorMessage(error)}`)
  }
}

/** Streams the run; resolves with its result and the text sent, or undefined when the stream failed. */
async function streamed(ctx: HttpContext, deps: HandlerDeps, run: ActiveRun, request: RunRequest, model: string): Promise<{ result: RunResult; delivered: string } | undefined> {
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
  } catch (error) {
    if (!run.clientGone) {
      const message = HttpError.isInstance(error) ? error.message : deps.runs().redact(errorMessage(error))
      sse.data({ ...chunk({}, 'error'), error: { message, type: 'server_error', code: HttpError.isInstance(error) ? error.code : 'agent_error' } })
    }
    sse.end('data: [DONE]\n\n')
    return undefined
  }
  // A runtime that did not stream still answers: the text goes out as one delta.
  if (!delivered && result.answer) {
    delivered = result.answer
    sse.data(chunk({ content: result.answer }))
  }
  sse.data({ ...chunk({}, finishReason(result)), usage: chatUsage(result.usage) })
  sse.end('data: [DONE]\n\n')
  return { result, delivered }
}
