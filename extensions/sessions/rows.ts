// Row ↔ record mapping for sessions and messages. Content parts are stored as JSON with their text
// flattened into `content`, so full-text search sees them too.

import type { ChatMessage, ContentPart, SessionRecord, StoredMessage, ToolCall } from 'agent/sdk'

export interface SessionRow {
  id: string
  title: string | null
  parent_id: string | null
  lineage: string | null
  source: string
  user_id: string | null
  chat_id: string | null
  model: string | null
  provider: string | null
  personality: string | null
  cwd: string | null
  started_at: number
  updated_at: number
  ended_at: number | null
  end_reason: string | null
  last_exit_reason: string | null
  message_count: number
  input_tokens: number
  output_tokens: number
  reasoning_tokens: number
  cost_usd: number
  api_calls: number
}

export interface MessageRow {
  id: number
  session_id: string
  role: ChatMessage['role']
  content: string | null
  parts: string | null
  tool_calls: string | null
  tool_call_id: string | null
  name: string | null
  reasoning: string | null
  created_at: number
}

/** Sets `key` only when the value is present, so records carry no `undefined` noise. */
function opt<T extends object, K extends string, V>(target: T, key: K, value: V | null | undefined): void {
  if (value !== null && value !== undefined) (target as Record<string, unknown>)[key] = value
}

export function toSession(row: SessionRow): SessionRecord {
  const record: SessionRecord = {
    id: row.id,
    source: row.source,
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    messageCount: row.message_count,
    usage: {
      inputTokens: row.input_tokens,
      outputTokens: row.output_tokens,
      reasoningTokens: row.reasoning_tokens,
      totalTokens: row.input_tokens + row.output_tokens,
      costUsd: row.cost_usd,
    },
    apiCalls: row.api_calls,
  }
  opt(record, 'title', row.title)
  opt(record, 'parentId', row.parent_id)
  opt(record, 'lineage', row.lineage)
  opt(record, 'userId', row.user_id)
  opt(record, 'chatId', row.chat_id)
  opt(record, 'model', row.model)
  opt(record, 'provider', row.provider)
  opt(record, 'personality', row.personality)
  opt(record, 'cwd', row.cwd)
  opt(record, 'endedAt', row.ended_at)
  opt(record, 'endReason', row.end_reason)
  opt(record, 'lastExitReason', row.last_exit_reason)
  return record
}

export function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n')
}

/** The columns a message is stored in. */
export function messageColumns(message: ChatMessage) {
  const content = message.content
  const isParts = Array.isArray(content)
  return {
    role: message.role,
    content: isParts ? partsText(content) : content ?? null,
    parts: isParts ? JSON.stringify(content) : null,
    tool_calls: message.toolCalls?.length ? JSON.stringify(message.toolCalls) : null,
    tool_call_id: message.toolCallId ?? null,
    name: message.name ?? null,
    reasoning: message.reasoning ?? null,
  }
}

export function toMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    id: row.id,
    sessionId: row.session_id,
    createdAt: row.created_at,
    role: row.role,
    content: row.parts !== null ? (JSON.parse(row.parts) as ContentPart[]) : row.content,
  }
  if (row.tool_calls) message.toolCalls = JSON.parse(row.tool_calls) as ToolCall[]
  opt(message, 'toolCallId', row.tool_call_id)
  opt(message, 'name', row.name)
  opt(message, 'reasoning', row.reasoning)
  return message
}
