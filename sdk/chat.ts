// The conversation a slash command acts on (`SlashContext.chat`). The CLI chat and the gateway each
// implement ChatConversation over their own sessions; the core slash commands (extension
// `slash-commands`) are written once against it. Commands validate arguments and write config;
// the controller only changes the live conversation.

import { AgentError } from './errors.ts'
import type { ReasoningEffort, Usage } from './model.ts'
import type { ModelSelection } from './models.ts'
import type { Settings, SlashContext } from './types.ts'

/** The model a conversation uses now. */
export interface ChatModel {
  provider: string
  model: string
  baseUrl?: string
  /** Name of the custom_providers entry (`custom:<name>:<model>`). */
  customName?: string
  /** Context window in tokens, when known. */
  contextLength?: number
  /** `session`: switched by `/model` for this session only (reverts on restart); `config`: from settings. */
  origin: 'config' | 'session'
}

/** Totals of one conversation since it started (or since `/new`). */
export interface ChatUsage {
  inputTokens: number
  outputTokens: number
  reasoningTokens: number
  totalTokens: number
  /** Undefined when neither the provider reports a cost nor `pricing.<model>` is configured. */
  costUsd?: number
  /** The part of costUsd known per direction (from `pricing.<model>`), when known. */
  inputCostUsd?: number
  outputCostUsd?: number
  /** Model calls made. */
  apiCalls: number
  /** User turns completed. */
  turns: number
  /** Prompt tokens of the last model call: how full the context window is. */
  contextTokens: number
  contextLength?: number
  /** When this conversation started (ms since epoch); its duration is now minus this. */
  startedAt: number
}

export interface ChatToolInfo {
  name: string
  toolset: string
  enabled: boolean
  /** true, or why the tool cannot run now (missing key …). */
  available: true | string
}

export type BackgroundStatus = 'running' | 'done' | 'failed' | 'stopped'

/** A `/background` run: an isolated session whose result the surface shows (or delivers) when done. */
export interface BackgroundTask {
  id: string
  prompt: string
  status: BackgroundStatus
  /** The isolated session it runs in, once known. */
  sessionId?: string
  answer?: string
  error?: string
  startedAt: number
  endedAt?: number
}

export interface ChatSessionSummary {
  id: string
  title?: string
  /** ms since epoch */
  updatedAt?: number
  messageCount?: number
}

export interface CompressResult {
  /** Messages in the context before and after. */
  beforeMessages: number
  afterMessages: number
  /** Estimated prompt tokens before and after, when known. */
  beforeTokens?: number
  afterTokens?: number
}

/**
 * What a chat surface lets slash commands do to its conversation (`SlashContext.chat`). Both the CLI
 * chat and the gateway implement every required member; optional members are surface-specific (a
 * command that needs a missing one says so).
 */
export interface ChatConversation {
  readonly surface: 'cli' | 'gateway'
  /** The stored session, once the first turn created it. */
  readonly sessionId: string | undefined

  title(): string | undefined
  /** Names the session (stores it; creates the session first if needed). Throws on a taken title. */
  setTitle(title: string): Promise<void>

  model(): ChatModel
  /** Switches the model for the rest of this conversation (a command has already saved config when asked). */
  setModel(selection: ModelSelection): Promise<void>

  reasoningEffort(): ReasoningEffort | undefined
  /** Changes effort and re-initialises the agent: the next turn is built with it. */
  setReasoningEffort(effort: ReasoningEffort): Promise<void>
  /** Whether model reasoning is shown (`display.show_reasoning` at start). */
  showReasoning(): boolean
  /** Toggles the display only; no re-initialisation. */
  setShowReasoning(show: boolean): void

  usage(): ChatUsage

  /** A turn is running. */
  busy(): boolean
  /** Interrupts the running turn; false when nothing was running. */
  stop(): boolean | Promise<boolean>
  /** Queues a prompt to run after the current turn (or now when idle); may return its queue position (0 = running now). */
  queue(prompt: string): number | void
  /** Starts a fresh session (the old one stays stored). */
  newSession(): Promise<void>
  /** Switches to a stored session by id or title. Throws a one-line AgentError when there is none. */
  resume(idOrTitle: string): Promise<ChatSessionSummary>
  /** Recent stored sessions, newest first (for `/resume` without an argument). */
  recentSessions(limit: number): Promise<ChatSessionSummary[]>
  /** Summarises older context now. */
  compress(): Promise<CompressResult>

  /**
   * Starts a prompt in an isolated background session and returns at once (commands never await a
   * returned promise: it may settle only when the run is over); the surface shows or delivers the
   * result to this chat when done.
   */
  background(prompt: string): BackgroundTask | Promise<void> | void
  /** Background runs of this conversation, when the surface keeps them. */
  backgroundTasks?(): BackgroundTask[]

  /** Every registered tool with its state in this conversation. */
  tools(): ChatToolInfo[]
  /** Enables or disables tools (by tool or toolset name) for this conversation; returns the tool names changed. */
  setToolsEnabled(names: string[], enabled: boolean): string[]

  /** CLI only: the status bar. */
  statusBar?: { visible(): boolean; setVisible(visible: boolean): void }
  /** CLI only: leaves the chat after the current output. */
  exit?(): void
}

/** The conversation of a slash context, or a one-line error when the surface has none. */
export function chatOf(ctx: SlashContext): ChatConversation {
  const chat = ctx.chat
  if (!chat || typeof chat.model !== 'function') {
    throw new AgentError('E_STATE', `/${ctx.invokedAs} needs a conversation, and this surface has none`)
  }
  return chat
}

/** Config keys the chat surfaces and slash commands share. */
export const CHAT_CONFIG = Object.freeze({
  reasoningEffort: 'agent.reasoning_effort',
  showReasoning: 'display.show_reasoning',
  showCost: 'display.show_cost',
  theme: 'display.theme',
  statusBar: 'display.statusbar',
  modelDefault: 'model.default',
  modelProvider: 'model.provider',
  modelBaseUrl: 'model.base_url',
} as const)

/** USD per million tokens, from config `pricing: { "<model>": { input, output } }`. */
export interface ModelPricing {
  input: number
  output: number
}

/** The configured price of a model (also tried without a `vendor/` prefix), or undefined. */
export function pricingFor(settings: Settings, model: string): ModelPricing | undefined {
  const table = settings.get<Record<string, unknown>>('pricing')
  if (!table || typeof table !== 'object') return undefined
  const entry = (table[model] ?? table[model.split('/').pop() ?? model]) as Partial<ModelPricing> | undefined
  if (!entry || typeof entry !== 'object') return undefined
  const input = Number(entry.input ?? 0)
  const output = Number(entry.output ?? 0)
  return Number.isFinite(input) && Number.isFinite(output) ? { input, output } : undefined
}

/** Cost of one model usage: the provider's figure when it reports one, else from pricing. */
export function costOf(usage: Usage, pricing: ModelPricing | undefined): { totalUsd?: number; inputUsd?: number; outputUsd?: number } {
  const inputUsd = pricing ? (usage.inputTokens * pricing.input) / 1e6 : undefined
  const outputUsd = pricing ? (usage.outputTokens * pricing.output) / 1e6 : undefined
  const totalUsd = usage.costUsd ?? (pricing ? inputUsd! + outputUsd! : undefined)
  return { totalUsd, inputUsd, outputUsd }
}
