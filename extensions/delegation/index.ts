// Delegation: the `delegate_task` tool launches subagents through the runtime service — each with
// its own context, restricted toolsets, the subagent model from `delegation.*` config (never chosen
// per call), several tasks in parallel, and a depth limit — and returns one delegated task result
// record per task.

import { defineExtension, MODELS_SERVICE, randomHex, RUNTIME_SERVICE, type AgentRuntime, type ModelsService } from 'agent/sdk'
import { runChild, type ChildTask } from './run-child.ts'

interface DelegationConfig {
  base_url?: string
  api_key?: string
  provider?: string
  model?: string
  max_depth: number
  max_concurrent_children: number
  max_tasks: number
  max_iterations: number
  default_toolsets: string[]
  blocked_tools: string[]
}

interface TaskInput {
  goal?: unknown
  context?: unknown
  toolsets?: unknown
}

export default defineExtension<DelegationConfig>({
  name: 'delegation',
  version: '1.0.0',
  configKey: 'delegation',
  config: {
    type: 'object',
    properties: {
      base_url: { type: 'string', pattern: '^https?://' },
      api_key: { type: 'string' },
      provider: { type: 'string' },
      model: { type: 'string' },
      max_depth: { type: 'integer', minimum: 1, maximum: 5, default: 1 },
      max_concurrent_children: { type: 'integer', minimum: 1, maximum: 16, default: 3 },
      max_tasks: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
      max_iterations: { type: 'integer', minimum: 1, default: 50 },
      default_toolsets: { type: 'array', items: { type: 'string' }, default: ['terminal', 'file', 'web'] },
      blocked_tools: { type: 'array', items: { type: 'string' }, default: ['clarify', 'memory', 'send_message', 'execute_code'] },
    },
    additionalProperties: false,
  },
  setup(api) {
    const config = api.config as DelegationConfig
    // delegation.base_url: the runtime asks for provider `delegation:<token>`; this tap answers it
    // with a client on that endpoint (built by the models service), before the resolver's own tap.
    const endpointToken = `delegation:${randomHex(6)}`
    api.hooks.resolveModel.tapPromise({ stage: 10 }, async (request) => {
      if (request.provider !== endpointToken) return undefined
      const models = api.services.get<ModelsService>(MODELS_SERVICE)
      if (!models) throw new Error('delegation.base_url needs the models service (extension model-resolver)')
      return models.resolve({ baseUrl: config.base_url, apiKey: config.api_key ?? api.settings.env('DELEGATION_API_KEY'), model: config.model, provider: 'custom' })
    })

    api.tools.register({
      name: 'delegate_task',
      toolset: 'delegation',
      description:
        `Delegate work to subagents with their own fresh context. Give one goal, or up to ${config.max_tasks} independent tasks that run in parallel ` +
        `(${config.max_concurrent_children} at a time). Each returns a summary and a record of what it did. Subagents cannot ask the user anything, ` +
        'so put everything they need in the goal and context.',
      parameters: {
        type: 'object',
        properties: {
          goal: { type: 'string', description: 'What the subagent must achieve (single task)' },
          context: { type: 'string', description: 'Facts, paths and constraints it needs' },
          toolsets: { type: 'array', items: { type: 'string' }, description: `Toolsets it may use (default ${config.default_toolsets.join(', ')})` },
          tasks: {
            type: 'array',
            maxItems: config.max_tasks,
            items: { type: 'object', properties: { goal: { type: 'string' }, context: { type: 'string' }, toolsets: { type: 'array', items: { type: 'string' } } }, required: ['goal'] },
          },
        },
        additionalProperties: false,
      },
      available: () => (api.services.has(RUNTIME_SERVICE) ? true : 'the runtime service is not loaded'),
      async execute({ input, session, signal }) {
        const runtime = api.services.require<AgentRuntime>(RUNTIME_SERVICE)
        const depth = Number(session.extra?.delegationDepth ?? 0)
        if (depth >= config.max_depth) throw new Error(`delegation depth limit reached (delegation.max_depth ${config.max_depth}): a subagent at depth ${depth} cannot delegate further`)
        const args = (input ?? {}) as TaskInput & { tasks?: unknown }
        const tasks = normaliseTasks(args, config)
        const childDepth = depth + 1
        const disableTools = [...config.blocked_tools, ...(childDepth >= config.max_depth ? ['delegate_task'] : [])]
        const model = config.base_url ? { provider: endpointToken, model: config.model } : { provider: config.provider, model: config.model }
        const started = Date.now()
        const results = await mapLimited(tasks, config.max_concurrent_children, (task) =>
          runChild(task, { runtime, parent: session, depth: childDepth, disableTools, maxIterations: config.max_iterations, ...model, signal }),
        )
        return { results: results.sort((a, b) => a.task_index - b.task_index), total_duration_seconds: Math.round((Date.now() - started) / 10) / 100 }
      },
    })
  },
})

function normaliseTasks(args: TaskInput & { tasks?: unknown }, config: DelegationConfig): ChildTask[] {
  const list: TaskInput[] = Array.isArray(args.tasks) && args.tasks.length ? (args.tasks as TaskInput[]) : args.goal !== undefined ? [args] : []
  if (list.length === 0) throw new Error('delegate_task needs "goal" or a non-empty "tasks" list')
  if (list.length > config.max_tasks) throw new Error(`at most ${config.max_tasks} tasks per call (delegation.max_tasks)`)
  return list.map((task, index) => {
    if (typeof task.goal !== 'string' || !task.goal.trim()) throw new Error(`task ${index}: "goal" must be a non-empty string`)
    const toolsets = Array.isArray(task.toolsets) ? task.toolsets.filter((t): t is string => typeof t === 'string') : Array.isArray(args.toolsets) ? (args.toolsets as unknown[]).filter((t): t is string => typeof t === 'string') : config.default_toolsets
    return { index, goal: task.goal, ...(typeof task.context === 'string' ? { context: task.context } : typeof args.context === 'string' && list.length === 1 ? { context: args.context } : {}), toolsets }
  })
}

/** Runs `fn` over the items with at most `limit` at a time, keeping the input order of results. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
