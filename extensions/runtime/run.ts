// The conversation loop: model call → tool calls (paired to their results by id) → model call …
// until the model answers without tools (`completed`), the run is aborted (`interrupted`) or the
// iteration cap is reached (`max_iterations`). Every message is stored as it happens, so a crash
// loses nothing acknowledged. Retries of transient provider failures live in the provider kit,
// not here (one place).

import {
  acceptedModalities,
  AgentError,
  errorCode,
  errorMessage,
  gateToolMedia,
  linkAbort,
  observeLater,
  UsageError,
  type ChatMessage,
  type ExtensionApi,
  type ModelClient,
  type ModelRequest,
  type ModelResponse,
  type RunEvent,
  type RunRequest,
  type RunResult,
  type SessionStore,
  type ToolCall,
  type ToolChoice,
  type ToolSchema,
  type ToolTraceEntry,
  type Usage,
  withSpan,
} from 'agent/sdk'
import { compressConversation } from './compaction.ts'
import { estimateTokens, compressionSettings } from './context.ts'
import { openConversation, queueCreate, type Conversation } from './conversation.ts'
import { resolveClient } from './models.ts'
import { buildSystemPrompt, personalityPrompt } from './prompt.ts'
import { runRedaction } from './redaction.ts'
import { runtimeSettings } from './settings.ts'
import { skillsPrompt } from './skills-prompt.ts'
import { ensureCallIds, offeredTools, runBatch, schemaChars, toolSchemas, type OfferedTool } from './tools.ts'
import { addUsage, emptyUsage, pricedUsage } from './usage.ts'

function emitFn(api: ExtensionApi<any>, request: RunRequest) {
  return (event: RunEvent) => {
    if (!request.onEvent) return
    try {
      request.onEvent(event)
    } catch (error) {
      api.log.warn(`a run event listener failed: ${errorMessage(error)}`)
    }
  }
}

/** The overlay of a remembered or configured personality; one that no longer exists is skipped with a warning. */
function resolvePersonality(api: ExtensionApi<any>, name: string | undefined): string | undefined {
  if (!name) return undefined
  try {
    return personalityPrompt(api.settings, name)
  } catch (error) {
    api.log.warn(`${errorMessage(error)}; running without it`)
    return undefined
  }
}

export async function runConversation(api: ExtensionApi<any>, request: RunRequest): Promise<RunResult> {
  // The run's own signal follows the caller's and the extension's (unload) while the run lasts.
  // Not AbortSignal.any: on Node 20 that pinned every run's signal (and the provider client's
  // listener on it) for the life of the process, ~10 KB a run (sdk/abort.ts).
  const link = linkAbort(request.signal, api.signal)
  try {
    // One span per run (GenAI conventions' `invoke_agent`); model and tool calls nest under it.
    return await withSpan(api.services, 'invoke_agent agent', { attributes: { 'gen_ai.operation.name': 'invoke_agent', 'agent.source': request.source?.platform } }, async (span) => {
      const result = await converse(api, request, link.signal)
      span.setAttributes({ 'gen_ai.conversation.id': result.sessionId, 'agent.exit_reason': result.exitReason, 'gen_ai.usage.input_tokens': result.usage.inputTokens, 'gen_ai.usage.output_tokens': result.usage.outputTokens })
      return result
    })
  } finally {
    link.dispose()
  }
}

async function converse(api: ExtensionApi<any>, request: RunRequest, signal: AbortSignal): Promise<RunResult> {
  if (!request.resume && typeof request.input !== 'string' && !Array.isArray(request.input)) throw new UsageError('a run needs an input (text or content parts)')
  const config = runtimeSettings(api.settings)
  const compression = compressionSettings(api.settings)
  const maxIterations = request.maxIterations ?? config.maxIterations
  if (!Number.isInteger(maxIterations) || maxIterations < 1) throw new UsageError(`maxIterations must be a positive integer (got ${String(request.maxIterations)})`)
  const emit = emitFn(api, request)
  const observe = (event: Record<string, unknown> & { type: string }) => observeLater(api, event)

  const client: ModelClient = await resolveClient(api, { provider: request.provider, model: request.model })
  // Bad input fails here, before a session is created or anything is stored.
  if (request.personality) personalityPrompt(api.settings, request.personality)
  const tools = [...offeredTools(api, { toolsets: request.toolsets, enableTools: request.enableTools, disableTools: request.disableTools }), ...runToolsOf(api, request)]
  const client_ = clientToolPlan(tools, request)
  const schemas = client_ ? [...toolSchemas(tools), ...client_.schemas] : toolSchemas(tools)
  const skills = skillsPrompt(api, request.skills, tools.some((t) => t.definition.name === 'skill_view'))

  const cwd = request.cwd ?? process.cwd()
  // What is stored and what the model reads carries no known secret (the model request is cleared
  // again as a whole below, so a beforeModelRequest tap cannot bring one back).
  const redaction = runRedaction(api)
  // Resuming after client tool calls there is no new user message.
  const input: ChatMessage | undefined = request.resume ? undefined : redaction.message({ role: 'user', content: request.input })
  const history = request.history?.map((m) => redaction.message(m))
  // Refused before a session is created for it; a stored session is checked once loaded.
  if (request.resume && !request.sessionId && history?.at(-1)?.role !== 'tool') throw new UsageError('nothing to resume: the conversation does not end with tool results')
  const conv = await openConversation(api, history ? { ...request, history } : request, { cwd, model: client.model, provider: client.provider, input })
  // A session stored before a secret was known (or before this rule) is cleared as it is loaded, so
  // the summary model of compression sees no secret either.
  conv.messages = conv.messages.map((m) => redaction.message(m))
  conv.summaries = conv.summaries.map((text) => redaction.text(text))
  const store = conv.store

  // Personality: asked for now (and remembered by the session), else the session's, else config's.
  if (request.personality && store && !conv.creating && !conv.deferredCreate && conv.session?.personality !== request.personality) {
    await store.update(conv.sessionId, { personality: request.personality })
  }
  // A continued session records the model it now runs on (after `/model`).
  if (store && conv.session && (conv.session.model !== client.model || conv.session.provider !== client.provider)) {
    await store.update(conv.sessionId, { model: client.model, provider: client.provider })
  }
  const personality = resolvePersonality(api, request.personality || conv.session?.personality || config.personality)

  const reasoningEffort = request.reasoningEffort ?? config.reasoningEffort
  const source = request.source ? { platform: request.source.platform, userId: request.source.userId, chatId: request.source.chatId } : undefined
  // Built once per set of summaries (compression replaces them); a fresh message object per call,
  // since a beforeModelRequest hook may change the one it is given.
  let prompt: { summaries: string[]; text: string } | undefined
  const systemMessage = (): ChatMessage => {
    if (prompt?.summaries !== conv.summaries) {
      prompt = { summaries: conv.summaries, text: buildSystemPrompt({ base: config.systemPrompt, personality, skills, caller: request.systemPrompt, summaries: conv.summaries, cwd }) }
    }
    return { role: 'system', content: prompt.text }
  }

  let exitRecorded = false
  /** The last write when it is stored behind the answer (RunRequest.storeBehind). */
  let stored: Promise<void> | undefined
  const settle = async (write: Promise<unknown>, last: boolean) => {
    const behind = last && request.storeBehind
    // Queued behind a create still to commit (group commit keeps the order): its failure is the one to report.
    if (conv.creating) {
      write.catch(() => undefined)
      if (behind) {
        stored = Promise.all([conv.creating, write]).then(() => undefined)
        return
      }
      await conv.creating
    }
    if (behind) stored = write.then(() => undefined)
    else await write
  }
  /** A write of the run's session: a deferred create is queued first, into the same commit. */
  const write = <T>(op: (store: SessionStore) => Promise<T>): Promise<T> => {
    queueCreate(conv)
    return op(store!)
  }
  const persist = async (messages: ChatMessage[], usage?: Usage, apiCalls?: number, lastExitReason?: RunResult['exitReason']) => {
    conv.messages.push(...messages)
    if (!store) return
    const totals = usage || apiCalls || lastExitReason ? { usage, apiCalls, lastExitReason } : undefined
    if (lastExitReason !== undefined && conv.deferredCreate) {
      // The run's first write is its last (answered in one call, stored behind): the session is
      // created with its input, the answer and the totals, instead of created and then updated.
      queueCreate(conv, { messages, ...totals })
      await settle(conv.creating!, true)
    } else {
      await settle(write((s) => s.append(conv.sessionId, messages, totals)), lastExitReason !== undefined)
    }
    if (lastExitReason) exitRecorded = true
  }

  const usage = emptyUsage()
  const trace: ToolTraceEntry[] = []
  let apiCalls = 0
  let answer = ''
  let lastReasoning: string | undefined
  let exitReason: RunResult['exitReason'] = 'completed'
  let pendingToolCalls: ToolCall[] | undefined
  // Prompt tokens the provider reported for the last call, and how many messages that call saw.
  let measured: { tokens: number; messages: number } | undefined

  observe({ type: 'run.start', sessionId: conv.sessionId, provider: client.provider, model: client.model })
  // Streaming frontends (the API server's X-Agent-Session-Id) learn the session before any text.
  emit({ type: 'session', sessionId: conv.sessionId })
  if (input && !conv.inputStored) await persist([input])
  if (request.resume && conv.messages.at(-1)?.role !== 'tool') throw new UsageError('nothing to resume: the conversation does not end with tool results')

  const maybeCompress = async () => {
    if (!compression.enabled) return
    const window = client.contextLength ?? compression.defaultContextLength
    const estimate = measured
      ? measured.tokens + estimateTokens(conv.messages.slice(measured.messages))
      : estimateTokens([systemMessage(), ...conv.messages]) + Math.ceil(schemaChars(tools) / 4)
    if (estimate < compression.threshold * window) return
    try {
      // Compression continues the stored session: it must exist first.
      queueCreate(conv)
      await conv.creating
      const outcome = await compressConversation(api, conv, { settings: compression, signal, primary: client })
      if (outcome.compressed) {
        measured = undefined
        if (outcome.parentSessionId) emit({ type: 'compressed', sessionId: outcome.sessionId, parentSessionId: outcome.parentSessionId })
      }
    } catch (error) {
      if (signal.aborted) return
      // Going on uncompressed is better than failing: the model call reports a real overflow itself.
      api.log.warn(`context compression failed: ${errorMessage(error)}`)
    }
  }

  try {
    for (;;) {
      if (signal.aborted) {
        exitReason = 'interrupted'
        break
      }
      if (apiCalls >= maxIterations) {
        exitReason = 'max_iterations'
        break
      }
      await maybeCompress()
      // Tool images and audio reach only a model that reads them; the others get a description.
      const messages = gateToolMedia([systemMessage(), ...conv.messages], acceptedModalities(client))
      const base: ModelRequest = { model: client.model, messages, ...(schemas.length ? { tools: schemas } : {}), ...(reasoningEffort ? { reasoningEffort } : {}) }
      if (request.sampling) Object.assign(base, request.sampling)
      const choice = toolChoiceFor(request.toolChoice, apiCalls)
      if (choice) base.toolChoice = choice
      const modelRequest = redaction.request((await api.hooks.beforeModelRequest.promise(base, { sessionId: conv.sessionId, source })) ?? base)
      emit({ type: 'model.call', iteration: apiCalls + 1 })
      // Streamed text is cleared as it goes (a tail that may begin a secret waits for the next delta).
      const streams = request.onEvent ? { content: redaction.stream(), reasoning: redaction.stream() } : undefined
      const send = (type: 'delta' | 'reasoning', text: string) => void (text && emit({ type, text }))
      let response: ModelResponse
      try {
        response = await withSpan(api.services, `chat ${client.model}`, { kind: 'client', attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': client.provider, 'gen_ai.request.model': client.model } }, async (span) => {
          const answer = await client.complete(modelRequest, {
            signal,
            ...(streams ? { onDelta: (d) => { if (d.content) send('delta', streams.content.push(d.content)); if (d.reasoning) send('reasoning', streams.reasoning.push(d.reasoning)) } } : {}),
          })
          span.setAttributes({ 'gen_ai.usage.input_tokens': answer.usage?.inputTokens, 'gen_ai.usage.output_tokens': answer.usage?.outputTokens })
          return answer
        })
        if (streams) {
          send('delta', streams.content.flush())
          send('reasoning', streams.reasoning.flush())
        }
      } catch (error) {
        if (signal.aborted || errorCode(error) === 'E_INTERRUPTED') {
          exitReason = 'interrupted'
          break
        }
        throw error
      }
      apiCalls++
      const callUsage = pricedUsage(api.settings, client.model, response.usage)
      addUsage(usage, callUsage)
      emit({ type: 'usage', usage: callUsage })
      observe({ type: 'model.call', sessionId: conv.sessionId, iteration: apiCalls, usage: callUsage, model: client.model })
      const calls = (response.toolCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.arguments ?? '' }))
      ensureCallIds(calls, apiCalls)
      // The calls run as the model sent them; what is stored and answered is cleared of secrets.
      let assistant: ChatMessage = { role: 'assistant', content: response.content ?? null }
      if (calls.length) assistant.toolCalls = calls
      if (response.reasoning) assistant.reasoning = response.reasoning
      assistant = redaction.message(assistant)
      if (assistant.reasoning) lastReasoning = assistant.reasoning
      measured = { tokens: callUsage.inputTokens, messages: conv.messages.length }
      // A final answer records the exit in the same write as the message.
      await persist([assistant], callUsage, 1, calls.length === 0 ? 'completed' : undefined)
      const content = typeof assistant.content === 'string' ? assistant.content : undefined
      if (content) answer = content
      if (calls.length === 0) {
        answer = content ?? ''
        exitReason = 'completed'
        break
      }
      // Calls of the caller's own tools are handed back; the agent's run here first.
      const pending = client_ ? calls.filter((c) => client_.names.has(c.name)) : []
      const agentCalls = pending.length ? calls.filter((c) => !client_!.names.has(c.name)) : calls
      const outcomes = agentCalls.length === 0 ? [] : await runBatch(agentCalls, {
        api,
        tools,
        session: { id: conv.sessionId, cwd, ...(request.source ? { source: request.source } : {}), extra: { ...request.extra } },
        signal,
        maxResultChars: config.toolResultMaxChars,
        redact: redaction.toolText,
        abortGraceMs: config.toolAbortGraceMs,
        emit,
        observe,
      })
      for (const o of outcomes) trace.push(o.trace)
      // A tool's images and audio travel with its text (gated per model above; the wire decides how it sees them).
      if (outcomes.length) await persist(outcomes.map((o) => ({ role: 'tool', toolCallId: o.call.id, name: o.call.name, content: o.images ? [{ type: 'text' as const, text: o.result }, ...o.images] : o.result })), undefined, undefined, pending.length ? 'tool_calls' : undefined)
      if (pending.length) {
        exitReason = 'tool_calls'
        pendingToolCalls = pending
        break
      }
    }
  } catch (error) {
    if (store) await write((s) => s.update(conv.sessionId, { lastExitReason: 'error' })).catch(() => undefined)
    observe({ type: 'run.error', sessionId: conv.sessionId, error: errorMessage(error) })
    throw AgentError.isInstance(error) ? error : new AgentError('E_RUNTIME', errorMessage(error), { cause: error })
  }

  if (store && !exitRecorded) await settle(write((s) => s.update(conv.sessionId, { lastExitReason: exitReason })), true)
  observe({ type: 'run.end', sessionId: conv.sessionId, exitReason, apiCalls, usage, ...(source ? { source: source.platform } : {}) })
  const result: RunResult = { sessionId: conv.sessionId, answer, exitReason, usage, apiCalls, model: client.model, provider: client.provider, toolTrace: trace }
  if (lastReasoning !== undefined) result.lastReasoning = lastReasoning
  if (pendingToolCalls) result.pendingToolCalls = pendingToolCalls
  if (stored) {
    // The caller may not look at it before the commit: a failure is not to count as unhandled meanwhile.
    stored.catch(() => undefined)
    result.stored = stored
  }
  return result
}

export type { Conversation }

/** RunRequest.runTools as offered tools; a name the registry has too is refused (the model could not tell them apart). */
function runToolsOf(api: ExtensionApi<any>, request: RunRequest): OfferedTool[] {
  return (request.runTools ?? []).map((definition) => {
    if (api.tools.get(definition.name)) throw new UsageError(`run tool "${definition.name}" has the name of one of the agent's tools`)
    return { definition, toolset: definition.toolset ?? 'run', owner: 'run' }
  })
}

/** The caller's own tools (RunRequest.clientTools), or undefined when there are none. */
function clientToolPlan(tools: readonly { definition: { name: string } }[], request: RunRequest): { schemas: ToolSchema[]; names: Set<string> } | undefined {
  if (!request.clientTools?.length) return undefined
  const names = new Set(request.clientTools.map((t) => t.name))
  const clash = tools.find((t) => names.has(t.definition.name))
  if (clash) throw new UsageError(`client tool "${clash.definition.name}" has the name of one of the agent's tools`)
  return { schemas: request.clientTools, names }
}

/** `none` and `auto` hold for every call; `required` and a named tool for the first call only (else the run never ends). */
function toolChoiceFor(choice: ToolChoice | undefined, callsSoFar: number): ToolChoice | undefined {
  if (choice === undefined || choice === 'none' || choice === 'auto') return choice
  return callsSoFar === 0 ? choice : 'auto'
}
