// Messages-API wire mapping: system prompts joined into `system`, tool results as `tool_result`
// blocks in a user turn (paired by `tool_use_id`), same-role turns merged, reasoning effort as an
// extended-thinking budget; answers and stream events folded back into a ModelResponse.

import { AnswerBudget, describeMedia, MAX_ANSWER_BYTES, parseToolArguments, ProviderProtocolError, syntheticCallId, type ChatMessage, type ContentPart, type ModelDelta, type ModelRequest, type ModelResponse, type ReasoningEffort, type ToolCall, type Usage } from 'agent/sdk'

const THINKING_BUDGET: Record<Exclude<ReasoningEffort, 'none'>, number> = { low: 2048, medium: 8192, high: 16384, xhigh: 32000 }
export const DEFAULT_MAX_TOKENS = 8192

type Block = Record<string, unknown>

function imageBlock(url: string): Block {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url)
  return data ? { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } } : { type: 'image', source: { type: 'url', url } }
}

function contentBlocks(content: string | ContentPart[] | null): Block[] {
  if (content === null || content === '') return []
  if (typeof content === 'string') return [{ type: 'text', text: content }]
  // The Messages API takes no audio: it is described in text.
  return content.map((p) => (p.type === 'text' ? { type: 'text', text: p.text } : p.type === 'image_url' ? imageBlock(p.image_url.url) : { type: 'text', text: describeMedia(p, 'audio is not passed to this provider') }))
}

function text(content: ChatMessage['content']): string {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? p.text : '')).join('\n')
}

export function toWireBody(model: string, request: Omit<ModelRequest, 'model'>, stream: boolean): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => text(m.content)).filter(Boolean).join('\n\n')
  const turns: Array<{ role: 'user' | 'assistant'; content: Block[] }> = []
  const push = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (blocks.length === 0) return
    const last = turns.at(-1)
    if (last && last.role === role) last.content.push(...blocks)
    else turns.push({ role, content: blocks })
  }
  for (const m of request.messages) {
    if (m.role === 'system') continue
    if (m.role === 'tool') {
      // Images a tool returned go inside its tool_result (the Messages API takes image blocks there).
      push('user', [{ type: 'tool_result', tool_use_id: m.toolCallId ?? '', content: Array.isArray(m.content) && m.content.some((p) => p.type !== 'text') ? contentBlocks(m.content) : text(m.content) || '(empty)' }])
    } else if (m.role === 'assistant') {
      const blocks = contentBlocks(m.content)
      for (const call of m.toolCalls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: parseToolArguments(call.arguments) })
      push('assistant', blocks.length ? blocks : [{ type: 'text', text: '(no answer)' }])
    } else {
      push('user', contentBlocks(m.content).length ? contentBlocks(m.content) : [{ type: 'text', text: '(empty)' }])
    }
  }
  const effort = request.reasoningEffort
  // With thinking on, the API wants the signed thinking block back before a tool_use of the last
  // assistant turn; signatures are not kept in ChatMessage, so such a continuation runs without thinking.
  const lastAssistant = [...request.messages].reverse().find((m) => m.role === 'assistant')
  const midToolLoop = !!lastAssistant?.toolCalls?.length
  const budget = effort && effort !== 'none' && !midToolLoop ? THINKING_BUDGET[effort] : undefined
  const body: Record<string, unknown> = {
    model,
    max_tokens: Math.max(request.maxTokens ?? DEFAULT_MAX_TOKENS, budget ? budget + 4096 : 0),
    messages: turns,
  }
  if (system) body.system = system
  if (request.tools?.length) body.tools = request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }))
  // Extended thinking requires the default temperature.
  if (budget) body.thinking = { type: 'enabled', budget_tokens: budget }
  else if (request.temperature !== undefined) body.temperature = request.temperature
  if (request.topP !== undefined && !budget) body.top_p = request.topP
  if (request.stop?.length) body.stop_sequences = request.stop
  // With thinking on, the API allows only auto and none.
  const choice = request.toolChoice
  if (choice && request.tools?.length && (!budget || choice === 'auto' || choice === 'none')) {
    body.tool_choice = choice === 'required' ? { type: 'any' } : typeof choice === 'string' ? { type: choice } : { type: 'tool', name: choice.name }
  }
  if (stream) body.stream = true
  return body
}

export function toUsage(raw: any): Usage {
  const input = (Number(raw?.input_tokens) || 0) + (Number(raw?.cache_creation_input_tokens) || 0) + (Number(raw?.cache_read_input_tokens) || 0)
  const output = Number(raw?.output_tokens) || 0
  return { inputTokens: input, outputTokens: output, totalTokens: input + output }
}

export function fromMessage(body: any): ModelResponse {
  let content = ''
  let reasoning = ''
  const toolCalls: ToolCall[] = []
  for (const block of Array.isArray(body?.content) ? body.content : []) {
    if (block?.type === 'text') content += block.text ?? ''
    else if (block?.type === 'thinking') reasoning += block.thinking ?? ''
    else if (block?.type === 'tool_use') toolCalls.push({ id: block.id || syntheticCallId(toolCalls.length), name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) })
  }
  return { content: content === '' && toolCalls.length ? null : content, toolCalls, reasoning: reasoning || undefined, usage: toUsage(body?.usage), finishReason: body?.stop_reason ?? undefined }
}

/** What a new block counts against the cap besides its text: an endless run of empty blocks is bounded too. */
const BLOCK_OVERHEAD = 64
/** How far past the last block a new one may start (they come numbered 0, 1, 2 …). */
const MAX_BLOCK_GAP = 1024

/**
 * Folds stream events (message_start … message_stop) into one response. What it holds (the blocks'
 * text, thinking and tool input) is capped at `limit` characters (MAX_ANSWER_BYTES by default):
 * past it `push` throws AnswerTooLargeError, before the delta is kept or reported.
 */
export class MessageStream {
  private blocks: Array<{ type: string; text: string; id?: string; name?: string }> = []
  private usage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
  private stop: string | undefined
  done = false
  events = 0

  private readonly budget: AnswerBudget

  constructor(
    private readonly onDelta?: (delta: ModelDelta) => void,
    limit: number = MAX_ANSWER_BYTES,
  ) {
    this.budget = new AnswerBudget(limit)
  }

  /** Returns true when the event carried output for the caller; throws on an error event. */
  push(event: any): boolean {
    this.events++
    switch (event?.type) {
      case 'message_start':
        this.usage = toUsage(event.message?.usage)
        return false
      case 'content_block_start': {
        const b = event.content_block ?? {}
        const text = b.type === 'text' ? String(b.text ?? '') : ''
        const id = typeof b.id === 'string' ? b.id : undefined
        const name = typeof b.name === 'string' ? b.name : undefined
        const index = event.index ?? this.blocks.length
        // The block's position: one far past the end would leave a sparse array of billions of holes
        // to walk; the holes a gap leaves count against the cap too.
        if (!Number.isInteger(index) || index < 0 || index > this.blocks.length + MAX_BLOCK_GAP) throw new ProviderProtocolError(`the stream started a content block at index ${String(index).slice(0, 20)}; refused`, false)
        this.budget.grow(BLOCK_OVERHEAD + 8 * Math.max(0, index - this.blocks.length) + text.length + (id?.length ?? 0) + (name?.length ?? 0))
        this.blocks[index] = { type: b.type, text, id, name }
        return false
      }
      case 'content_block_delta': {
        const block = this.blocks[event.index ?? this.blocks.length - 1]
        const d = event.delta ?? {}
        if (!block) return false
        if (d.type === 'text_delta' && d.text) {
          this.budget.grow(String(d.text).length)
          block.text += d.text
          this.onDelta?.({ content: d.text })
          return true
        }
        if (d.type === 'thinking_delta' && d.thinking) {
          this.budget.grow(String(d.thinking).length)
          block.text += d.thinking
          this.onDelta?.({ reasoning: d.thinking })
          return true
        }
        if (d.type === 'input_json_delta' && d.partial_json) {
          this.budget.grow(String(d.partial_json).length)
          block.text += d.partial_json
        }
        return false
      }
      case 'message_delta':
        if (event.delta?.stop_reason) this.stop = event.delta.stop_reason
        if (event.usage?.output_tokens !== undefined) {
          const output = Number(event.usage.output_tokens) || 0
          const input = event.usage.input_tokens !== undefined ? toUsage(event.usage).inputTokens : this.usage.inputTokens
          this.usage = { inputTokens: input, outputTokens: output, totalTokens: input + output }
        }
        return false
      case 'message_stop':
        this.done = true
        return false
      case 'error': {
        const error = new Error(event.error?.message ?? 'stream error') as Error & { status?: number }
        // overloaded_error and api_error mid-stream are the server's transient failures.
        error.status = event.error?.type === 'overloaded_error' ? 529 : event.error?.type === 'rate_limit_error' ? 429 : 500
        throw error
      }
      default:
        return false
    }
  }

  result(): ModelResponse {
    let content = ''
    let reasoning = ''
    const toolCalls: ToolCall[] = []
    for (const block of this.blocks) {
      if (!block) continue
      if (block.type === 'text') content += block.text
      else if (block.type === 'thinking') reasoning += block.text
      else if (block.type === 'tool_use') toolCalls.push({ id: block.id || syntheticCallId(toolCalls.length), name: block.name ?? '', arguments: block.text.trim() || '{}' })
    }
    return { content: content === '' && toolCalls.length ? null : content, toolCalls, reasoning: reasoning || undefined, usage: this.usage, finishReason: this.stop }
  }
}
