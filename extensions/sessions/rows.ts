// Row ↔ record mapping for sessions and messages, shared by the SQLite and PostgreSQL stores, and
// the checks a new row passes first. Content parts are stored as JSON with their text flattened
// into `content`, so full-text search sees them too. PostgreSQL answers BIGINT columns as strings
// (they may exceed 2^53); the counters and epoch milliseconds here never do, so they become numbers.

import { newSessionId, UsageError, type ChatMessage, type ContentPart, type NewSession, type SessionRecord, type StoredMessage, type ToolCall, type Usage } from 'agent/sdk'
import { sanitizeTitle } from './titles.ts'

const ID = /^[A-Za-z0-9_.:-]{1,128}$/
const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

export function assertSessionId(id: string): void {
  if (!ID.test(id)) throw new UsageError(`invalid session id "${id}" (1-128 characters of letters, digits, _ . : -)`)
}

export function assertRoles(messages: readonly ChatMessage[]): void {
  for (const m of messages) if (!ROLES.has(m.role)) throw new UsageError(`invalid message role "${String(m.role)}"`)
}

const int = (n: number | undefined) => (Number.isFinite(n) ? Math.max(0, Math.round(n!)) : 0)
const num = (n: number | undefined) => (Number.isFinite(n) ? Math.max(0, n!) : 0)

/** What an append or addUsage adds to a session's totals: whole, non-negative numbers. */
export function usageDelta(usage: Partial<Usage> | undefined, apiCalls: number | undefined) {
  return { input: int(usage?.inputTokens), output: int(usage?.outputTokens), reasoning: int(usage?.reasoningTokens), cost: num(usage?.costUsd), calls: int(apiCalls) }
}

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

/** A new session checked (id, title, message roles) and its row, as both stores insert it. */
export function newSession(input: NewSession): { row: SessionRow; title: string | undefined; messages: readonly ChatMessage[] } {
  const id = input.id ?? newSessionId()
  assertSessionId(id)
  const title = sanitizeTitle(input.title)
  const messages = input.messages ?? []
  assertRoles(messages)
  return { row: newSessionRow(input, id, title, Date.now()), title, messages }
}

function newSessionRow(input: NewSession, id: string, title: string | undefined, now: number): SessionRow {
  const totals = usageDelta(input.usage, input.apiCalls)
  return {
    id,
    title: title ?? null,
    parent_id: input.parentId ?? null,
    lineage: input.parentId ? (input.lineage ?? 'branch') : null,
    source: input.source || 'cli',
    user_id: input.userId ?? null,
    chat_id: input.chatId ?? null,
    model: input.model ?? null,
    provider: input.provider ?? null,
    personality: input.personality ?? null,
    cwd: input.cwd ?? null,
    started_at: now,
    updated_at: now,
    ended_at: null,
    end_reason: null,
    last_exit_reason: input.lastExitReason ?? null,
    message_count: input.messages?.length ?? 0,
    input_tokens: totals.input,
    output_tokens: totals.output,
    reasoning_tokens: totals.reasoning,
    cost_usd: totals.cost,
    api_calls: totals.calls,
  }
}

export function toSession(row: SessionRow): SessionRecord {
  const input = Number(row.input_tokens)
  const output = Number(row.output_tokens)
  const record: SessionRecord = {
    id: row.id,
    source: row.source,
    startedAt: Number(row.started_at),
    updatedAt: Number(row.updated_at),
    messageCount: Number(row.message_count),
    usage: {
      inputTokens: input,
      outputTokens: output,
      reasoningTokens: Number(row.reasoning_tokens),
      totalTokens: input + output,
      costUsd: Number(row.cost_usd),
    },
    apiCalls: Number(row.api_calls),
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
  opt(record, 'endedAt', row.ended_at === null ? null : Number(row.ended_at))
  opt(record, 'endReason', row.end_reason)
  opt(record, 'lastExitReason', row.last_exit_reason)
  return record
}

export function partsText(parts: readonly ContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '')).filter(Boolean).join('\n')
}

export type MessageColumns = ReturnType<typeof messageColumns>

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

/** What was written, as read back: parts and tool calls are copies, absent fields are left out. */
export function storedMessage(id: number, sessionId: string, createdAt: number, columns: MessageColumns): StoredMessage {
  return toMessage({ id, session_id: sessionId, created_at: createdAt, ...columns })
}

export function toMessage(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    id: Number(row.id),
    sessionId: row.session_id,
    createdAt: Number(row.created_at),
    role: row.role,
    content: row.parts !== null ? (JSON.parse(row.parts) as ContentPart[]) : row.content,
  }
  if (row.tool_calls) message.toolCalls = JSON.parse(row.tool_calls) as ToolCall[]
  opt(message, 'toolCallId', row.tool_call_id)
  opt(message, 'name', row.name)
  opt(message, 'reasoning', row.reasoning)
  return message
}
