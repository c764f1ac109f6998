// `todo`: the model's task list for the current session. Each call with `todos` replaces the whole
// list (the model sends every item, statuses updated); a call without it reads the list back. The
// list is kept in memory per session; a session this process has not seen yet starts from its
// transcript (the last accepted call). A change is handed to the surface (`ToolSession.plan`).

import { defineTool, errorMessage, MAX_PLAN_ENTRIES, parsePlanEntries, PLAN_PRIORITIES, PLAN_STATUSES, PLAN_TOOL, planFromHistory, SESSIONS_SERVICE, type PlanEntry, type Services, type SessionStore, type ToolDefinition } from 'agent/sdk'

/** Sessions whose lists are kept (a long-running gateway serves many): the least recently used go first. */
const MAX_SESSIONS = 1000

const MARKS: Record<PlanEntry['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' }

/** The list as the model reads it back. */
export function describePlan(entries: readonly PlanEntry[]): string {
  if (!entries.length) return 'The task list is empty.'
  const done = entries.filter((e) => e.status === 'completed').length
  const lines = entries.map((e, i) => `${MARKS[e.status]} ${i + 1}. ${e.content}${e.priority === 'medium' ? '' : ` (${e.priority})`}`)
  return [`Task list (${done} of ${entries.length} completed):`, ...lines].join('\n')
}

const same = (a: readonly PlanEntry[], b: readonly PlanEntry[]) => JSON.stringify(a) === JSON.stringify(b)

export function todoTool(services: Pick<Services, 'get'>): ToolDefinition {
  const lists = new Map<string, PlanEntry[]>()

  const remember = (sessionId: string, entries: PlanEntry[]) => {
    lists.delete(sessionId)
    lists.set(sessionId, entries)
    if (lists.size > MAX_SESSIONS) lists.delete(lists.keys().next().value!)
  }

  /** The session's list: from memory, else from its stored transcript (no store: empty). */
  const current = async (sessionId: string): Promise<PlanEntry[]> => {
    const kept = lists.get(sessionId)
    if (kept) return kept
    const store = services.get<SessionStore>(SESSIONS_SERVICE)
    const stored = store ? (planFromHistory(await store.messages(sessionId)) ?? []) : []
    remember(sessionId, stored)
    return stored
  }

  return defineTool<{ todos?: unknown }>({
    name: PLAN_TOOL,
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
          maxItems: MAX_PLAN_ENTRIES,
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
    async execute({ input, session }) {
      const next = input.todos === undefined ? undefined : parsePlanEntries(input.todos)
      let before: PlanEntry[]
      try {
        before = await current(session.id)
      } catch (error) {
        // A read must not pass an unknown list off as empty; a new list does not need the old one.
        if (!next) throw new Error(`the stored task list could not be read: ${errorMessage(error)}`)
        before = []
      }
      if (!next) return describePlan(before)
      if (!same(before, next)) {
        remember(session.id, next)
        session.plan?.(next)
      }
      return describePlan(next)
    },
  })
}
