// What a slash command typed in the editor acts on (`SlashContext.chat`): the ACP session. Title,
// model, usage, stop and the per-session tool switches work on it; what belongs to the editor's own
// thread list (new, resume, background runs) or needs the interactive chat (compress, reasoning
// display) is refused in one line naming the editor way.

import {
  AgentError,
  MODELS_SERVICE,
  SESSIONS_SERVICE,
  toolEnabled,
  type ChatConversation,
  type ChatModel,
  type ChatSessionSummary,
  type ChatToolInfo,
  type ChatUsage,
  type CliContext,
  type ModelSelection,
  type ModelsService,
  type SessionStore,
} from 'agent/sdk'
import type { LiveSession, LiveSessions } from './live-sessions.ts'

const notInEditor = (what: string) => new AgentError('E_STATE', `${what} is not available in an editor session; use the editor's thread list instead`)

export class AcpConversation implements ChatConversation {
  readonly surface = 'cli' as const
  private currentTitle: string | undefined

  constructor(
    private readonly ctx: Pick<CliContext, 'services' | 'settings' | 'tools'>,
    private readonly live: LiveSessions,
    private readonly session: LiveSession,
    private readonly selection: () => { provider?: string; model?: string },
  ) {}

  get sessionId(): string | undefined {
    return this.session.stored ? this.session.id : undefined
  }

  /** Where the session works (read by /plan). */
  get cwd(): string {
    return this.session.cwd
  }

  private store(): SessionStore {
    const store = this.ctx.services.get<SessionStore>(SESSIONS_SERVICE)
    if (!store) throw new AgentError('E_STATE', 'sessions are not available (the sessions extension is not loaded)')
    return store
  }

  title(): string | undefined {
    return this.currentTitle
  }

  async setTitle(title: string): Promise<void> {
    if (!this.session.stored) {
      await this.store().create({ id: this.session.id, source: 'acp', cwd: this.session.cwd })
      this.session.stored = true
    }
    this.currentTitle = (await this.store().setTitle(this.session.id, title)) ?? title
  }

  model(): ChatModel {
    const chosen = this.ctx.services.get<ModelsService>(MODELS_SERVICE)?.select(this.selection())
    if (!chosen) throw new AgentError('E_STATE', 'no model is configured (agent model)')
    return { provider: chosen.provider, model: chosen.model, ...(chosen.customName ? { customName: chosen.customName } : {}), origin: this.session.model ? 'session' : 'config' }
  }

  async setModel(selection: ModelSelection): Promise<void> {
    this.session.provider = selection.customName ? `custom:${selection.customName}` : selection.provider
    this.session.model = selection.model
    if (this.session.stored) await this.store().update(this.session.id, { provider: this.session.provider, model: this.session.model })
  }

  reasoningEffort() {
    return undefined
  }
  async setReasoningEffort(): Promise<void> {
    throw new AgentError('E_STATE', 'reasoning effort is set in config.yaml (agent.reasoning_effort) for editor sessions')
  }
  showReasoning(): boolean {
    return true
  }
  setShowReasoning(): void {
    throw new AgentError('E_STATE', 'the editor decides how reasoning is shown')
  }

  usage(): ChatUsage {
    const u = this.session.usage
    return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, reasoningTokens: u.reasoningTokens, totalTokens: u.inputTokens + u.outputTokens, ...(u.costUsd ? { costUsd: u.costUsd } : {}), apiCalls: u.apiCalls, turns: this.session.turns, contextTokens: u.contextTokens, startedAt: u.startedAt }
  }

  busy(): boolean {
    return this.session.turn !== undefined
  }
  stop(): boolean {
    return this.live.cancel(this.session.id, 'stopped by /stop')
  }
  queue(): number {
    throw notInEditor('/queue')
  }
  async newSession(): Promise<void> {
    throw notInEditor('/new')
  }
  async resume(): Promise<ChatSessionSummary> {
    throw notInEditor('/resume')
  }
  async recentSessions(limit: number): Promise<ChatSessionSummary[]> {
    const records = await this.store().list({ source: 'acp', limit })
    return records.map((r) => ({ id: r.id, ...(r.title ? { title: r.title } : {}), updatedAt: r.updatedAt, messageCount: r.messageCount }))
  }
  async compress(): Promise<never> {
    throw new AgentError('E_STATE', '/compress is not available in an editor session; long sessions are compressed automatically')
  }
  background(): never {
    throw notInEditor('/background')
  }

  tools(): ChatToolInfo[] {
    return this.ctx.tools.entries().map(({ owner, value }) => {
      const toolset = value.toolset ?? owner
      const forced = this.session.tools.get(value.name) ?? this.session.tools.get(toolset)
      let available: true | string = true
      try {
        available = value.available?.(this.ctx.settings) ?? true
      } catch (error) {
        available = String(error)
      }
      return { name: value.name, toolset, enabled: forced ?? toolEnabled(value, this.ctx.settings, owner), available }
    })
  }

  setToolsEnabled(names: string[], enabled: boolean): string[] {
    const known = this.tools()
    const changed = known.filter((t) => names.includes(t.name) || names.includes(t.toolset)).filter((t) => t.enabled !== enabled)
    for (const name of names) this.session.tools.set(name, enabled)
    return changed.map((t) => t.name)
  }
}
