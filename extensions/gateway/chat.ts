// One chat's conversation on the gateway: its session, its queue of prompts (one turn at a time),
// its per-chat model, effort, tool and usage state, and the ChatConversation that slash commands
// act on (sdk/chat.ts).

import {
  AgentError, MODELS_SERVICE, RUNTIME_SERVICE, SESSIONS_SERVICE,
  type BackgroundTask, type ChatModel, type ChatSessionSummary, type ChatToolInfo, type ChatUsage, type CompressResult,
  type GatewayChatController, type MessageSource, type ModelSelection, type ModelsService, type ReasoningEffort,
  type RunResult, type RuntimeService, type Services, type SessionStore, type Settings, type ToolDefinition,
} from 'agent/sdk'

export interface ChatHost {
  services: Services
  settings: Settings
  tools(): ToolDefinition[]
  /** Runs one queued prompt of this chat (session routing, reset policy, the reply); `inboxId` is its durable record. */
  runTurn(chat: ChatState, prompt: string, signal: AbortSignal, inboxId?: number): Promise<void>
  /** Runs a prompt in an isolated session and delivers its answer to the chat. */
  runIsolated(chat: ChatState, prompt: string): Promise<RunResult>
  send(chat: ChatState, text: string): Promise<void>
  /** Forgets the chat's session (the next turn starts a new one). */
  forgetSession(chat: ChatState, reason: string): Promise<void>
  adoptSession(chat: ChatState, sessionId: string): Promise<void>
}

const emptyUsage = (): ChatUsage => ({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0, totalTokens: 0, apiCalls: 0, turns: 0, contextTokens: 0, startedAt: Date.now() })

export class ChatState {
  sessionId: string | undefined
  readonly pending: Array<{ prompt: string; inboxId?: number; resolve: () => void }> = []
  current: AbortController | undefined
  modelOverride: ChatModel | undefined
  effort: ReasoningEffort | undefined
  reasoningShown: boolean
  usageTotals: ChatUsage = emptyUsage()
  readonly disabledTools = new Set<string>()
  readonly tasks: BackgroundTask[] = []
  cachedTitle: string | undefined
  private pumping = false

  constructor(
    readonly key: string,
    public source: MessageSource & { threadId?: string },
    private readonly host: ChatHost,
  ) {
    this.reasoningShown = host.settings.get<boolean>('display.show_reasoning') === true
  }

  busy(): boolean {
    return this.current !== undefined
  }

  /** Queues a prompt; resolves when its turn (and reply) is finished. */
  enqueue(prompt: string, inboxId?: number): { position: number; done: Promise<void> } {
    let resolve!: () => void
    const done = new Promise<void>((r) => (resolve = r))
    this.pending.push({ prompt, ...(inboxId === undefined ? {} : { inboxId }), resolve })
    const position = this.pending.length - (this.busy() ? 0 : 1)
    void this.pump()
    return { position, done }
  }

  private async pump(): Promise<void> {
    if (this.pumping) return
    this.pumping = true
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift()) {
        const controller = new AbortController()
        this.current = controller
        try {
          await this.host.runTurn(this, next.prompt, controller.signal, next.inboxId)
        } finally {
          this.current = undefined
          next.resolve()
        }
      }
    } finally {
      this.pumping = false
    }
  }

  recordUsage(result: RunResult): void {
    const u = this.usageTotals
    u.inputTokens += result.usage.inputTokens
    u.outputTokens += result.usage.outputTokens
    u.reasoningTokens += result.usage.reasoningTokens ?? 0
    u.totalTokens += result.usage.totalTokens
    if (result.usage.costUsd !== undefined) u.costUsd = (u.costUsd ?? 0) + result.usage.costUsd
    u.apiCalls += result.apiCalls
    u.turns += 1
    u.contextTokens = result.usage.inputTokens
  }

  resetUsage(): void {
    this.usageTotals = emptyUsage()
  }

  controller(): GatewayChatController {
    const chat = this
    const host = this.host
    const sessions = () => host.services.get<SessionStore>(SESSIONS_SERVICE)
    const needSessions = (what: string) => {
      const store = sessions()
      if (!store) throw new AgentError('E_STATE', `${what} needs the session store, which is not loaded`)
      return store
    }
    const summary = (r: { id: string; title?: string; updatedAt?: number; messageCount?: number }): ChatSessionSummary => ({ id: r.id, title: r.title, updatedAt: r.updatedAt, messageCount: r.messageCount })
    return {
      surface: 'gateway',
      get sessionId() {
        return chat.sessionId
      },
      source: chat.source,
      sessionKey: chat.key,
      send: (text) => host.send(chat, text),
      title: () => chat.cachedTitle,
      async setTitle(title) {
        const store = needSessions('/title')
        if (!chat.sessionId) {
          const created = await store.create({ source: chat.source.platform, userId: chat.source.userId, chatId: chat.source.chatId })
          await host.adoptSession(chat, created.id)
        }
        chat.cachedTitle = await store.setTitle(chat.sessionId!, title)
      },
      model() {
        if (chat.modelOverride) return { ...chat.modelOverride }
        const models = host.services.get<ModelsService>(MODELS_SERVICE)
        if (!models) return { provider: 'unknown', model: 'unknown', origin: 'config' }
        const selection = models.select()
        return { provider: selection.provider, model: selection.model, baseUrl: selection.baseUrl, customName: selection.customName, origin: 'config' }
      },
      async setModel(selection: ModelSelection) {
        chat.modelOverride = { provider: selection.provider, model: selection.model, baseUrl: selection.baseUrl, customName: selection.customName, origin: 'session' }
      },
      reasoningEffort: () => chat.effort ?? host.settings.get<ReasoningEffort>('agent.reasoning_effort'),
      async setReasoningEffort(effort) {
        chat.effort = effort
      },
      showReasoning: () => chat.reasoningShown,
      setShowReasoning(show) {
        chat.reasoningShown = show
      },
      usage: () => ({ ...chat.usageTotals }),
      busy: () => chat.busy(),
      async stop() {
        if (!chat.current) return false
        chat.current.abort(new AgentError('E_INTERRUPTED', 'stopped by /stop'))
        return true
      },
      queue: (prompt) => chat.enqueue(prompt).position,
      async newSession() {
        chat.current?.abort(new AgentError('E_INTERRUPTED', 'new session'))
        await host.forgetSession(chat, 'new_session')
        chat.resetUsage()
      },
      async resume(idOrTitle) {
        const record = await needSessions('/resume').resolve(idOrTitle)
        if (!record) throw new AgentError('E_NOT_FOUND', `no session with id or title "${idOrTitle}"`)
        await host.adoptSession(chat, record.id)
        chat.cachedTitle = record.title
        return summary(record)
      },
      async recentSessions(limit) {
        const store = needSessions('/resume')
        return (await store.list({ limit, source: chat.source.platform, chatId: chat.source.chatId })).map(summary)
      },
      async compress(): Promise<CompressResult> {
        const runtime = host.services.get<RuntimeService>(RUNTIME_SERVICE)
        if (!runtime?.compress) throw new AgentError('E_STATE', '/compress needs the runtime, which is not loaded')
        if (!chat.sessionId) throw new AgentError('E_STATE', 'nothing to compress yet')
        const outcome = await runtime.compress(chat.sessionId, { force: true })
        await host.adoptSession(chat, outcome.sessionId)
        return { beforeMessages: outcome.beforeMessages, afterMessages: outcome.afterMessages, beforeTokens: outcome.beforeTokens, afterTokens: outcome.afterTokens }
      },
      background(prompt) {
        const task: BackgroundTask = { id: `bg-${chat.tasks.length + 1}-${Date.now().toString(36)}`, prompt, status: 'running', startedAt: Date.now() }
        chat.tasks.push(task)
        host.runIsolated(chat, prompt).then(
          (result) => Object.assign(task, { status: 'done', sessionId: result.sessionId, answer: result.answer, endedAt: Date.now() }),
          (error: unknown) => Object.assign(task, { status: 'failed', error: (error as Error)?.message ?? String(error), endedAt: Date.now() }),
        )
        return task
      },
      backgroundTasks: () => chat.tasks.map((t) => ({ ...t })),
      tools(): ChatToolInfo[] {
        return host.tools().map((tool) => {
          let available: true | string = true
          try {
            available = tool.available?.(host.settings) ?? true
          } catch (error) {
            available = (error as Error).message
          }
          return { name: tool.name, toolset: tool.toolset ?? 'default', enabled: !chat.disabledTools.has(tool.name) && tool.enabledByDefault !== false, available }
        })
      },
      setToolsEnabled(names, enabled) {
        const changed: string[] = []
        for (const tool of host.tools()) {
          if (!names.includes(tool.name) && !names.includes(tool.toolset ?? '')) continue
          const isDisabled = chat.disabledTools.has(tool.name)
          if (enabled && isDisabled) chat.disabledTools.delete(tool.name)
          else if (!enabled && !isDisabled) chat.disabledTools.add(tool.name)
          else continue
          changed.push(tool.name)
        }
        return changed
      },
    }
  }
}
