// Responses-API wire mapping: system messages → `instructions`, the conversation → input items
// (messages, function_call, function_call_output paired by call_id), and output items or stream
// events → ModelResponse (text, reasoning summaries, function calls, usage).

import { AnswerBudget, describeMedia, MAX_ANSWER_BYTES, syntheticCallId, type ChatMessage, type ModelDelta, type ModelRequest, type ModelResponse, type ToolCall, type Usage } from 'agent/sdk'

const text = (content: ChatMessage['content']): string =>
  content === null ? '' : typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')

export function toResponsesBody(model: string, request: Omit<ModelRequest, 'model'>, stream: boolean): Record<string, unknown> {
  const instructions = request.messages.filter((m) => m.role === 'system').map((m) => text(m.content)).filter(Boolean).join('\n\n')
  const input: Array<Record<string, unknown>> = []
  for (const m of request.messages) {
    if (m.role === 'system') continue
    if (m.role === 'tool') input.push({ type: 'function_call_output', call_id: m.toolCallId ?? '', output: text(m.content) })
    else if (m.role === 'assistant') {
      if (text(m.content)) input.push({ role: 'assistant', content: text(m.content) })
      for (const c of m.toolCalls ?? []) input.push({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.arguments || '{}' })
    } else {
      const content =
        typeof m.content === 'string' || m.content === null
          ? [{ type: 'input_text', text: m.content ?? '' }]
          : m.content.map((p) => (p.type === 'text' ? { type: 'input_text', text: p.text } : p.type === 'image_url' ? { type: 'input_image', image_url: p.image_url.url, detail: 'auto' } : { type: 'input_text', text: describeMedia(p, 'audio is not passed on this wire') }))
      input.push({ role: 'user', content })
    }
  }
  const body: Record<string, unknown> = { model, input, store: false }
  if (instructions) body.instructions = instructions
  if (request.tools?.length) body.tools = request.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }))
  if (request.reasoningEffort) body.reasoning = { effort: request.reasoningEffort, summary: 'auto' }
  if (request.maxTokens !== undefined) body.max_output_tokens = request.maxTokens
  if (request.temperature !== undefined && !request.reasoningEffort) body.temperature = request.temperature
  if (request.topP !== undefined && !request.reasoningEffort) body.top_p = request.topP
  if (request.toolChoice && request.tools?.length) body.tool_choice = typeof request.toolChoice === 'string' ? request.toolChoice : { type: 'function', name: request.toolChoice.name }
  const format = request.responseFormat
  if (format && format.type !== 'text') {
    body.text = { format: format.type === 'json_schema' ? { type: 'json_schema', name: format.name, schema: format.schema, strict: format.strict ?? false } : { type: 'json_object' } }
  }
  if (stream) body.stream = true
  return body
}

export function toUsage(raw: any): Usage {
  const input = Number(raw?.input_tokens) || 0
  const output = Number(raw?.output_tokens) || 0
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: Number(raw?.total_tokens) || input + output }
  const reasoning = raw?.output_tokens_details?.reasoning_tokens
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning
  return usage
}

function callOf(item: any, index: number): ToolCall {
  return { id: typeof item?.call_id === 'string' && item.call_id ? item.call_id : syntheticCallId(index), name: String(item?.name ?? ''), arguments: typeof item?.arguments === 'string' ? item.arguments : JSON.stringify(item?.arguments ?? {}) }
}

export function fromResponse(body: any): ModelResponse {
  let content = ''
  let reasoning = ''
  const toolCalls: ToolCall[] = []
  for (const item of Array.isArray(body?.output) ? body.output : []) {
    if (item?.type === 'message') for (const part of item.content ?? []) content += part?.type === 'output_text' ? (part.text ?? '') : ''
    else if (item?.type === 'reasoning') reasoning += (item.summary ?? []).map((s: any) => s?.text ?? '').join('')
    else if (item?.type === 'function_call') toolCalls.push(callOf(item, toolCalls.length))
  }
  return { content: content === '' && toolCalls.length ? null : content, toolCalls, reasoning: reasoning || undefined, usage: toUsage(body?.usage), finishReason: toolCalls.length ? 'tool_calls' : (body?.status ?? undefined) }
}

/** What a new tool call counts against the cap besides its text: an endless run of empty calls is bounded too. */
const CALL_OVERHEAD = 64

/**
 * Folds stream events into one response; text and reasoning deltas go to the caller as they come.
 * What it holds (text, reasoning, tool calls) is capped at `limit` characters (MAX_ANSWER_BYTES by
 * default): past it `push` throws AnswerTooLargeError, before the delta is kept or reported.
 */
export class ResponsesStream {
  private text = ''
  private reasoning = ''
  private calls: ToolCall[] = []
  private final: any
  events = 0

  private readonly budget: AnswerBudget

  constructor(
    private readonly onDelta?: (delta: ModelDelta) => void,
    limit: number = MAX_ANSWER_BYTES,
  ) {
    this.budget = new AnswerBudget(limit)
  }

  push(event: any): boolean {
    this.events++
    switch (event?.type) {
      case 'response.output_text.delta':
        if (!event.delta) return false
        this.budget.grow(String(event.delta).length)
        this.text += event.delta
        this.onDelta?.({ content: event.delta })
        return true
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (!event.delta) return false
        this.budget.grow(String(event.delta).length)
        this.reasoning += event.delta
        this.onDelta?.({ reasoning: event.delta })
        return true
      case 'response.output_item.done':
        if (event.item?.type === 'function_call') {
          const call = callOf(event.item, this.calls.length)
          this.budget.grow(CALL_OVERHEAD + call.id.length + call.name.length + call.arguments.length)
          this.calls.push(call)
        }
        return false
      case 'response.completed':
      case 'response.incomplete':
        this.final = event.response ?? {}
        return false
      case 'response.failed':
      case 'error': {
        const detail = event.response?.error ?? event.error ?? event
        const error = new Error(detail?.message ?? 'the response failed') as Error & { status?: number }
        error.status = /rate|quota/i.test(String(detail?.code ?? '')) ? 429 : 500
        throw error
      }
      default:
        return false
    }
  }

  get complete(): boolean {
    return this.final !== undefined
  }

  result(): ModelResponse {
    return {
      content: this.text === '' && this.calls.length ? null : this.text,
      toolCalls: this.calls,
      reasoning: this.reasoning || undefined,
      usage: toUsage(this.final?.usage),
      finishReason: this.calls.length ? 'tool_calls' : (this.final?.status ?? undefined),
    }
  }
}
