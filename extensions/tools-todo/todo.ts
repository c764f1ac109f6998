// `todo`: the model's task list for the current session. Each call with `todos` replaces the whole
// list (the model sends every item, statuses updated); a call without it reads the list back. The
// list lives in memory per session; a change is handed to the surface (`ToolSession.plan`).

import { defineTool, PLAN_PRIORITIES, PLAN_STATUSES, type PlanEntry, type ToolDefinition } from 'agent/sdk'

const MAX_ITEMS = 100
const MAX_CONTENT_CHARS = 500
/** Sessions whose lists are kept (a long-running gateway serves many): the least recently changed go first. */
const MAX_SESSIONS = 1000

const ITEM_FIELDS = new Set(['content', 'status', 'priority'])
const MARKS: Record<PlanEntry['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' }

/** The todos input as plan entries, or an error naming the first bad item (nothing is changed). */
export function parseTodos(value: unknown): PlanEntry[] {
  if (!Array.isArray(value)) throw new Error('"todos" must be an array of {content, status, priority?} items')
  if (value.length > MAX_ITEMS) throw new Error(`"todos" has ${value.length} items; at most ${MAX_ITEMS} are kept`)
  return value.map((item: unknown, index) => {
    const at = `todos[${index}]`
    if (!item || typeof item !== 'object' || Array.isArray(item)) throw new Error(`${at} must be an object with content and status`)
    const fields = item as Record<string, unknown>
    const unknown = Object.keys(fields).find((key) => !ITEM_FIELDS.has(key))
    if (unknown) throw new Error(`${at} has an unknown field "${unknown}" (fields: content, status, priority)`)
    const content = typeof fields.content === 'string' ? fields.content.replace(/\s+/g, ' ').trim() : ''
    if (!content) throw new Error(`${at}.content must be a non-empty string`)
    if (content.length > MAX_CONTENT_CHARS) throw new Error(`${at}.content is ${content.length} characters; at most ${MAX_CONTENT_CHARS}`)
    if (!PLAN_STATUSES.includes(fields.status as PlanEntry['status'])) throw new Error(`${at}.status must be one of ${PLAN_STATUSES.join(', ')}`)
    const priority = fields.priority ?? 'medium'
    if (!PLAN_PRIORITIES.includes(priority as PlanEntry['priority'])) throw new Error(`${at}.priority must be one of ${PLAN_PRIORITIES.join(', ')}`)
    return { content, status: fields.status as PlanEntry['status'], priority: priority as PlanEntry['priority'] }
  })
}

/** The list as the model reads it back. */
export function describePlan(entries: readonly PlanEntry[]): string {
  if (!entries.length) return 'The task list is empty.'
  const done = entries.filter((e) => e.status === 'completed').length
  const lines = entries.map((e, i) => `${MARKS[e.status]} ${i + 1}. ${e.content}${e.priority === 'medium' ? '' : ` (${e.priority})`}`)
  return [`Task list (${done} of ${entries.length} completed):`, ...lines].join('\n')
}

const same = (a: readonly PlanEntry[], b: readonly PlanEntry[]) => JSON.stringify(a) === JSON.stringify(b)

export function todoTool(): ToolDefinition {
  const lists = new Map<string, PlanEntry[]>()
  return defineTool<{ todos?: unknown }>({
    name: 'todo',
    toolset: 'todo',
    description:
      'Keep a task list for a multi-step job, shown to the user as your plan. Send the WHOLE list each time ' +
      '(it replaces the previous one): every item with its status, updated as you go (one item in_progress ' +
      'at a time, completed as soon as it is done). Call without "todos" to read the list.',
    parameters: {
      type: 'object',
      properties: {
        todos: {
          type: 'array',
          maxItems: MAX_ITEMS,
          description: 'The complete task list, in order',
          items: {
            type: 'object',
            properties: {
              content: { type: 'string', description: 'What the task is, in one line' },
              status: { type: 'string', enum: [...PLAN_STATUSES] },
              priority: { type: 'string', enum: [...PLAN_PRIORITIES], description: 'Default medium' },
            },
            required: ['content', 'status'],
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
    execute({ input, session }) {
      const current = lists.get(session.id) ?? []
      if (input.todos === undefined) return describePlan(current)
      const next = parseTodos(input.todos)
      if (!same(current, next)) {
        lists.delete(session.id)
        lists.set(session.id, next)
        if (lists.size > MAX_SESSIONS) lists.delete(lists.keys().next().value!)
        session.plan?.(next)
      }
      return describePlan(next)
    },
  })
}
