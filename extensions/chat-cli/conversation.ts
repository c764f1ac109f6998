// The CLI chat's conversation: its session, model and effort (changed by slash commands), queued
// prompts, background runs and usage totals. It is the ChatConversation slash commands act on
// (sdk/chat.ts); the terminal side (interactive.ts) only hears about it through ChatUi.

import {
  AgentError,
  errorCode,
  errorMessage,
  MODELS_SERVICE,
  pricingFor,
  redactSecrets,
  RUNTIME_SERVICE,
  SESSIONS_SERVICE,
  toolEnabled,
  type ApprovalPrompt,
  type ElicitationPrompt,
  type BackgroundTask,
  type ChatConversation,
  type ChatModel,
  type ChatSessionSummary,
  type ChatToolInfo,
  type ChatUsage,
  type CompressResult,
  type ModelSelection,
  type ModelsService,
  type ReasoningEffort,
  type RegistryHandle,
  type RunEvent,
  type RunRequest,
  type RunResult,
  type RuntimeService,
  type Services,
  type SessionRecord,
  type SessionStore,
  type Settings,
  type ToolDefinition,
} from 'agent/sdk'

export interface ChatUi {
  turnStarted(prompt: string): void
  event(event: RunEvent): void
  /** `stoppedByUser` false for an interrupt that came from elsewhere (an extension reload, shutdown). */
  turnEnded(result: RunResult | undefined, error: unknown, stoppedByUser: boolean): void
  backgroundDone(task: BackgroundTask): void
  /** Usage, model, queue or busy state changed. */
  changed(): void
  statusBar: { visible(): boolean; setVisible(visible: boolean): void }
  exit(): void
}

export interface ConversationOptions {
  services: Services
  settings: Settings
  tools: RegistryHandle<ToolDefinition>
  cwd: string
  /** --provider / --model for this chat (not saved). */
  provider?: string
  model?: string
  skills?: string[]
  /** --personality for this chat. */
  personality?: string
  /** --checkpoints: passed to tools as session.extra.checkpoints. */
  checkpoints?: boolean
}

const emptyUsage = (): ChatUsage => ({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, apiCalls: 0, turns: 0, contextTokens: 0, startedAt: Date.now() })

export class CliConversation implements ChatConversation {
  readonly surface = 'cli' as const
  sessionId: string | undefined
  private cachedTitle: string | undefined
  private override: ChatModel | undefined
  private effort: ReasoningEffort | undefined
  private reasoningShown: boolean
  private totals = emptyUsage()
  private current: AbortController | undefined
  private readonly pending: string[] = []
  private pumping = false
  private readonly tasks: BackgroundTask[] = []
  private readonly taskControllers = new Map<string, AbortController>()
  private readonly enableTools = new Set<string>()
  private readonly disableTools = new Set<string>()
  /** What the resolved client reported: the served model and its window. */
  private clientInfo: { model: string; contextLength?: number } | undefined
  ui: ChatUi | undefined

  constructor(private readonly options: ConversationOptions) {
    this.reasoningShown = options.settings.get<boolean>('display.show_reasoning') === true
  }

  private get runtime(): RuntimeService {
    const runtime = this.options.services.get<RuntimeService>(RUNTIME_SERVICE)
    if (!runtime) throw new AgentError('E_STATE', 'the agent runtime is not loaded (extension runtime)')
    return runtime
  }

  private sessions(what: string): SessionStore {
    const store = this.options.services.get<SessionStore>(SESSIONS_SERVICE)
    if (!store) throw new AgentError('E_STATE', `${what} needs the session store (extension sessions), which is not loaded`)
    return store
  }

  /** provider/model for a run: the /model override, else the chat's flags, else config. */
  private target(): { provider?: string; model?: string } {
    const o = this.override
    if (o) return { provider: o.customName ? `custom:${o.customName}` : o.provider, model: o.model || undefined }
    return { provider: this.options.provider, model: this.options.model }
  }

  /** How dangerous commands are confirmed in this terminal (set by the interactive chat). */
  approvalPrompt: ApprovalPrompt | undefined
  /** How a tool's questions (an MCP server's elicitation) are asked in this terminal. */
  elicitationPrompt: ElicitationPrompt | undefined

  private runRequest(input: string, signal: AbortSignal): RunRequest {
    return {
      input,
      source: { platform: 'cli' },
      ...this.target(),
      ...(this.effort ? { reasoningEffort: this.effort } : {}),
      cwd: this.options.cwd,
      enableTools: [...this.enableTools],
      disableTools: [...this.disableTools],
      ...(this.options.skills?.length ? { skills: this.options.skills } : {}),
      ...(this.options.personality ? { personality: this.options.personality } : {}),
      extra: { ...(this.options.checkpoints ? { checkpoints: true } : {}), ...(this.approvalPrompt ? { approvalPrompt: this.approvalPrompt } : {}), ...(this.elicitationPrompt ? { elicitationPrompt: this.elicitationPrompt } : {}) },
      signal,
    }
  }

  /** Asks the models service for the client once (after the prompt is up): served model, context window. */
  async refreshModelInfo(): Promise<void> {
    const models = this.options.services.get<ModelsService>(MODELS_SERVICE)
    if (!models) return
    try {
      const client = await models.resolve({ ...this.target(), fallback: false })
      this.clientInfo = { model: client.model, contextLength: client.contextLength }
    } catch {
      this.clientInfo = undefined
    }
    this.ui?.changed()
  }

  // --- turns -----------------------------------------------------------------------------------

  /** Runs a prompt now, or queues it behind the running turn. Returns its queue position (0 = now). */
  submit(prompt: string): number {
    this.pending.push(prompt)
    const position = this.current ? this.pending.length : this.pending.length - 1
    void this.pump()
    this.ui?.changed()
    return position
  }

  /** Settles when nothing is running or queued. */
  async idle(): Promise<void> {
    while (this.pumping || this.current) await new Promise((r) => setTimeout(r, 20))
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) await this.turn(next)
    } finally {
      this.pumping = false
    }
  }

  private async turn(prompt: string): Promise<void> {
    const controller = new AbortController()
    this.current = controller
    this.ui?.turnStarted(prompt)
    this.ui?.changed()
    let result: RunResult | undefined
    let failure: unknown
    try {
      const request = this.runRequest(prompt, controller.signal)
      let lastCall: { inputTokens: number; outputTokens: number } | undefined
      result = await this.runtime.run({
        ...request,
        ...(this.sessionId ? { sessionId: this.sessionId } : {}),
        onEvent: (event) => {
          if (event.type === 'usage') lastCall = event.usage
          if (event.type === 'compressed') this.sessionId = event.sessionId
          this.ui?.event(event)
        },
      })
      this.sessionId = result.sessionId
      this.record(result, lastCall)
    } catch (error) {
      failure = error
    } finally {
      this.current = undefined
    }
    this.ui?.turnEnded(result, failure === undefined ? undefined : this.shownError(failure), controller.signal.aborted)
    this.ui?.changed()
  }

  /**
   * An error as the chat shows it: its message cleared of known secrets (a provider may echo any
   * of them back), as log lines are; withheld when the secrets cannot be read.
   */
  private shownError(error: unknown): unknown {
    const message = errorMessage(error)
    let shown: string
    try {
      shown = redactSecrets(message, this.options.settings.secretValues())
    } catch (cause) {
      shown = `the error message is withheld: the known secrets could not be read to redact it (${errorMessage(cause)})`
    }
    return shown === message ? error : new AgentError(errorCode(error) ?? 'E_RUNTIME', shown, { cause: error })
  }

  private record(result: RunResult, lastCall: { inputTokens: number; outputTokens: number } | undefined): void {
    const u = this.totals
    u.inputTokens += result.usage.inputTokens
    u.outputTokens += result.usage.outputTokens
    u.reasoningTokens += result.usage.reasoningTokens ?? 0
    u.totalTokens += result.usage.totalTokens
    if (result.usage.costUsd !== undefined) u.costUsd = (u.costUsd ?? 0) + result.usage.costUsd
    // The breakdown by direction is known only while every turn's model has a configured price.
    const price = pricingFor(this.options.settings, result.model)
    if (price && (u.turns === 0 || u.inputCostUsd !== undefined)) {
      u.inputCostUsd = (u.inputCostUsd ?? 0) + (result.usage.inputTokens * price.input) / 1e6
      u.outputCostUsd = (u.outputCostUsd ?? 0) + (result.usage.outputTokens * price.output) / 1e6
    } else {
      delete u.inputCostUsd
      delete u.outputCostUsd
    }
    u.apiCalls += result.apiCalls
    u.turns += 1
    const last = lastCall ?? result.usage
    if (last.inputTokens || last.outputTokens) u.contextTokens = last.inputTokens + last.outputTokens
    if (this.clientInfo?.model !== result.model) this.clientInfo = { model: result.model, contextLength: this.clientInfo?.contextLength }
  }

  // --- ChatConversation ------------------------------------------------------------------------

  title(): string | undefined {
    return this.cachedTitle
  }

  async setTitle(title: string): Promise<void> {
    const store = this.sessions('/title')
    if (!this.sessionId) {
      const created = await store.create({ source: 'cli', cwd: this.options.cwd })
      this.sessionId = created.id
    }
    this.cachedTitle = await store.setTitle(this.sessionId, title)
  }

  model(): ChatModel {
    if (this.override) return { ...this.override, ...(this.clientInfo?.contextLength ? { contextLength: this.clientInfo.contextLength } : {}) }
    const models = this.options.services.get<ModelsService>(MODELS_SERVICE)
    let selection: ModelSelection | undefined
    try {
      selection = models?.select({ provider: this.options.provider, model: this.options.model })
    } catch {
      selection = undefined
    }
    if (!selection) return { provider: 'none', model: 'not configured', origin: 'config' }
    return {
      provider: selection.provider,
      model: selection.model || this.clientInfo?.model || '(default)',
      ...(selection.baseUrl ? { baseUrl: selection.baseUrl } : {}),
      ...(selection.customName ? { customName: selection.customName } : {}),
      ...(this.clientInfo?.contextLength ? { contextLength: this.clientInfo.contextLength } : {}),
      origin: 'config',
    }
  }

  async setModel(selection: ModelSelection): Promise<void> {
    this.override = { provider: selection.provider, model: selection.model, baseUrl: selection.baseUrl, customName: selection.customName, origin: 'session' }
    this.clientInfo = undefined
    this.ui?.changed()
    void this.refreshModelInfo()
  }

  reasoningEffort(): ReasoningEffort | undefined {
    return this.effort ?? this.options.settings.get<ReasoningEffort>('agent.reasoning_effort')
  }

  async setReasoningEffort(effort: ReasoningEffort): Promise<void> {
    // Runs are built per turn, so re-initialising is: the next turn is built with the new effort
    // and a freshly resolved client.
    this.effort = effort
    this.clientInfo = undefined
    await this.refreshModelInfo()
  }

  showReasoning(): boolean {
    return this.reasoningShown
  }

  setShowReasoning(show: boolean): void {
    this.reasoningShown = show
  }

  usage(): ChatUsage {
    return { ...this.totals, ...(this.model().contextLength ? { contextLength: this.model().contextLength } : {}) }
  }

  busy(): boolean {
    return this.current !== undefined
  }

  queued(): number {
    return this.pending.length
  }

  async stop(): Promise<boolean> {
    this.pending.length = 0
    if (!this.current) return false
    this.current.abort(new AgentError('E_INTERRUPTED', 'interrupted'))
    return true
  }

  queue(prompt: string): number {
    return this.submit(prompt)
  }

  async newSession(): Promise<void> {
    await this.stop()
    await this.idle()
    const old = this.sessionId
    this.sessionId = undefined
    this.cachedTitle = undefined
    this.totals = emptyUsage()
    if (old) await this.options.services.get<SessionStore>(SESSIONS_SERVICE)?.end(old, 'new_session').catch(() => undefined)
    this.ui?.changed()
  }

  /** Continues a stored session (`-c`, `--resume`, `/resume`). */
  adopt(record: SessionRecord): ChatSessionSummary {
    this.sessionId = record.id
    this.cachedTitle = record.title
    this.totals = {
      ...emptyUsage(),
      inputTokens: record.usage.inputTokens,
      outputTokens: record.usage.outputTokens,
      reasoningTokens: record.usage.reasoningTokens,
      totalTokens: record.usage.totalTokens,
      ...(record.usage.costUsd ? { costUsd: record.usage.costUsd } : {}),
      apiCalls: record.apiCalls,
    }
    this.ui?.changed()
    return { id: record.id, title: record.title, updatedAt: record.updatedAt, messageCount: record.messageCount }
  }

  async resume(idOrTitle: string): Promise<ChatSessionSummary> {
    const store = this.sessions('/resume')
    const record = await store.resolve(idOrTitle)
    if (!record) throw new AgentError('E_NOT_FOUND', `no session with id or title "${idOrTitle}" (see /resume for recent ones)`)
    if (record.endedAt) await store.reopen(record.id)
    return this.adopt(record)
  }

  async recentSessions(limit: number): Promise<ChatSessionSummary[]> {
    const list = await this.sessions('/resume').list({ limit })
    return list.map((r) => ({ id: r.id, title: r.title, updatedAt: r.updatedAt, messageCount: r.messageCount }))
  }

  async compress(): Promise<CompressResult> {
    if (!this.sessionId) return { beforeMessages: 0, afterMessages: 0 }
    const outcome = await this.runtime.compress(this.sessionId, { force: true })
    this.sessionId = outcome.sessionId
    if (outcome.compressed) this.totals.contextTokens = outcome.afterTokens
    this.ui?.changed()
    return { beforeMessages: outcome.beforeMessages, afterMessages: outcome.afterMessages, beforeTokens: outcome.beforeTokens, afterTokens: outcome.afterTokens }
  }

  background(prompt: string): BackgroundTask {
    const task: BackgroundTask = { id: `bg${this.tasks.length + 1}`, prompt, status: 'running', startedAt: Date.now() }
    this.tasks.push(task)
    const controller = new AbortController()
    this.taskControllers.set(task.id, controller)
    const finish = (fields: Partial<BackgroundTask>) => {
      Object.assign(task, fields, { endedAt: Date.now() })
      this.taskControllers.delete(task.id)
      this.ui?.backgroundDone({ ...task })
      this.ui?.changed()
    }
    // An isolated session: no sessionId, so the run starts its own.
    Promise.resolve()
      .then(() => this.runtime.run(this.runRequest(prompt, controller.signal)))
      .then(
        (result) => finish({ status: result.exitReason === 'interrupted' ? 'stopped' : 'done', sessionId: result.sessionId, answer: result.answer }),
        (error: unknown) => finish({ status: controller.signal.aborted ? 'stopped' : 'failed', error: errorMessage(this.shownError(error)) }),
      )
    this.ui?.changed()
    return task
  }

  backgroundTasks(): BackgroundTask[] {
    return this.tasks.map((t) => ({ ...t }))
  }

  runningBackground(): number {
    return this.taskControllers.size
  }

  tools(): ChatToolInfo[] {
    const settings = this.options.settings
    return this.options.tools
      .entries()
      .map(({ owner, value }) => {
        const toolset = value.toolset ?? owner
        let available: true | string = true
        try {
          available = value.available?.(settings) ?? true
        } catch (error) {
          available = errorMessage(error)
        }
        const names = [value.name, toolset]
        const enabled = names.some((n) => this.disableTools.has(n)) ? false : names.some((n) => this.enableTools.has(n)) || toolEnabled(value, settings, owner)
        return { name: value.name, toolset, enabled, available }
      })
      .sort((a, b) => a.toolset.localeCompare(b.toolset) || a.name.localeCompare(b.name))
  }

  setToolsEnabled(names: string[], enabled: boolean): string[] {
    const before = new Map(this.tools().map((t) => [t.name, t.enabled]))
    for (const name of names) {
      if (enabled) {
        this.disableTools.delete(name)
        this.enableTools.add(name)
      } else {
        this.enableTools.delete(name)
        this.disableTools.add(name)
      }
    }
    return this.tools()
      .filter((t) => before.get(t.name) !== t.enabled)
      .map((t) => t.name)
  }

  get statusBar(): ChatConversation['statusBar'] {
    return this.ui?.statusBar
  }

  exit(): void {
    this.ui?.exit()
  }

  /** Leaving the chat: stop what runs, end the session. */
  async close(): Promise<void> {
    this.pending.length = 0
    this.current?.abort(new AgentError('E_INTERRUPTED', 'chat closed'))
    for (const controller of this.taskControllers.values()) controller.abort(new AgentError('E_INTERRUPTED', 'chat closed'))
    await this.idle()
    if (this.sessionId) await this.options.services.get<SessionStore>(SESSIONS_SERVICE)?.end(this.sessionId, 'user_exit').catch(() => undefined)
  }
}
