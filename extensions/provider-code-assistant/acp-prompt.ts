// How a chat request travels through an ACP agent, which only takes text prompts: the transcript is
// flattened into sections, the tools are described with a block syntax the agent answers in, and
// `<tool_call>{…}</tool_call>` blocks in its answer become tool calls (ids kept, or synthesised).

import { describeMedia, syntheticCallId, type ChatMessage, type ModelRequest, type ToolCall } from 'agent/sdk'

const text = (content: ChatMessage['content']): string =>
  content === null ? '' : typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : p.type === 'image_url' ? `[image: ${p.image_url.url.slice(0, 64)}]` : describeMedia(p))).join('\n')

export function buildPrompt(request: Omit<ModelRequest, 'model'>): string {
  const out: string[] = []
  const system = request.messages.filter((m) => m.role === 'system').map((m) => text(m.content)).join('\n\n')
  if (system) out.push(`### system\n${system}`)
  if (request.tools?.length) {
    out.push(
      [
        '### tools',
        'Do not run tools yourself. To call a tool, answer with one block per call and then stop:',
        '<tool_call>{"id": "<unique id>", "name": "<tool name>", "arguments": {<arguments as JSON>}}</tool_call>',
        'The results come back in the next prompt. Available tools:',
        ...request.tools.map((t) => `- ${t.name}: ${t.description}\n  parameters: ${JSON.stringify(t.parameters)}`),
      ].join('\n'),
    )
  }
  for (const m of request.messages) {
    if (m.role === 'system') continue
    if (m.role === 'tool') out.push(`### tool result (id: ${m.toolCallId ?? ''})\n${text(m.content)}`)
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `<tool_call>${JSON.stringify({ id: c.id, name: c.name, arguments: safeJson(c.arguments) })}</tool_call>`)
      out.push(`### assistant\n${[text(m.content), ...calls].filter(Boolean).join('\n')}`)
    } else out.push(`### user\n${text(m.content)}`)
  }
  return out.join('\n\n')
}

function safeJson(arguments_: string): unknown {
  try {
    return JSON.parse(arguments_ || '{}')
  } catch {
    return arguments_
  }
}

const BLOCK = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g

/** Splits an answer into visible text and tool calls. */
export function parseAnswer(answer: string): { content: string; toolCalls: ToolCall[] } {
  const toolCalls: ToolCall[] = []
  for (const match of answer.matchAll(BLOCK)) {
    try {
      const call = JSON.parse(match[1]!)
      if (!call || typeof call.name !== 'string') continue
      const args = call.arguments ?? call.input ?? {}
      toolCalls.push({ id: typeof call.id === 'string' && call.id ? call.id : syntheticCallId(toolCalls.length), name: call.name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })
    } catch {
      // A malformed block stays in the visible text for the model to see in the next turn.
    }
  }
  const content = toolCalls.length ? answer.replace(BLOCK, '').trim() : answer
  return { content, toolCalls }
}

const OPEN = '<tool_call>'
const CLOSE = '</tool_call>'

/** How many characters at the end of `text` could be the start of `tag`. */
function partialTag(text: string, tag: string): number {
  for (let k = Math.min(tag.length - 1, text.length); k > 0; k--) if (tag.startsWith(text.slice(-k))) return k
  return 0
}

/**
 * The part of a growing answer that is safe to show, fed chunk by chunk: the text outside tool-call
 * blocks, up to a block that has not closed yet. Each chunk is read once and at most a tag's length
 * is held back: scanning the whole answer again for every chunk would take minutes of CPU before an
 * endless answer reached its cap.
 */
export class VisibleText {
  private held = ''
  private inBlock = false

  /** What `chunk` makes newly visible ('' for nothing). */
  push(chunk: string): string {
    let text = this.held + chunk
    let out = ''
    for (;;) {
      const at = text.indexOf(this.inBlock ? CLOSE : OPEN)
      if (at < 0) {
        // Hold back what could be the start of the tag looked for; inside a block nothing is shown.
        const keep = this.inBlock ? Math.min(text.length, CLOSE.length - 1) : partialTag(text, OPEN)
        if (!this.inBlock) out += text.slice(0, text.length - keep)
        this.held = text.slice(text.length - keep)
        return out
      }
      if (!this.inBlock) out += text.slice(0, at)
      text = text.slice(at + (this.inBlock ? CLOSE : OPEN).length)
      this.inBlock = !this.inBlock
    }
  }
}
