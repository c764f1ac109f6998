// The hook table as extensions see it: the payload of each hook and the handle used to tap or call
// it. The kernel declares the tapable hooks themselves (kernel/hooks.ts) from HOOK_KINDS.

import type { ChatMessage, ModelClient, ModelRequest } from './model.ts'
import type { MessageSource, RunMode, ToolSession } from './types.ts'

export interface ReadyContext {
  mode: RunMode
}

export interface ShutdownContext {
  reason: string
}

export interface ResolveModelRequest {
  provider?: string
  model?: string
  /** Auxiliary task name (compression, approval …) when not the primary model. */
  task?: string
}

export interface ModelRequestContext {
  sessionId?: string
  source?: MessageSource
}

export interface ToolCallEvent {
  tool: string
  toolset: string
  callId: string
  input: unknown
  session: ToolSession
  modifiesFiles: boolean
  /** Aborted when the run stops (/stop, /new, a client that hangs up): guards that wait give up then. */
  signal?: AbortSignal
}

/** A bail value from beforeToolCall: block the call with a reason shown to the model. */
export interface ToolCallVerdict {
  block: true
  reason: string
}

export interface ToolCallOutcome {
  ok: boolean
  /** The tool's result (or error text) as given to the model. */
  result: string
}

export interface InboundMessage {
  source: MessageSource
  text: string
  /** Platform message id, for dedup and replies. */
  messageId?: string
  receivedAt: number
}

/** A bail value from inboundMessage: the message was handled (or refused) by the tapping extension. */
export interface InboundVerdict {
  handled: true
  reason?: string
}

export interface ObservedEvent {
  type: string
  at: number
  [field: string]: unknown
}

/** Name → [argument tuple, bail/return type]. */
export interface HookSignatures {
  ready: [[ReadyContext], void]
  shutdown: [[ShutdownContext], void]
  resolveModel: [[ResolveModelRequest], ModelClient | undefined]
  beforeModelRequest: [[ModelRequest, ModelRequestContext], ModelRequest]
  beforeToolCall: [[ToolCallEvent], ToolCallVerdict | undefined]
  afterToolCall: [[ToolCallOutcome, ToolCallEvent], ToolCallOutcome]
  inboundMessage: [[InboundMessage], InboundVerdict | undefined]
  observe: [[ObservedEvent], void]
}

export type HookName = keyof HookSignatures

/** How each hook combines its taps. */
export const HOOK_KINDS = Object.freeze({
  ready: 'series',
  shutdown: 'series',
  resolveModel: 'bail',
  beforeModelRequest: 'waterfall',
  beforeToolCall: 'bail',
  afterToolCall: 'waterfall',
  inboundMessage: 'bail',
  observe: 'parallel',
} as const satisfies Record<HookName, 'series' | 'bail' | 'waterfall' | 'parallel'>)

export interface TapOptions {
  /** Lower runs first (default 0). Order by stage, never by load order. */
  stage?: number
}

type Ret<N extends HookName> = HookSignatures[N][1]
type Args<N extends HookName> = HookSignatures[N][0]
/** Waterfall taps return the (possibly rewritten) first argument; bail taps return undefined to pass. */
type TapResult<N extends HookName> = Ret<N> extends void ? void : Ret<N> | undefined

export interface HookHandle<N extends HookName> {
  tap(fn: (...args: Args<N>) => TapResult<N>): void
  tap(options: TapOptions, fn: (...args: Args<N>) => TapResult<N>): void
  tapPromise(fn: (...args: Args<N>) => Promise<TapResult<N>>): void
  tapPromise(options: TapOptions, fn: (...args: Args<N>) => Promise<TapResult<N>>): void
  /** Runs the hook through the kernel's current table. */
  promise(...args: Args<N>): Promise<Ret<N>>
}

export type HookHandles = { readonly [N in HookName]: HookHandle<N> }

// Re-exported for convenience in hook payload consumers.
export type { ChatMessage }
