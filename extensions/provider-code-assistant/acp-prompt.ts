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

/** The part of a growing answer that is safe to show: no tool-call block, complete or not. */
export function visiblePrefix(answer: string): string {
  const stripped = answer.replace(BLOCK, '')
  const open = stripped.indexOf('<tool_call>')
  if (open >= 0) return stripped.slice(0, open)
  // Hold back a trailing fragment that could be the start of a block.
  for (let k = Math.min('<tool_call>'.length - 1, stripped.length); k > 0; k--) {
    if ('<tool_call>'.startsWith(stripped.slice(-k))) return stripped.slice(0, -k)
  }
  return stripped
}
