// A session's plan: the task list the model keeps with the `todo` tool (extensions/tools-todo).
// A tool hands the whole list to `ToolSession.plan`; the runtime carries it as a `plan` run event,
// which surfaces show (an ACP editor as a `plan` session update, the interactive chat as a list).
// The transcript is where a plan outlives the process: its last accepted `todo` call holds it.

import type { ChatMessage } from './model.ts'

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const
export const PLAN_PRIORITIES = ['high', 'medium', 'low'] as const
/** The tool that sets the plan. */
export const PLAN_TOOL = 'todo'

export type PlanStatus = (typeof PLAN_STATUSES)[number]
export type PlanPriority = (typeof PLAN_PRIORITIES)[number]

/** One task of the plan, shaped as ACP's PlanEntry. */
export interface PlanEntry {
  content: string
  status: PlanStatus
  priority: PlanPriority
}

export const MAX_PLAN_ENTRIES = 100
export const MAX_PLAN_CONTENT_CHARS = 500
const ENTRY_FIELDS = new Set(['content', 'status', 'priority'])

/** A `todos` list as plan entries (priority defaults to medium), or an error naming the first bad item. */
export function parsePlanEntries(value: unknown): PlanEntry[] {
  if (!Array.isArray(value)) throw new Error('"todos" must be an array of {content, status, priority?} items')
  if (value.length > MAX_PLAN_ENTRIES) throw new Error(`"todos" has ${value.length} items; at most ${MAX_PLAN_ENTRIES} are kept`)
  return value.map((item: unknown, index) => {
    const at = `todos[${index}]`
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new Error(`${at} must be an object with content and status`)
    const fields = item as Record<string, unknown>
    const unknown = Object.keys(fields).find((key) => !ENTRY_FIELDS.has(key))
    if (unknown) throw new Error(`${at} has an unknown field "${unknown}" (fields: content, status, priority)`)
    const content = typeof fields.content === 'string' ? fields.content.replace(/\s+/g, ' ').trim() : ''
    if (!content) throw new Error(`${at}.content must be a non-empty string`)
    if (content.length > MAX_PLAN_CONTENT_CHARS) throw new Error(`${at}.content is ${content.length} characters; at most ${MAX_PLAN_CONTENT_CHARS}`)
    if (!PLAN_STATUSES.includes(fields.status as PlanStatus)) throw new Error(`${at}.status must be one of ${PLAN_STATUSES.join(', ')}`)
    const priority = fields.priority ?? 'medium'
    if (!PLAN_PRIORITIES.includes(priority as PlanPriority)) throw new Error(`${at}.priority must be one of ${PLAN_PRIORITIES.join(', ')}`)
    return { content, status: fields.status as PlanStatus, priority: priority as PlanPriority }
  })
}

/** Tool results that report a failure start with one of these (runtime wording). */
const FAILED_RESULT = /^(Error|Blocked|Interrupted)\b/

/**
 * The plan a stored `todo` call set: its entries when the call wrote a valid list and its result
 * says it was accepted; undefined for a read, a refused call or one without a stored result.
 */
export function planOfCall(argumentsText: string, resultText: string | undefined): PlanEntry[] | undefined {
  if (resultText === undefined || FAILED_RESULT.test(resultText)) return undefined
  try {
    const todos = (JSON.parse(argumentsText || '{}') as { todos?: unknown } | null)?.todos
    return todos === undefined ? undefined : parsePlanEntries(todos)
  } catch {
    return undefined
  }
}

const textOf = (content: ChatMessage['content']) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((p) => (p.type === 'text' ? p.text : '')).join('\n') : '')

/** The plan as the transcript leaves it (its last accepted `todo` call), undefined when none set one. */
export function planFromHistory(messages: readonly ChatMessage[]): PlanEntry[] | undefined {
  const results = new Map<string, string>()
  for (const message of messages) if (message.role === 'tool' && message.toolCallId) results.set(message.toolCallId, textOf(message.content))
  for (let i = messages.length - 1; i >= 0; i--) {
    const calls = messages[i]!.role === 'assistant' ? (messages[i]!.toolCalls ?? []) : []
    for (let j = calls.length - 1; j >= 0; j--) {
      const call = calls[j]!
      if (call.name !== PLAN_TOOL) continue
      const plan = planOfCall(call.arguments, results.get(call.id))
      if (plan) return plan
    }
  }
  return undefined
}
