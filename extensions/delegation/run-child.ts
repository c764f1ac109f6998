// One subagent: a fresh conversation through the runtime service with restricted toolsets, the
// subagent model, the depth carried in `session.extra`, and the delegated task result record.

import { errorMessage, type AgentRuntime, type ExitReason, type RunRequest, type ToolSession } from 'agent/sdk'
import { TraceBuilder, type TraceEntry } from './trace.ts'

export interface DelegatedTaskResult {
  task_index: number
  status: 'completed' | 'interrupted' | 'failed'
  summary: string
  model: string
  exit_reason: ExitReason
  tokens: { input: number; output: number }
  tool_trace: TraceEntry[]
  api_calls: number
  duration_seconds: number
  error?: string
}

export interface ChildTask {
  index: number
  goal: string
  context?: string
  toolsets: string[]
}

export interface ChildOptions {
  runtime: AgentRuntime
  parent: ToolSession
  depth: number
  /** Tools the child must not have (delegate_task at the depth limit, clarify, memory …). */
  disableTools: string[]
  maxIterations: number
  provider?: string
  model?: string
  signal: AbortSignal
}

const CHILD_PROMPT = [
  'You are a subagent working on one task delegated by another agent.',
  'Work autonomously with the tools you have; you cannot ask the user questions.',
  'When done, answer with a concise summary of what you did and found: it is all the other agent will see.',
].join(' ')

export async function runChild(task: ChildTask, options: ChildOptions): Promise<DelegatedTaskResult> {
  const started = Date.now()
  const trace = new TraceBuilder()
  const input = task.context ? `${task.goal}\n\nContext:\n${task.context}` : task.goal
  const request: RunRequest = {
    input,
    systemPrompt: CHILD_PROMPT,
    toolsets: task.toolsets,
    maxIterations: options.maxIterations,
    cwd: options.parent.cwd,
    persist: false,
    signal: options.signal,
    ...(options.parent.source ? { source: { platform: options.parent.source.platform, userId: options.parent.source.userId, chatId: options.parent.source.chatId } } : {}),
    ...(options.provider ? { provider: options.provider } : {}),
    ...(options.model ? { model: options.model } : {}),
    disableTools: options.disableTools,
    extra: { ...(options.parent.extra ?? {}), delegationDepth: options.depth, delegatedBy: options.parent.id },
    onEvent(event) {
      if (event.type === 'tool.start') trace.start(event.callId, event.name, event.input)
      else if (event.type === 'tool.end') trace.end(event.callId, event.name, event.ok, event.resultBytes)
    },
  }
  const seconds = () => Math.round((Date.now() - started) / 10) / 100
  try {
    const result = await options.runtime.run(request)
    const summary = result.answer.trim()
    const status = result.exitReason === 'interrupted' ? 'interrupted' : summary && summary !== '(empty)' ? 'completed' : 'failed'
    return {
      task_index: task.index,
      status,
      summary,
      model: result.model,
      exit_reason: result.exitReason,
      tokens: { input: result.usage.inputTokens, output: result.usage.outputTokens },
      tool_trace: trace.entries(),
      api_calls: result.apiCalls,
      duration_seconds: seconds(),
      ...(status === 'failed' ? { error: 'the subagent gave no summary' } : {}),
    }
  } catch (error) {
    return {
      task_index: task.index,
      status: options.signal.aborted ? 'interrupted' : 'failed',
      summary: '',
      model: options.model ?? '',
      exit_reason: 'interrupted',
      tokens: { input: 0, output: 0 },
      tool_trace: trace.entries(),
      api_calls: 0,
      duration_seconds: seconds(),
      error: errorMessage(error),
    }
  }
}
