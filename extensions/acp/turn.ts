// One `session/prompt`: an agent run whose events stream to the editor as session updates — answer
// text as agent_message_chunk, reasoning as agent_thought_chunk, tool calls as tool_call then
// tool_call_update (in_progress when every guard let it run, completed/failed with the result),
// the `todo` tool's task list as plan.
// Every update is written before the prompt's answer; the stop reason maps the run's exit.

import { readFileSync, statSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { APPROVAL_MODE_KEY, EDITOR_IO_KEY, errorMessage, type ApprovalMode, type EditorIo, type Logger, type RunEvent, type RunResult, type RuntimeService, type ToolDefinition, type Usage } from 'agent/sdk'
import type { AgentContext, SessionUpdate, StopReason, ToolCallContent } from '@agentclientprotocol/sdk/unstable'
import type { DiffGuard } from './diff-guard.ts'
import { permissionPrompt } from './permission.ts'
import { editDiff, textContent, toolKind, toolLocations, toolTitle } from './tool-calls.ts'
import { TURN_KEY, type TurnHooks } from './turn-hooks.ts'

/** Ordered session/update notifications of one session; flush() waits for all sent so far. */
export class UpdateQueue {
  private chain: Promise<void> = Promise.resolve()
  private failed = false

  constructor(
    private readonly client: AgentContext,
    private readonly sessionId: string,
    private readonly log: Logger,
  ) {}

  send(update: SessionUpdate): void {
    this.chain = this.chain.then(() =>
      this.client.notify('session/update', { sessionId: this.sessionId, update }).catch((error: unknown) => {
        // A closed connection fails every later write too: say it once.
        if (!this.failed) this.log.warn(`a session update could not be sent: ${errorMessage(error)}`)
        this.failed = true
      }),
    )
  }

  flush(): Promise<void> {
    return this.chain
  }
}

export interface TurnOptions {
  runtime: RuntimeService
  client: AgentContext
  log: Logger
  /** ACP session id = stored session id. */
  sessionId: string
  cwd: string
  input: string | import('agent/sdk').ContentPart[]
  /** Numbers this session's turns, so tool call ids stay unique within the session. */
  turnNumber: number
  provider?: string
  model?: string
  signal: AbortSignal
  /** true once session/cancel (or closing) asked this turn to stop. */
  cancelled(): boolean
  updates: UpdateQueue
  /** The session's approval mode (session/set_mode), when chosen. */
  approvalMode?: ApprovalMode
  /** The session's `/tools enable|disable` choices. */
  enableTools?: string[]
  disableTools?: string[]
  /** The editor's file system and terminal, when it offers them (told which call runs in which terminal). */
  editorIo?: (onTerminal: (callId: string, terminalId: string) => void) => EditorIo | undefined
  /** Tools of this session only (the editor's MCP servers). */
  runTools?: ToolDefinition[]
  /** Each model call's usage. */
  onUsage?(usage: Usage): void
  /** What of an edit's diff the editor may see: no secret file's, no known secret (diff-guard.ts). */
  diffs: DiffGuard
}

interface CallState {
  toolCallId: string
  name: string
  title: string
  input: unknown
  before?: string | null
  progress: string[]
  /** The editor terminal its command runs in, shown in the call. */
  terminalId?: string
  /** The text the model read for this call (from the run's tool.end event). */
  result?: { ok: boolean; result: string }
  done: boolean
}

/** The file as it is before write_file replaces it (null: it does not exist; undefined: unknown or a secret file, never read). */
function currentText(cwd: string, input: unknown, diffs: DiffGuard): string | null | undefined {
  const path = (input as { path?: unknown } | null)?.path
  if (typeof path !== 'string' || !path) return undefined
  const absolute = isAbsolute(path) ? path : resolve(cwd, path)
  if (!diffs.mayShow(absolute)) return undefined
  try {
    if (statSync(absolute).size > 1_000_000) return undefined
    return readFileSync(absolute, 'utf8')
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined
  }
}

export function stopReasonOf(result: Pick<RunResult, 'exitReason'>, cancelled: boolean): StopReason {
  if (cancelled || result.exitReason === 'interrupted') return 'cancelled'
  if (result.exitReason === 'max_iterations') return 'max_turn_requests'
  return 'end_turn'
}

export async function runTurn(options: TurnOptions): Promise<{ stopReason: StopReason; result?: RunResult }> {
  const { updates, cwd } = options
  const calls = new Map<string, CallState>()
  let textThisCall = ''

  const callUpdate = (state: CallState, fields: Omit<Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>, 'sessionUpdate' | 'toolCallId'>) =>
    updates.send({ sessionUpdate: 'tool_call_update', toolCallId: state.toolCallId, ...fields })

  const finishCall = (state: CallState, ok: boolean, result?: string) => {
    if (state.done) return
    // The run's own text of the outcome (what the model reads, a guard's reason included).
    if (result !== undefined) state.result = { ok, result }
    state.done = true
    const content: ToolCallContent[] = state.terminalId ? [{ type: 'terminal', terminalId: state.terminalId }] : []
    if (ok) {
      const diff = editDiff(state.name, state.input, cwd, state.before)
      const shown = diff && options.diffs.clear(diff)
      if (shown) content.push(shown)
    }
    const text = state.result?.result ?? (options.signal.aborted ? 'Interrupted before it finished.' : 'Not run: a guard blocked it.')
    // A call that ends after session/cancel was stopped by it, whatever the tool made of that (a
    // killed command still "returns"). ACP has no cancelled status: failed, marked cancelled.
    if (options.cancelled()) {
      const shown: ToolCallContent[] = [...content.filter((c) => c.type === 'terminal'), textContent(`Cancelled: the turn was cancelled while this call ran.\n${text}`)]
      return callUpdate(state, { status: 'failed', content: shown, rawOutput: { ok: false, cancelled: true, result: text }, _meta: { cancelled: true } })
    }
    content.push(textContent(text))
    callUpdate(state, { status: ok ? 'completed' : 'failed', content, rawOutput: { ok, result: state.result?.result ?? text } })
  }

  const onEvent = (event: RunEvent) => {
    switch (event.type) {
      case 'model.call':
        textThisCall = ''
        return
      case 'delta':
        textThisCall += event.text
        return updates.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } })
      case 'reasoning':
        return updates.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } })
      case 'usage':
        return options.onUsage?.(event.usage)
      case 'tool.start': {
        const state: CallState = {
          toolCallId: `t${options.turnNumber}-${event.callId}`,
          name: event.name,
          title: toolTitle(event.name, event.input),
          input: event.input,
          progress: [],
          done: false,
        }
        if (event.name === 'write_file') state.before = currentText(cwd, event.input, options.diffs)
        calls.set(event.callId, state)
        const locations = toolLocations(event.name, event.input, cwd)
        return updates.send({
          sessionUpdate: 'tool_call',
          toolCallId: state.toolCallId,
          title: state.title,
          name: event.name,
          kind: toolKind(event.name),
          status: 'pending',
          rawInput: event.input,
          ...(locations.length ? { locations } : {}),
        })
      }
      case 'tool.progress': {
        const state = calls.get(event.callId)
        if (!state || state.done) return
        state.progress.push(event.text)
        return callUpdate(state, { status: 'in_progress', content: [textContent(state.progress.join('\n'))] })
      }
      case 'tool.end': {
        const state = calls.get(event.callId)
        if (state) finishCall(state, event.ok, event.result)
        return
      }
      case 'plan':
        // The whole list each time: ACP's plan update replaces the editor's.
        return updates.send({ sessionUpdate: 'plan', entries: event.entries })
      default:
        return
    }
  }

  const hooks: TurnHooks = {
    toolStarting(callId) {
      const state = calls.get(callId)
      if (state && !state.done) callUpdate(state, { status: 'in_progress' })
    },
  }

  const editorIo = options.editorIo?.((callId, terminalId) => {
    const state = calls.get(callId)
    if (!state || state.done) return
    state.terminalId = terminalId
    callUpdate(state, { status: 'in_progress', content: [{ type: 'terminal', terminalId }] })
  })

  const approvalPrompt = permissionPrompt({
    client: options.client,
    sessionId: options.sessionId,
    signal: options.signal,
    log: options.log,
    callFor({ callId, tool, command }) {
      // The approvals guard names the waiting call; without an id, the newest unfinished call of that
      // tool with that command is the one.
      const byId = callId ? calls.get(callId) : undefined
      const waiting = byId && !byId.done ? byId : [...calls.values()].reverse().find((c) => !c.done && c.name === tool && (c.input as { command?: unknown } | null)?.command === command)
      return waiting ? { toolCallId: waiting.toolCallId, title: waiting.title } : undefined
    },
  })

  let result: RunResult
  try {
    result = await options.runtime.run({
      input: options.input,
      sessionId: options.sessionId,
      source: { platform: 'acp' },
      cwd,
      ...(options.provider ? { provider: options.provider } : {}),
      ...(options.model ? { model: options.model } : {}),
      signal: options.signal,
      onEvent,
      ...(options.runTools?.length ? { runTools: options.runTools } : {}),
      ...(options.enableTools?.length ? { enableTools: options.enableTools } : {}),
      ...(options.disableTools?.length ? { disableTools: options.disableTools } : {}),
      extra: { [TURN_KEY]: hooks, approvalPrompt, ...(options.approvalMode ? { [APPROVAL_MODE_KEY]: options.approvalMode } : {}), ...(editorIo ? { [EDITOR_IO_KEY]: editorIo } : {}) },
    })
  } catch (error) {
    for (const state of calls.values()) finishCall(state, false)
    await updates.flush()
    if (options.cancelled()) return { stopReason: 'cancelled' }
    throw error
  }
  for (const state of calls.values()) finishCall(state, false)
  // A provider that does not stream still gives its answer: send it whole.
  if (!textThisCall && result.answer && result.exitReason === 'completed') {
    updates.send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: result.answer } })
  }
  await updates.flush()
  return { stopReason: stopReasonOf(result, options.cancelled()), result }
}
