// Chat-completions wire mapping: ChatMessage/ToolSchema → request body, and completion or stream
// chunks → ModelResponse. Tool calls keep their ids; a call sent without one gets a synthetic id so
// its result still pairs with it.

import { AnswerBudget, describeMedia, MAX_ANSWER_BYTES, syntheticCallId, type ChatMessage, type ContentPart, type ModelDelta, type ModelResponse, type ToolCall, type ToolSchema, type Usage } from 'agent/sdk'

export function toWireMessages(messages: readonly ChatMessage[]): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = []
  // Tool messages carry text only; images and audio (input_audio) a tool returned follow the batch's
  // results as one user message (no user message may come between the results of one batch).
  let toolImages: ContentPart[] = []
  const flushImages = () => {
    if (!toolImages.length) return
    const kinds = toolImages.every((p) => p.type === 'image_url') ? 'Images' : toolImages.every((p) => p.type === 'input_audio') ? 'Audio' : 'Images and audio'
    out.push({ role: 'user', content: [{ type: 'text', text: `${kinds} returned by the tool calls above:` }, ...toolImages] })
    toolImages = []
  }
  for (const m of messages) {
    if (m.role !== 'tool') flushImages()
    switch (m.role) {
      case 'assistant': {
        const msg: Record<string, unknown> = { role: 'assistant', content: m.content ?? (m.toolCalls?.length ? null : '') }
        if (m.toolCalls?.length) msg.tool_calls = m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments || '{}' } }))
        out.push(msg)
        break
      }
      case 'tool':
        if (Array.isArray(m.content)) toolImages.push(...m.content.filter((p) => p.type !== 'text'))
        out.push({ role: 'tool', tool_call_id: m.toolCallId ?? '', content: Array.isArray(m.content) ? m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n') : plainText(m.content) })
        break
      case 'system':
        out.push({ role: 'system', content: plainText(m.content) })
        break
      default: {
        const msg: Record<string, unknown> = { role: 'user', content: m.content ?? '' }
        if (m.name) msg.name = m.name
        out.push(msg)
      }
    }
  }
  flushImages()
  return out
}

export function plainText(content: ChatMessage['content']): string {
  if (content === null) return ''
  if (typeof content === 'string') return content
  return content.map((p) => (p.type === 'text' ? p.text : p.type === 'image_url' ? `[image: ${p.image_url.url.slice(0, 64)}]` : describeMedia(p))).join('\n')
}

export function toWireTools(tools: readonly ToolSchema[] | undefined): Array<Record<string, unknown>> | undefined {
  if (!tools?.length) return undefined
  return tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))
}

const wireToolJson = new WeakMap<ToolSchema, string>()

/** The last list sent (runs offer the same tools, in the same order, as a new array each time). */
let lastTools: { list: readonly ToolSchema[]; bytes: Buffer } | undefined

/** The tools as wire JSON (comma-separated, no brackets) in UTF-8, joined and encoded once per list. */
export function toWireToolsBytes(tools: readonly ToolSchema[]): Buffer {
  const last = lastTools
  if (last && last.list.length === tools.length && last.list.every((tool, i) => tool === tools[i])) return last.bytes
  lastTools = { list: [...tools], bytes: Buffer.from(tools.map(toWireToolJson).join(',')) }
  return lastTools.bytes
}

/** One tool as wire JSON, kept per schema object (the runtime hands the same ones to every call). */
export function toWireToolJson(tool: ToolSchema): string {
  let json = wireToolJson.get(tool)
  if (json === undefined) {
    json = JSON.stringify({ type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } })
    wireToolJson.set(tool, json)
  }
  return json
}

export function toUsage(raw: any): Usage {
  const input = Number(raw?.prompt_tokens ?? 0) || 0
  const output = Number(raw?.completion_tokens ?? 0) || 0
  const usage: Usage = { inputTokens: input, outputTokens: output, totalTokens: Number(raw?.total_tokens ?? input + output) || input + output }
  const reasoning = raw?.completion_tokens_details?.reasoning_tokens
  if (typeof reasoning === 'number') usage.reasoningTokens = reasoning
  // The aggregator reports the charged cost in the usage object.
  if (typeof raw?.cost === 'number') usage.costUsd = raw.cost
  return usage
}

function reasoningOf(message: any): string | undefined {
  const text = message?.reasoning_content ?? message?.reasoning
  return typeof text === 'string' && text.length > 0 ? text : undefined
}

/**
 * The text of an answer given as content parts: what the endpoint sent, untyped, so only parts with
 * string text (`text`, `output_text`) or an image URL count; anything else (a part without a type,
 * an image without its URL) is left out rather than trusted to have the shape of ours.
 */
function answerText(parts: unknown[]): string {
  return parts
    .flatMap((part) => {
      const p = part as { text?: unknown; image_url?: { url?: unknown } } | null
      if (typeof p?.text === 'string') return [p.text]
      return typeof p?.image_url?.url === 'string' ? [`[image: ${p.image_url.url.slice(0, 64)}]`] : []
    })
    .join('\n')
}

export function fromCompletion(body: any): ModelResponse {
  const choice = body?.choices?.[0]
  const message = choice?.message ?? {}
  const toolCalls: ToolCall[] = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((c: any, i: number) => ({
    id: typeof c?.id === 'string' && c.id ? c.id : syntheticCallId(i),
    name: String(c?.function?.name ?? ''),
    arguments: typeof c?.function?.arguments === 'string' ? c.function.arguments : JSON.stringify(c?.function?.arguments ?? {}),
  }))
  const content = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? answerText(message.content) : null
  return { content: content === '' && toolCalls.length ? null : content, toolCalls, reasoning: reasoningOf(message), usage: toUsage(body?.usage), finishReason: choice?.finish_reason ?? undefined }
}

/** What a new tool call counts against the cap besides its text: an endless run of empty calls is bounded too. */
const CALL_OVERHEAD = 64

/**
 * Folds stream chunks into one response, reporting text and reasoning deltas as they come. What it
 * holds (text, reasoning, tool calls) is capped at `limit` characters (MAX_ANSWER_BYTES by default):
 * past it `push` throws AnswerTooLargeError, before the delta is kept or reported.
 */
export class StreamAccumulator {
  private text = ''
  private reasoning = ''
  private calls: Array<{ id: string; name: string; arguments: string }> = []
  private byIndex = new Map<number, number>()
  private usage: Usage | undefined
  private finish: string | undefined
  chunks = 0

  private readonly budget: AnswerBudget

  constructor(
    private readonly onDelta?: (delta: ModelDelta) => void,
    limit: number = MAX_ANSWER_BYTES,
  ) {
    this.budget = new AnswerBudget(limit)
  }

  /** Returns true when the chunk carried output for the caller. */
  push(chunk: any): boolean {
    this.chunks++
    if (chunk?.usage) this.usage = toUsage(chunk.usage)
    const choice = chunk?.choices?.[0]
    if (!choice) return false
    if (choice.finish_reason) this.finish = choice.finish_reason
    const delta = choice.delta ?? {}
    let delivered = false
    const reasoning = reasoningOf(delta)
    if (reasoning) {
      this.budget.grow(reasoning.length)
      this.reasoning += reasoning
      this.onDelta?.({ reasoning })
      delivered = true
    }
    if (typeof delta.content === 'string' && delta.content) {
      this.budget.grow(delta.content.length)
      this.text += delta.content
      this.onDelta?.({ content: delta.content })
      delivered = true
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) this.pushToolCall(part)
    return delivered
  }

  private pushToolCall(part: any): void {
    const id = typeof part?.id === 'string' ? part.id : ''
    let slot: number | undefined
    if (typeof part?.index === 'number') slot = this.byIndex.get(part.index)
    else if (!id && this.calls.length && !part?.function?.name) slot = this.calls.length - 1 // a continuation without index
    const name = typeof part?.function?.name === 'string' ? part.function.name : part?.function?.name ? String(part.function.name) : ''
    const args = part?.function?.arguments ? (typeof part.function.arguments === 'string' ? part.function.arguments : JSON.stringify(part.function.arguments)) : ''
    const fresh = slot === undefined || (id && this.calls[slot]!.id && this.calls[slot]!.id !== id)
    this.budget.grow((fresh ? CALL_OVERHEAD + id.length : 0) + name.length + args.length)
    if (fresh) {
      slot = this.calls.push({ id, name: '', arguments: '' }) - 1
      if (typeof part?.index === 'number') this.byIndex.set(part.index, slot)
    }
    const call = this.calls[slot!]!
    if (id && !call.id) call.id = id
    if (name) call.name += name
    if (args) call.arguments += args
  }

  get complete(): boolean {
    return this.finish !== undefined
  }

  result(): ModelResponse {
    const toolCalls = this.calls.map((c, i) => ({ id: c.id || syntheticCallId(i), name: c.name, arguments: c.arguments }))
    return {
      content: this.text === '' && toolCalls.length ? null : this.text,
      toolCalls,
      reasoning: this.reasoning || undefined,
      usage: this.usage ?? { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: this.finish,
    }
  }
}
