// A session's plan: the task list the model keeps with the `todo` tool (extensions/tools-todo).
// A tool hands the whole list to `ToolSession.plan`; the runtime carries it as a `plan` run event,
// which surfaces show (an ACP editor as a `plan` session update, the interactive chat as a list).

export const PLAN_STATUSES = ['pending', 'in_progress', 'completed'] as const
export const PLAN_PRIORITIES = ['high', 'medium', 'low'] as const

export type PlanStatus = (typeof PLAN_STATUSES)[number]
export type PlanPriority = (typeof PLAN_PRIORITIES)[number]

/** One task of the plan, shaped as ACP's PlanEntry. */
export interface PlanEntry {
  content: string
  status: PlanStatus
  priority: PlanPriority
}
