// POST /v1/chat/completions: stateless. The frontend's system messages are layered after the agent's
// own prompt, its earlier messages are the history, the last user message the input. Answers as
// one JSON completion, or as an SSE stream of chunks (tool progress as `event: agent.tool.progress`)
// ending with a chunk carrying usage and `data: [DONE]`. A resent conversation stays in one session.

import { errorMessage, HttpError, readJson, type HttpContext, type RunEvent, type RunRequest, type RunResult, type Usage } from 'agent/sdk'
import { flag, parseChatBody, type Turn } from './messages.ts'
import type { ApiStore } from './store.ts'
import type { ServerOptions } from './options.ts'
import type { ActiveRun, Runs } from './runs.ts'
import { conversationKey, newId } from './session-key.ts'
import { SseStream } from './sse.ts'

export interface HandlerDeps {
  options: () => ServerOptions
  runs: () => Runs
  store: () => ApiStore
  warn: (message: string) => void
}

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
    const body = await readJson(ctx, options.maxRequestBytes)
    const turn = parseChatBody(body)
    const stream = flag(body.stream, false)
    const model = typeof body.model === 'string' && body.model.trim() ? body.model : options.modelName
    const run = deps.runs().begin(ctx)
    try {
      const sessionId = findSession(deps, turn)
      const request: RunRequest = { input: turn.input, history: turn.history, systemPrompt: turn.systemPrompt, sessionId, source: { platform: 'api_server' } }
      const result = stream ? await streamed(ctx, deps, run, request, model) : await deps.runs().execute(run, request)
      if (!result) return
      rememberSession(deps, turn, result)
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

/** The session a resent conversation belongs to. Session continuity is a convenience: a store failure only warns. */
function findSession(deps: HandlerDeps, turn: Turn): string | undefined {
  if (turn.history.length === 0) return undefined
  try {
    return deps.store().chatSession(conversationKey(turn.history))
  } catch (error) {
    deps.warn(`chat session lookup failed: ${errorMessage(error)}`)
    return undefined
  }
}

function rememberSession(deps: HandlerDeps, turn: Turn, result: RunResult): void {
  if (!result.sessionId || result.exitReason === 'interrupted' || !result.answer) return
  try {
    deps.store().rememberChat(conversationKey([...turn.history, turn.inputMessage, { role: 'assistant', content: result.answer }]), result.sessionId)
  } catch (error) {
    deps.warn(`chat session mapping failed: ${errorMessage(error)}`)
  }
}

/** Streams the run; resolves with its result, or undefined when the stream ended otherwise (failure, client gone). */
async function streamed(ctx: HttpContext, deps: HandlerDeps, run: ActiveRun, request: RunRequest, model: string): Promise<RunResult | undefined> {
  const sse = new SseStream(ctx, deps.options().keepaliveMs)
  const id = newId('chatcmpl-', 15)
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })
  // Progress events carry an empty chunk shape as well: OpenAI clients hand every SSE event to the
  // caller as a chunk, and code reading `chunk.choices[0]?.delta` must not trip over them.
  const progress = (tool: string, callId: string, status: string, text?: string) =>
    sse.event('agent.tool.progress', { id, object: 'chat.completion.chunk', created, model, choices: [], tool_progress: { tool, call_id: callId, status, ...(text === undefined ? {} : { text }) } })

  sse.data(chunk({ role: 'assistant', content: '' }))
  request.onEvent = (event: RunEvent) => {
    switch (event.type) {
      case 'delta':
        if (event.text) sse.data(chunk({ content: event.text }))
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
  }
  let result: RunResult
  try {
    result = await deps.runs().execute(run, request)
  } catch (error) {
    if (!run.clientGone) {
      const message = HttpError.isInstance(error) ? error.message : deps.runs().redact(errorMessage(error))
      sse.data({ ...chunk({}, 'error'), error: { message, type: 'server_error', code: HttpError.isInstance(error) ? error.code : 'agent_error' } })
    }
    sse.end('data: [DONE]\n\n')
    return undefined
  }
  sse.data({ ...chunk({}, finishReason(result)), usage: chatUsage(result.usage) })
  sse.end('data: [DONE]\n\n')
  return result
}
