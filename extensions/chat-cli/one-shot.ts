// `agent chat -q "<prompt>"` (or a prompt piped on stdin): one run through the runtime, then the
// answer on stdout — or with --json one document {session_id, answer, exit_reason, usage,
// api_calls, last_reasoning, tool_calls}. Tool calls are told on stderr as they start and end
// (tool-calls.ts; JSON lines with --json, nothing with --quiet). A failure is one line on stderr.

import { AgentError, RUNTIME_SERVICE, SESSIONS_SERVICE, UsageError, type CliContext, type RunResult, type RuntimeService, type SessionStore } from 'agent/sdk'
import { ToolCallLog, type ToolCallRecord } from './tool-calls.ts'

export interface ChatOptions {
  query: string
  json: boolean
  /** --quiet: no tool lines on stderr. */
  quiet?: boolean
  /** `-c` given: '' for the latest CLI session, else a title or id. */
  continueName?: string
  resume?: string
  provider?: string
  model?: string
  skills: string[]
  personality?: string
  extra: Record<string, unknown>
}

/** The session a `-c [name]` or `--resume <id|title>` points at (its compression tip), if any. */
export async function sessionToContinue(ctx: CliContext, options: Pick<ChatOptions, 'continueName' | 'resume'>): Promise<string | undefined> {
  if (options.continueName === undefined && options.resume === undefined) return undefined
  if (options.continueName !== undefined && options.resume !== undefined) throw new UsageError('use either -c/--continue or --resume, not both')
  const store = ctx.services.get<SessionStore>(SESSIONS_SERVICE)
  if (!store) throw new AgentError('E_STATE', 'sessions are not available (the sessions extension is not loaded)')
  const name = (options.resume ?? options.continueName ?? '').trim()
  if (!name) {
    const latest = await store.latest({ source: 'cli' })
    if (!latest) throw new UsageError('there is no earlier CLI session to continue')
    return latest.id
  }
  const found = await store.resolve(name)
  if (!found) throw new UsageError(`no session has the id or title "${name}" (see agent sessions list)`)
  return found.id
}

export function resultJson(result: RunResult, toolCalls: ToolCallRecord[] = []) {
  const usage: Record<string, number> = {
    input_tokens: result.usage.inputTokens,
    output_tokens: result.usage.outputTokens,
    total_tokens: result.usage.totalTokens,
  }
  if (result.usage.reasoningTokens !== undefined) usage.reasoning_tokens = result.usage.reasoningTokens
  if (result.usage.costUsd !== undefined) usage.cost_usd = result.usage.costUsd
  return {
    session_id: result.sessionId,
    answer: result.answer,
    exit_reason: result.exitReason,
    usage,
    api_calls: result.apiCalls,
    last_reasoning: result.lastReasoning ?? null,
    tool_calls: toolCalls,
  }
}

export async function runOneShot(ctx: CliContext, options: ChatOptions): Promise<number> {
  const runtime = ctx.services.get<RuntimeService>(RUNTIME_SERVICE)
  if (!runtime) throw new AgentError('E_STATE', 'the agent runtime is not available (the runtime extension is not loaded)')
  const sessionId = await sessionToContinue(ctx, options)
  // -w: the turn runs in an isolated git worktree, removed afterwards unless it changed something.
  let cwd = process.cwd()
  const worktree = options.extra.worktree ? await (await import('./worktree.ts')).createWorktree(cwd) : undefined
  if (worktree) cwd = worktree.path
  // `chat` mode: extensions that bring tools up on ready (MCP servers …) do so before the run.
  await ctx.start('chat')
  const tools = new ToolCallLog(options.quiet ? 'quiet' : options.json ? 'json' : 'text', (line) => ctx.err(line))
  let result: RunResult
  try {
    result = await runtime.run({
      input: options.query,
      ...(sessionId ? { sessionId } : {}),
      source: { platform: 'cli' },
      provider: options.provider,
      model: options.model,
      skills: options.skills.length ? options.skills : undefined,
      personality: options.personality,
      cwd,
      signal: ctx.signal,
      extra: options.extra,
      onEvent: (event) => tools.event(event),
    })
  } finally {
    if (worktree) ctx.err(await worktree.finish().catch((error: Error) => `worktree: ${error.message}`))
  }
  await ctx.services.get<SessionStore>(SESSIONS_SERVICE)?.end(result.sessionId, 'one_shot').catch(() => undefined)
  const code = result.exitReason === 'interrupted' ? 130 : 0
  if (options.json) {
    ctx.json(resultJson(result, tools.records()))
    return code
  }
  if (result.lastReasoning && ctx.settings.get('display.show_reasoning') === true) ctx.err(`reasoning: ${result.lastReasoning}`)
  if (result.answer) ctx.out(result.answer)
  if (result.exitReason === 'max_iterations') ctx.err(`agent: stopped after ${result.apiCalls} model calls (max_iterations; raise AGENT_MAX_ITERATIONS to allow more)`)
  if (result.exitReason === 'interrupted') ctx.err('agent: interrupted')
  return code
}

/** The whole of a piped stdin (bounded), for `echo "…" | agent chat`. */
export async function readPipedPrompt(stdin: NodeJS.ReadableStream, maxBytes = 10 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer)
    size += buffer.length
    if (size > maxBytes) throw new UsageError(`the prompt on stdin is larger than ${maxBytes} bytes`)
    chunks.push(buffer)
  }
  return Buffer.concat(chunks).toString('utf8').trim()
}
