// The output of a /v1/responses run, built from the runtime's events: message items for text, and
// function_call items for the client's own tools the model called (the client runs those). Tools the
// agent ran itself are not listed: a client would take a function_call item for a call to run. When
// streaming, the same steps go out as the responses-API events (output_item.added,
// content_part.added, output_text.delta …) in the order and shapes the official client's stream
// accumulator expects, each with a rising sequence_number.

import type { RunEvent, ToolCall, Usage } from 'agent/sdk'
import { itemId } from './items.ts'

type Emit = (type: string, payload: Record<string, unknown>) => void

interface MessageItem {
  type: 'message'
  id: string
  status: 'in_progress' | 'completed' | 'incomplete'
  role: 'assistant'
  content: Array<{ type: 'output_text'; text: string; annotations: unknown[]; logprobs: unknown[] }>
}

interface FunctionCallItem {
  type: 'function_call'
  id: string
  call_id: string
  name: string
  arguments: string
  status: 'in_progress' | 'completed' | 'incomplete'
}

export type OutputItem = MessageItem | FunctionCallItem

export function responsesUsage(usage: Usage): Record<string, unknown> {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.totalTokens,
  }
}

export class OutputBuilder {
  readonly items: OutputItem[] = []
  #message: { item: MessageItem; index: number } | undefined
  #sequence = 0
  readonly #emit: Emit | undefined

  /** `emit` receives each streaming event (type + payload); omit it for a plain JSON answer. */
  constructor(
    private readonly responseId: string,
    emit?: (event: Record<string, unknown>) => void,
  ) {
    this.#emit = emit ? (type, payload) => emit({ type, ...payload, sequence_number: this.#sequence++ }) : undefined
  }

  /** The next sequence number, for the lifecycle events the caller sends around the output. */
  nextSequence(): number {
    return this.#sequence++
  }

  on(event: RunEvent): void {
    if (event.type === 'delta') this.text(event.text)
    // Text before an agent tool run is its own message; text after it opens a new one.
    else if (event.type === 'tool.start') this.#closeMessage('completed')
  }

  text(delta: string): void {
    if (!delta) return
    const open = this.#message ?? this.#openMessage()
    open.item.content[0]!.text += delta
    this.#emit?.('response.output_text.delta', { item_id: open.item.id, output_index: open.index, content_index: 0, delta, logprobs: [] })
  }

  #openMessage(): { item: MessageItem; index: number } {
    const item: MessageItem = { type: 'message', id: itemId(this.responseId, 'message', this.items.length), status: 'in_progress', role: 'assistant', content: [] }
    const index = this.items.push(item) - 1
    this.#emit?.('response.output_item.added', { output_index: index, item: structuredClone(item) })
    item.content.push({ type: 'output_text', text: '', annotations: [], logprobs: [] })
    this.#emit?.('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } })
    this.#message = { item, index }
    return this.#message
  }

  #closeMessage(status: 'completed' | 'incomplete'): void {
    const open = this.#message
    if (!open) return
    this.#message = undefined
    const part = open.item.content[0]!
    open.item.status = status
    this.#emit?.('response.output_text.done', { item_id: open.item.id, output_index: open.index, content_index: 0, text: part.text, logprobs: [] })
    this.#emit?.('response.content_part.done', { item_id: open.item.id, output_index: open.index, content_index: 0, part: { ...part } })
    this.#emit?.('response.output_item.done', { output_index: open.index, item: structuredClone(open.item) })
  }

  /** A call of a client tool, for the client to run. */
  #clientCall(call: ToolCall): void {
    const item: FunctionCallItem = { type: 'function_call', id: itemId(this.responseId, 'function_call', this.items.length), call_id: call.id, name: call.name, arguments: '', status: 'in_progress' }
    const index = this.items.push(item) - 1
    this.#emit?.('response.output_item.added', { output_index: index, item: { ...item } })
    item.arguments = call.arguments
    this.#emit?.('response.function_call_arguments.delta', { item_id: item.id, output_index: index, delta: call.arguments })
    this.#emit?.('response.function_call_arguments.done', { item_id: item.id, output_index: index, name: call.name, arguments: call.arguments })
    item.status = 'completed'
    this.#emit?.('response.output_item.done', { output_index: index, item: { ...item } })
  }

  /**
   * Closes whatever is open and adds the client tool calls the run ended with. If the run produced
   * an answer that no delta carried (a runtime that did not stream), it becomes the message.
   */
  finish(answer: string, complete: boolean, clientCalls: readonly ToolCall[] = []): OutputItem[] {
    const status = complete ? 'completed' : 'incomplete'
    const hasText = this.items.some((i) => i.type === 'message' && i.content.some((c) => c.text))
    if (!hasText && answer) this.text(answer)
    this.#closeMessage(status)
    for (const call of clientCalls) this.#clientCall(call)
    return this.items
  }
}
