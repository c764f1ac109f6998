// Shapes of model calls and agent runs: what providers return and what the runtime service offers
// to the surfaces (CLI, API server, gateway, cron, delegation).

import type { ToolDefinition } from './types.ts'
import type { PlanEntry } from './plan.ts'

export type ReasoningEffort = 'none' | 'low' | 'medium' | 'high' | 'xhigh'
export const REASONING_EFFORTS: readonly ReasoningEffort[] = ['none', 'low', 'medium', 'high', 'xhigh']

/** `tool_calls`: the model called a tool the caller runs itself (RunRequest.clientTools); see RunResult.pendingToolCalls. */
export type ExitReason = 'completed' | 'interrupted' | 'max_iterations' | 'tool_calls'

/** Which tools the model may call: `required` and a named tool bind the first model call of a run only. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string }

/** Structured output asked of the provider (the caller validates the answer itself). */
export type ResponseFormat = { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string }

/** Sampling and output parameters a caller passes through to every model call of a run. */
export interface SamplingOptions {
  temperature?: number
  topP?: number
  maxTokens?: number
  stop?: string[]
  responseFormat?: ResponseFormat
}

export interface ToolCall {
  id: string
  name: string
  /** JSON text as the model produced it. */
  arguments: string
}

export type ImagePart = { type: 'image_url'; image_url: { url: string } }
/** Audio as the OpenAI chat wire takes it: base64 data in one of the formats models accept. */
export type AudioPart = { type: 'input_audio'; input_audio: { data: string; format: 'wav' | 'mp3' } }
/** An image or audio part: what a model reads only when it accepts that input (see sdk/input-modalities.ts). */
export type MediaPart = ImagePart | AudioPart
export type ContentPart = { type: 'text'; text: string } | MediaPart

/** What a model reads besides text; `model.input_modalities` (config) or a custom provider's `input_modalities`. */
export type InputModality = 'text' | 'image' | 'audio'

const TOOL_RESULT = Symbol.for('agent.toolResultWithImages')

/** A tool result carrying images or audio besides its text: the runtime passes them to the model (see toolResult). */
export interface ToolResultWithImages {
  readonly [TOOL_RESULT]: true
  text: string
  images: MediaPart[]
}

/** What a tool returns to show the model images (data: or http(s) URLs) or audio with its text result. */
export function toolResult(text: string, images: ToolResultWithImages['images']): ToolResultWithImages {
  return { [TOOL_RESULT]: true, text, images }
}

export function isToolResultWithImages(value: unknown): value is ToolResultWithImages {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_RESULT] === true
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | ContentPart[] | null
  toolCalls?: ToolCall[]
  toolCallId?: string
  name?: string
  reasoning?: string
}

export interface ToolSchema {
  name: string
  description: string
  parameters: Record<string, unknown>
}

export interface ModelRequest {
  model: string
  messages: ChatMessage[]
  tools?: ToolSchema[]
  reasoningEffort?: ReasoningEffort
  maxTokens?: number
  temperature?: number
  topP?: number
  stop?: string[]
  toolChoice?: ToolChoice
  responseFormat?: ResponseFormat
}

export interface Usage {
  inputTokens: number
  outputTokens: number
  totalTokens: number
  /** Reasoning tokens when the provider reports them. */
  reasoningTokens?: number
  costUsd?: number
}

export interface ModelResponse {
  content: string | null
  toolCalls: ToolCall[]
  reasoning?: string
  usage: Usage
  finishReason?: string
}

export interface ModelDelta {
  content?: string
  reasoning?: string
}

export interface ModelCallOptions {
  signal?: AbortSignal
  /** Streaming: called with each text or reasoning delta. */
  onDelta?: (delta: ModelDelta) => void
}

export interface ModelClient {
  readonly provider: string
  readonly model: string
  /** Context window in tokens, when known. */
  readonly contextLength?: number
  /** What the model reads besides text, when configured; else the known-models table decides (sdk/input-modalities.ts). */
  readonly inputModalities?: readonly InputModality[]
  complete(request: Omit<ModelRequest, 'model'> & { model?: string }, options?: ModelCallOptions): Promise<ModelResponse>
  listModels?(signal?: AbortSignal): Promise<string[]>
}

// ---------------------------------------------------------------------------------------------
// The runtime service (`services.get<AgentRuntime>('runtime')`)

export const RUNTIME_SERVICE = 'runtime'

export interface RunRequest {
  input: string | ContentPart[]
  /** Continue this stored session. */
  sessionId?: string
  /** Messages placed before the input without being re-stored (stateless callers). */
  history?: ChatMessage[]
  /** Layered after the agent's own system prompt; never stored. */
  systemPrompt?: string
  source?: { platform: string; userId?: string; chatId?: string }
  provider?: string
  model?: string
  reasoningEffort?: ReasoningEffort
  personality?: string
  /** Restrict the tools offered to these toolsets. */
  toolsets?: string[]
  /** Also offer these tools or toolsets that are off by default (a conversation's `/tools enable`). */
  enableTools?: string[]
  /** Do not offer these tools or toolsets (a conversation's `/tools disable`). */
  disableTools?: string[]
  /** Title of the session when this run creates it. */
  title?: string
  skills?: string[]
  maxIterations?: number
  cwd?: string
  /** false: nothing is written to the session store. Default true. */
  persist?: boolean
  signal?: AbortSignal
  onEvent?: (event: RunEvent) => void
  /** Passed through to tools as `session.extra`. */
  extra?: Record<string, unknown>
  /**
   * Tools the caller runs itself (an API client's function tools), offered beside the agent's. A
   * call to one ends the run (exit `tool_calls`, RunResult.pendingToolCalls) after the agent's own
   * calls of that batch ran; a name that is also an agent tool is a UsageError.
   */
  clientTools?: ToolSchema[]
  /**
   * Tools offered to this run only, beside the registered ones, and run like them (guards and all):
   * e.g. the tools of an editor's own MCP servers. A name that is also an agent tool is a UsageError.
   */
  runTools?: ToolDefinition[]
  toolChoice?: ToolChoice
  sampling?: SamplingOptions
  /**
   * The conversation (session or history) already ends with the results of client tool calls: the
   * run continues from them, with no new user input (`input` is ignored).
   */
  resume?: boolean
  /**
   * The run's last write (the answer, or the results before client tool calls, with the exit
   * reason) is queued for the next group commit and the run resolves without waiting for it;
   * RunResult.stored settles when it is committed, in the same turn of the event loop. For a caller
   * whose client does not read the stored session back (the API server: chat clients resend their
   * history, responses are chained from the API server's own store, written before it answers), so
   * the answer does not wait for a commit. A new untitled session is created with that write, in the
   * same commit (none before the model call); anything that needs the stored session first (a tool
   * run, compression, a failure) commits what came before it, as a run without this flag does.
   */
  storeBehind?: boolean
}

export type RunEvent =
  | { type: 'delta'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool.start'; callId: string; name: string; input: unknown }
  | { type: 'tool.progress'; callId: string; name: string; text: string }
  /** `result`: the text the model reads (capped), also when a guard blocked the call or it failed. */
  | { type: 'tool.end'; callId: string; name: string; ok: boolean; resultBytes: number; result: string }
  /** The session's plan changed (the `todo` tool): the whole list, in order. */
  | { type: 'plan'; callId: string; entries: PlanEntry[] }
  | { type: 'model.call'; iteration: number }
  | { type: 'usage'; usage: Usage }
  /** The session the run is in, once opened (before the first model call). */
  | { type: 'session'; sessionId: string }
  /** Context compression moved the conversation to a continuation session. */
  | { type: 'compressed'; sessionId: string; parentSessionId: string }

export interface ToolTraceEntry {
  tool: string
  callId?: string
  argsBytes: number
  resultBytes: number
  status: 'ok' | 'error'
}

export interface RunResult {
  sessionId: string
  answer: string
  exitReason: ExitReason
  usage: Usage
  apiCalls: number
  lastReasoning?: string
  model: string
  provider: string
  toolTrace: ToolTraceEntry[]
  /** Client tool calls the caller is to run (exit `tool_calls`); their results continue with `resume`. */
  pendingToolCalls?: ToolCall[]
  /** With RunRequest.storeBehind: settles once the run's last write is committed (rejects if it failed). */
  stored?: Promise<void>
}

export interface AgentRuntime {
  run(request: RunRequest): Promise<RunResult>
}
