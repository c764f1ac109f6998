// A stored session as Markdown: a header with its facts, then each message; tool calls and their
// output as fenced blocks.

import type { ChatMessage, SessionRecord, StoredMessage } from 'agent/sdk'

const text = (content: ChatMessage['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((p) => (p.type === 'text' ? p.text : `[image]`)).join('\n')

// A fence longer than any backtick run inside, so output cannot close it early.
const fence = (body: string) => {
  const longest = Math.max(2, ...(body.match(/`+/g) ?? []).map((r) => r.length))
  const ticks = '`'.repeat(longest + 1)
  return `${ticks}\n${body}\n${ticks}`
}

export function transcriptMarkdown(session: SessionRecord, messages: readonly StoredMessage[]): string {
  const lines = [
    `# ${session.title ?? session.id}`,
    '',
    `- Session: ${session.id}`,
    `- Source: ${session.source}`,
    ...(session.model ? [`- Model: ${session.model}`] : []),
    `- Started: ${new Date(session.startedAt).toISOString()}`,
    `- Tokens: ${session.usage.totalTokens}`,
    '',
  ]
  for (const m of messages) {
    if (m.role === 'system') continue
    if (m.role === 'tool') {
      lines.push(`**Tool output** (${m.name ?? m.toolCallId ?? 'tool'}):`, '', fence(text(m.content)), '')
      continue
    }
    lines.push(`## ${m.role === 'user' ? 'User' : 'Assistant'}`, '')
    const body = text(m.content)
    if (body) lines.push(body, '')
    for (const call of m.toolCalls ?? []) lines.push(`**Tool call** \`${call.name}\`:`, '', fence(call.arguments), '')
  }
  return lines.join('\n')
}
