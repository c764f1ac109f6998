// Context compression: the older part of a conversation is summarised by the summary model and
// replaced by that summary; recent messages stay verbatim. The split never separates a tool result
// from the call that asked for it. A summary answer that carries no text (null, parts, tool calls)
// falls back to a mechanical digest instead of failing.

import type { ChatMessage, ModelClient } from 'agent/sdk'

export interface Split {
  head: ChatMessage[]
  tail: ChatMessage[]
}

/**
 * Keeps about `keepRecent` messages. The tail starts at a user message when one is near enough;
 * otherwise at an assistant message, with the turn's user message pinned in front of it so the
 * continuation still knows what was asked.
 */
export function splitForCompression(messages: readonly ChatMessage[], keepRecent: number): Split {
  const n = messages.length
  const target = n - Math.max(1, keepRecent)
  if (target < 1) return { head: [], tail: [...messages] }
  for (let i = target; i >= Math.max(1, target - keepRecent); i--) {
    if (messages[i]!.role === 'user') return { head: messages.slice(0, i), tail: messages.slice(i) }
  }
  let start = -1
  for (let i = target; i >= 1; i--) if (messages[i]!.role === 'assistant') { start = i; break }
  if (start === -1) for (let i = target + 1; i < n; i++) if (messages[i]!.role === 'assistant') { start = i; break }
  if (start < 1) return { head: [], tail: [...messages] }
  let pinned: ChatMessage | undefined
  for (let i = start - 1; i >= 0; i--) if (messages[i]!.role === 'user') { pinned = messages[i]; break }
  return { head: messages.slice(0, start), tail: pinned ? [pinned, ...messages.slice(start)] : messages.slice(start) }
}

const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)} […${text.length - max} characters left out]`)

function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (p.type === 'text' ? p.text : `[${p.type}]`)).join('\n')
  return ''
}

export function transcript(summaries: readonly string[], head: readonly ChatMessage[], maxChars: number): string {
  const lines: string[] = []
  for (const summary of summaries) lines.push(`EARLIER SUMMARY:\n${summary}`)
  for (const m of head) {
    const text = clip(contentText(m.content), m.role === 'tool' ? 2000 : 6000)
    if (m.role === 'user') lines.push(`USER: ${text}`)
    else if (m.role === 'assistant') {
      const calls = (m.toolCalls ?? []).map((c) => `[called ${c.name} ${clip(c.arguments, 500)}]`).join(' ')
      lines.push(`ASSISTANT: ${[text, calls].filter(Boolean).join(' ')}`)
    } else if (m.role === 'tool') lines.push(`TOOL RESULT${m.name ? ` (${m.name})` : ''}: ${text}`)
    else lines.push(`NOTE: ${text}`)
  }
  let joined = lines.join('\n\n')
  if (joined.length > maxChars) {
    const keep = Math.floor(maxChars / 2)
    joined = `${joined.slice(0, keep)}\n\n[… middle of the transcript left out …]\n\n${joined.slice(joined.length - keep)}`
  }
  return joined
}

const SUMMARY_INSTRUCTIONS = [
  'You summarise the earlier part of a conversation between a user and an AI agent that uses tools, so that the agent can continue the work with only your summary.',
  'Keep: what the user wants and asked for, decisions and constraints, facts learned (file paths, names, values, commands, errors), what was done and its results, and what remains to do.',
  'Be concise and concrete. Write plain text only; do not call tools.',
].join('\n')

/** Text of a summary answer, whatever shape it came in. */
export function summaryText(response: { content?: unknown }): string {
  const content = response.content
  if (typeof content === 'string') return content.trim()
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : ''))
      .join('\n')
      .trim()
  }
  return ''
}

/** Used when the summary model gives no text: the user's requests, so the goal is not lost. */
export function mechanicalDigest(summaries: readonly string[], head: readonly ChatMessage[]): string {
  const asks = head.filter((m) => m.role === 'user').map((m) => `- ${clip(contentText(m.content).replace(/\s+/g, ' '), 300)}`)
  const parts = ['(No summary text was available; this digest lists the earlier requests.)', ...summaries.map((s) => clip(s, 2000)), ...asks.slice(-20)]
  return clip(parts.join('\n'), 6000)
}

export interface SummariseOptions {
  client: ModelClient
  summaries: readonly string[]
  head: readonly ChatMessage[]
  maxTokens: number
  signal?: AbortSignal
}

export interface SummaryResult {
  text: string
  /** Set when the summary model answered without text and a digest was used. */
  fallback?: string
  usage?: { inputTokens: number; outputTokens: number }
}

export async function summarise(options: SummariseOptions): Promise<SummaryResult> {
  const window = options.client.contextLength ?? 128_000
  const maxChars = Math.max(8_000, Math.floor((window - options.maxTokens) * 0.7) * 4)
  const response = await options.client.complete(
    {
      messages: [
        { role: 'system', content: SUMMARY_INSTRUCTIONS },
        { role: 'user', content: `Summarise this conversation:\n\n${transcript(options.summaries, options.head, maxChars)}` },
      ],
      maxTokens: options.maxTokens,
    },
    { signal: options.signal },
  )
  const text = summaryText(response as { content?: unknown })
  const usage = response.usage ? { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens } : undefined
  if (text) return { text, usage }
  return { text: mechanicalDigest(options.summaries, options.head), fallback: 'the summary model answered without text', usage }
}

export function summaryMessage(text: string, parentSessionId: string | undefined): string {
  const from = parentSessionId ? ` (continued from session ${parentSessionId})` : ''
  return `# Summary of the earlier conversation${from}\n${text}`
}
